// La mesa's actions: what the chosen card can do (only what the server's options allow),
// the build panel (the server's ideas, the values a set of marked items makes, "¿Por qué
// no?"), and after the match the rematch and the replay.

import { language, parts, t } from "../../lib/i18n.js";
import { capitalize, h } from "../../lib/dom.js";
import { cardShort, chip, pileShort } from "../../ui/cards.js";
import {
  askWhyNot, cancel, capture, chooseIdea, clearMarks, confirmBuild, leaveBuild, startBuild, trail,
} from "./intents.js";
import { askedRematch } from "./handsheet.js";
import { isFour, myTurn, opponentName, seatCapitalized } from "./names.js";
import { buildEntry, buildTakes, ideaFor, optionsFor, sameMove } from "./selection.js";

const NO_OPTIONS = { llevarte: null, llevarte_solo: null, builds: [], build_takes: [], trail: false };

/** A table item as a list names it: "9♠", "montón doble de 8". */
function itemShort(view, id) {
  const pile = view.table.piles.find((p) => p.id === id);
  return pile ? pileShort(pile) : cardShort(id);
}

function button(label, onclick, extra = "") {
  return h("button", { type: "button", class: "btn action " + extra, onclick }, label);
}

/** With the connection gone a while: the computer with no server, in a new game of this
 * device's (this one waits for the signal). */
export function offlineOffer(g) {
  if (!g.offersOffline()) return null;
  const level = (key, label) => h("button", { type: "button", class: "btn offline-play", "data-offline-level": key,
    onclick: () => g.app.offline.play(key) }, label);
  return h("div", { class: "offline-offer", role: "group", "aria-labelledby": "offline-offer-text" },
    h("p", { id: "offline-offer-text" }, t("mesa.offline_offer")),
    h("div", { class: "button-row" }, level("facil", t("mesa.offline_level", { level: t("level.facil") })),
      level("normal", t("mesa.offline_level", { level: t("level.normal") }))));
}

/** The actions bar under the hand (while the connection is gone a while, the offer to
 * play offline instead: nothing can be played here until it is back). */
export function actionsBar(g) {
  const v = g.view;
  const bar = h("div", { class: "actions", role: "group", "aria-label": t("mesa.actions") });
  const line = (text) => h("p", { class: "hint-line" }, text);
  const offer = offlineOffer(g);
  if (offer) {
    bar.append(offer);
    return bar;
  }
  if (v.status === "finished") {
    const asked = v.rematch && v.rematch[v.seat];
    const wanted = askedRematch(v, v.rematch);
    if (wanted !== null && !asked) bar.append(line(t("mesa.wants_rematch", { name: seatCapitalized(v, wanted) })));
    const waiting = isFour(v) ? t("mesa.waiting_others") : t("mesa.waiting_for", { name: opponentName(v) });
    bar.append(h("button", { type: "button", class: "btn primary rematch",
      "aria-disabled": asked ? "true" : null, onclick: () => { if (!asked) g.rematch(); } },
    asked ? waiting : t("mesa.rematch")),
    // a game with no server has no replay (the server keeps those)
    ...(g.local ? [] : [h("button", { type: "button", class: "btn replay",
      onclick: () => g.app.openReplay(g.session.token, v.match) }, t("games.replay"))]));
    return bar;
  }
  const code = g.sel.selected;
  if (!myTurn(v)) bar.append(line(t("mesa.wait_turn")));
  else if (g.sel.pending) bar.append(line("Jugando…"));
  else if (!code) bar.append(line(t("mesa.tap_card")));
  else if (g.sel.mode === "build") bar.append(buildPanel(g, optionsFor(v, code) || NO_OPTIONS));
  else bar.append(...cardActions(g, code, optionsFor(v, code) || NO_OPTIONS));
  return bar;
}

/** What the chosen card can do: only what the server says (a marked set may still be
 * refused: then the server says why). */
