// The replay of a finished match: step by step (Anterior / Siguiente, the slider, the arrow
// keys), both hands face up (the match is over), the table, what each one has taken, the
// move in words and each hand's result. Everything comes from GET /api/replays/<code>: the
// server played the stored moves again; nothing is counted here.

import { otherTeam, seatsOf, teamOf } from "../engine/seats.js";
import { t } from "../lib/i18n.js";
import { capitalize, h } from "../lib/dom.js";
import { cardElement } from "../ui/cards.js";
import { scoreBox } from "../ui/panels.js";
import { sayIn, shareButton, shareStatus } from "../ui/share.js";
import { sheetFacts, sheetTable } from "../ui/sheet.js";
import { deckLine, tableEmpty, tableItems } from "../ui/table.js";
import { levelName } from "../ui/texts.js";
import { dealWords, handEndWords, matchEndWords, moveLine, moveSentence } from "../ui/words.js";

/** A seat as the replay's headings name it: "Ana", "Computadora (Fácil)". */
function displayName(data, seat) {
  if (data.kinds[seat] === "computer") {
    return data.level ? t("replay.computer_level", { level: levelName(data.level) }) : t("names.computer_short");
  }
  return data.names[seat] || t("watch.player", { n: seat + 1 });
}

/** A seat inside a sentence: "Ana", "la computadora". */
function sentenceName(data, seat) {
  return data.kinds[seat] === "computer" ? t("games.computer") : displayName(data, seat);
}

/** What happened in a step: the move (said, or shown with card chips), a new deal, the end
 * of a hand or of the match. */
function stepWords(data, step, index, spoken) {
  const names = seatsOf(data.names.length).map((seat) => sentenceName(data, seat));
  if (index === 0) {
    return [t("replay.deal", { name: names[step.position.turn] })];
  }
  const words = [];
  for (const event of step.events) {
    if (event.kind === "move") {
      const mover = { who: capitalize(names[event.seat]), table: step.position.table };
      words.push(spoken ? moveSentence(event, mover) : moveLine(event, mover));
    } else if (event.kind === "deal") words.push(dealWords());
    else if (event.kind === "hand_end") words.push(handEndWords(event, names));
    else if (event.kind === "match_end") words.push(matchEndWords(event, names));
  }
  return words;
}

function seatPanel(data, step, seat, active) {
  const p = step.position;
  const cards = p.hands[seat].length > 0;
  const hand = h("div", { class: "r-hand", "data-seat": String(seat), role: cards ? "list" : null,
    "aria-label": cards ? t("replay.hand_of", { name: displayName(data, seat) }) : null },
  p.hands[seat].map((code) => {
    const el = cardElement(code, { interactive: false });
    el.setAttribute("role", "listitem");
    return el;
  }));
  if (!cards) hand.append(h("p", { class: "small empty-hand" }, t("replay.no_cards")));
  return h("section", { class: "r-seat" + (active ? " to-move" : ""), "data-seat": String(seat),
    "aria-label": displayName(data, seat) },
  h("div", { class: "r-name" },
    scoreBox({ seat, who: displayName(data, seat), near: seat === 0, score: p.scores[teamOf(seat)],
      limpias: p.limpias[teamOf(seat)], tally: p.tally[teamOf(seat)] }),
    active ? h("p", { class: "r-turn" }, "Le toca") : null),
  hand);
}

function tablePanel(data, step) {
  const p = step.position;
  const items = tableItems(p.table, { seat: null, ownerName: (seat) => sentenceName(data, seat) });
  return h("section", { class: "r-table" + (tableEmpty(p.table) ? " empty" : ""), "aria-label": t("mesa.title") },
    items.length ? h("div", { class: "table-cards" }, items) : h("p", { class: "r-empty" }, t("table.empty")),
    deckLine(p.deck_size, "deck r-deck"));
}

function handResult(data, step) {
  const end = step.events.find((e) => e.kind === "hand_end");
  if (!end) return null;
  const facts = sheetFacts({ ...end.result, categories: end.result.categories || data.categories });
  return h("section", { class: "r-result", "aria-label": t("replay.result", { n: end.hand_number + 1 }) },
    h("h2", {}, t("sheet.hand_end", { n: end.hand_number + 1 })),
    sheetTable(facts, 0, displayName(data, 1), displayName(data, 0)));
}

/**
 * The replay screen. `data`: the server's replay; `onBack()`: leave; `link`: the replay's
 * absolute address to share. Returns {element, stop}: stop() removes the key listener.
 */