function cardActions(g, code, opts) {
  const picked = g.sel.picked;
  const row = h("div", { class: "button-row" });
  if (picked.size > 0) {
    row.append(button(t("mesa.take_picked", { n: picked.size }), () => capture(g, "picked"), "primary take-picked"));
    if (buildEntry(g.sel, opts)) row.append(button(t("mesa.build"), () => startBuild(g), "build"));
    row.append(button(t("mesa.clear_marks"), () => clearMarks(g), "quiet"));
  } else {
    if (opts.llevarte) row.append(button(t("mesa.take"), () => capture(g, "most"), "primary take"));
    if (opts.llevarte_solo && !sameMove(opts.llevarte_solo, opts.llevarte)) {
      const items = opts.llevarte_solo.take.map((id) => itemShort(g.view, id)).join(" ");
      row.append(button(t("mesa.take_solo", { items }), () => capture(g, "solo"), "take-solo"));
    }
    if (buildTakes(opts).length > 0) row.append(button(t("mesa.build"), () => startBuild(g), "build"));
    if (opts.trail) row.append(button(t("mesa.trail"), () => trail(g), "trail"));
  }
  const offered = row.childElementCount;
  row.append(button(t("mesa.cancel"), () => cancel(g), "quiet cancel"));
  const title = offered > 0 || picked.size > 0
    ? h("p", { class: "hint-line" }, parts("mesa.with_card", { card: chip(code) }))
    : h("p", { class: "hint-line no-move" }, parts("mesa.no_move", { card: chip(code) }));
  // only a card that can take something (the server's options say so) may take what is tapped
  return [title, row,
    picked.size === 0 && opts.llevarte
      ? h("p", { class: "small" }, t("mesa.tap_to_take")) : null,
  ].filter(Boolean);
}

/** The server's build ideas for the chosen card (with hints on). */
function ideas(g, code, opts) {
  const list = h("ul", { class: "ideas", "aria-label": t("mesa.ideas_label") });
  opts.builds.forEach((idea, i) => {
    const items = idea.move.take.map((id) => itemShort(g.view, id));
    const takers = new Intl.ListFormat(language(), { type: "disjunction" }).format(idea.takers.map(cardShort));
    const pile = capitalize(pileShort({ value: idea.value, double: idea.double }));
    const cards = [cardShort(code), ...items].join(" + ");
    const label = takers ? t("mesa.idea_takers", { pile, cards, takers }) : t("mesa.idea", { pile, cards });
    list.append(h("li", {}, h("button", {
      type: "button", class: "btn idea" + (g.sel.idea === i ? " chosen" : ""),
      "aria-pressed": String(g.sel.idea === i), onclick: () => chooseIdea(g, i),
    }, label)));
  });
  return [h("p", { class: "small" }, t("mesa.ideas")), list];
}

function buildPanel(g, opts) {
  const code = g.sel.selected;
  const picked = g.sel.picked;
  const withIdeas = g.hints && opts.builds.length > 0;
  const body = h("div", { class: "panel-body" }, withIdeas ? ideas(g, code, opts) : null);
  const confirm = h("div", { class: "button-row confirm-row" });
  if (picked.size === 0) {
    body.append(h("p", { class: "small pick-line" }, withIdeas
      ? t("mesa.pick_or") : t("mesa.pick")));
  } else {
    const entry = buildEntry(g.sel, opts);
    const items = [cardShort(code), ...[...picked].map((id) => itemShort(g.view, id))].join(" + ");
    if (entry) {
      body.append(h("p", { class: "small pick-line" }, t("mesa.can_make", { items })));
      for (const value of entry.values) {
        // "Construir montón doble de 11" when the server's idea says it is one
        const double = Boolean(ideaFor(g.sel, opts, value)?.double);
        confirm.append(h("button", { type: "button", class: "btn primary build-confirm",
          "data-value": String(value), "data-focus-key": "b-" + value,
          onclick: () => confirmBuild(g, value) }, t("mesa.build_pile", { pile: pileShort({ value, double }) })));
      }
    } else {
      body.append(h("p", { class: "small pick-line no-build" }, t("mesa.no_pile", { items })));
      confirm.append(h("button", { type: "button", class: "btn why-not", onclick: () => askWhyNot(g) },
        t("mesa.why_not")));
    }
  }
  return h("div", { class: "build-panel", role: "group", "aria-label": t("mesa.build_label") },
    h("div", { class: "panel-head" },
      h("p", { class: "hint-line" }, parts("mesa.build_with", { card: chip(code) })),
      h("button", { type: "button", class: "btn quiet back", onclick: () => leaveBuild(g) }, t("mesa.back"))),
    body,
    confirm.childElementCount ? confirm : null);
}