export function replayScreen(data, { onBack, link }) {
  const last = data.steps.length - 1;
  let index = 0;
  const names = seatsOf(data.names.length).map((seat) => displayName(data, seat));
  const board = h("div", { class: "r-board" });
  const counter = h("p", { class: "r-counter", "aria-hidden": "true" });
  const words = h("p", { class: "r-words" });
  const spoken = h("p", { class: "sr-only", "aria-live": "polite" });
  const result = h("div", { class: "r-result-box" });
  const slider = h("input", { type: "range", min: "0", max: String(last), value: "0", step: "1",
    class: "r-slider", "aria-label": "Jugada" });
  const prev = h("button", { type: "button", class: "btn r-prev" }, t("replay.prev"));
  const next = h("button", { type: "button", class: "btn r-next" }, t("replay.next"));
  const root = h("section", { class: "page replay", "aria-labelledby": "replay-title",
    "data-steps": String(data.steps.length) });

  const draw = () => {
    const step = data.steps[index];
    const p = step.position;
    const playing = index < last;
    board.replaceChildren(seatPanel(data, step, 1, playing && p.turn === 1), tablePanel(data, step),
      seatPanel(data, step, 0, playing && p.turn === 0));
    const hand = t("replay.hand", { n: p.hand_number + 1 });
    counter.textContent = index === 0 ? t("replay.step_deal", { hand }) : t("replay.step", { hand, n: index, last });
    words.replaceChildren(...stepWords(data, step, index, false).map((shown) => h("span", {}, shown, " ")));
    spoken.textContent = [index === 0 ? t("replay.deal_said") : t("replay.move_said", { n: index, last }),
      ...stepWords(data, step, index, true)].join(" ");
    const ended = handResult(data, step);
    result.replaceChildren(ended || "");
    // a hand's end: its result brought into sight inside the board (the page never scrolls)
    if (ended && root.isConnected) ended.scrollIntoView({ block: "nearest" });
    slider.value = String(index);
    slider.setAttribute("aria-valuetext", index === 0 ? t("replay.the_deal") : t("replay.move_of", { n: index, last }));
    prev.setAttribute("aria-disabled", String(index === 0));
    next.setAttribute("aria-disabled", String(index === last));
    root.dataset.step = String(index);
  };
  const go = (to) => {
    const target = Math.max(0, Math.min(last, to));
    if (target === index) return;
    index = target;
    draw();
  };
  prev.addEventListener("click", () => go(index - 1));
  next.addEventListener("click", () => go(index + 1));
  slider.addEventListener("input", () => go(Number(slider.value)));
  const onKey = (event) => {
    if (event.target === slider || event.altKey || event.ctrlKey || event.metaKey) return; // the slider moves itself
    if (document.querySelector("dialog[open]")) return;
    const moves = { ArrowLeft: -1, ArrowRight: 1, PageUp: -10, PageDown: 10 };
    if (event.key in moves) go(index + moves[event.key]);
    else if (event.key === "Home") go(0);
    else if (event.key === "End") go(last);
    else return;
    event.preventDefault();
  };
  document.addEventListener("keydown", onKey);

  const shared = shareStatus();
  const say = sayIn(shared);
  const winner = data.winner;
  // the replay fits the screen as la mesa does: the head, the board (with the hand's result
  // and the share link, scrolled inside when they do not fit) and, at the foot, what
  // happened with its controls: stepping never means scrolling, and nothing covers a hand
  root.append(
    h("div", { class: "r-head" },
      h("button", { type: "button", class: "btn quiet r-back", onclick: onBack }, t("pages.back_arrow")),
      h("h1", { id: "replay-title" }, t("replay.title", { a: names[0], b: names[1] })),
      h("p", { class: "r-final" }, t("replay.of_match", { n: data.match }),
        h("strong", {}, t("replay.won", { name: names[winner], won: data.scores[winner], lost: data.scores[otherTeam(winner)] })))),
    h("div", { class: "r-scroll" },
      board,
      result,
      h("p", { class: "small r-keys" }, t("replay.keys")),
      h("div", { class: "r-share-row" },
        shareButton(t("replay.share"), { text: t("replay.share_text"), url: link }, say, "btn r-share"),
        shared,
        h("p", { class: "small" }, t("replay.public")),
        h("p", { class: "small invite-link" }, h("a", { href: link, "data-replay-link": "" }, link)))),
    h("div", { class: "r-dock" },
      h("div", { class: "r-status" }, counter, words, spoken),
      h("div", { class: "r-controls", role: "group", "aria-label": t("replay.controls") }, prev, slider, next)),
  );
  draw();
  return { element: root, stop: () => document.removeEventListener("keydown", onKey) };
}
