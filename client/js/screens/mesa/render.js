// La mesa drawn from the view the server sent and what this page holds (the selection, the
// hints switch, the opponent's presence, the notice, the reactions): the top bar with both
// score boxes, the opponent, the table, the last move and whose turn, the hand and the
// actions. Nothing here changes state; taps call the mesa's intents.

import { teamOf } from "../../engine/seats.js";
import { t } from "../../lib/i18n.js";
import { h } from "../../lib/dom.js";
import { cardElement } from "../../ui/cards.js";
import { playerPanel, scoreBoxes, watchersCount } from "../../ui/panels.js";
import { deckLine, tableArea } from "../../ui/table.js";
import { moveLine } from "../../ui/words.js";
import { actionsBar, offlineOffer } from "./actions.js";
import { selectCard, toggleTableItem } from "./intents.js";
import { isFriendGame, myTurn, opponentCapitalized, opponentName, opponentSeat, shortOpponentName } from "./names.js";
import { presencePanel } from "./presence.js";
import { reactButton, reactPanel } from "./reacting.js";
import { optionsFor, previewSet } from "./selection.js";
import { waitingRoom } from "./waiting.js";

/** Who made a move, for ui/words.js: me, the opponent, or the computer in my seat. */
export function moverOf(g, event, table) {
  if (event.seat === g.view?.seat && event.by === "computer") return { forMe: true, table };
  if (event.seat === g.view?.seat) return { who: null, table };
  return { who: opponentCapitalized(g.view), table };
}

/** What <main> holds for the mesa `g` now. */
export function mesaScreen(g) {
  const v = g.view;
  if (!v) {
    const offer = offlineOffer(g); // opened with no network: the computer offline meanwhile
    return h("section", { class: "mesa loading-mesa", "aria-busy": offer ? null : "true" },
      h("h1", { class: "sr-only" }, t("mesa.title")),
      h("p", { class: "loading" }, g.status === "reconnecting" ? t("mesa.reconnecting") : t("mesa.opening")),
      offer);
  }
  if (v.status === "waiting") return waitingRoom(g, topbar(g));
  return mesa(g);
}

/** The score boxes, the reactions and the Menú. */
export function topbar(g) {
  const v = g.view;
  const playing = v.status !== "waiting";
  // scores, limpias and what was captured are the team's (RULES.md 9.3), shown by a seat
  const box = (seat, who) => ({ seat, who, score: v.scores[teamOf(seat)],
    limpias: v.limpias[teamOf(seat)], tally: playing ? v.tally[teamOf(seat)] : null, mine: seat === v.seat,
    bubble: seat === v.seat ? g.reactions.bubble(seat) : null });
  return h("header", { class: "topbar" },
    scoreBoxes(box(v.seat, t("names.you")), box(opponentSeat(v), shortOpponentName(v))),
    reactButton(g),
    h("button", { type: "button", class: "btn menu-button", "aria-haspopup": "dialog",
      "data-focus-key": "menu", onclick: () => g.openMenu() }, t("mesa.menu")),
    reactPanel(g),
  );
}

function opponent(g) {
  const v = g.view;
  const p = g.presence.current;
  const seat = opponentSeat(v);
  return playerPanel({
    seat,
    name: opponentCapitalized(v),
    person: isFriendGame(v),
    away: Boolean(p && p.state !== "here"),
    level: v.opponent.level,
    handSize: v.opponent_hand_size,
    badges: v.turns ? h("span", { class: "turns-badge" }, "Por turnos") : null,
    below: [deckLine(v.deck_size), g.watchers > 0 ? watchersCount(g.watchers) : null,
      g.reactions.bubble(seat)],
  });
}

function hand(g, my) {
  const v = g.view;
  const el = h("section", { class: "hand", "aria-label": t("mesa.hand"), tabindex: "-1" });
  for (const code of v.hand) {
    const opts = optionsFor(v, code);
    const hinted = g.hints && my && Boolean(opts && opts.llevarte);
    const selected = g.sel.selected === code;
    const card = cardElement(code, {
      extraLabel: [selected ? t("mesa.chosen") : "", hinted ? t("mesa.hinted") : ""].filter(Boolean).join(", "),
    });
    card.classList.add("hand-card");
    card.dataset.focusKey = "h-" + code;
    if (hinted) card.classList.add("can-capture");
    if (selected) card.classList.add("selected");
    card.setAttribute("aria-pressed", String(selected));
    card.addEventListener("click", () => selectCard(g, code));
    if (hinted) card.append(h("span", { class: "hint-badge", "aria-hidden": "true" }, "✓"));
    el.append(card);
  }
  return el;
}

function mesa(g) {
  const v = g.view;
  const my = myTurn(v);
  const table = tableArea(v.table, {
    seat: v.seat,
    ownerName: () => opponentName(v),
    onItem: (id) => toggleTableItem(g, id),
    picked: g.sel.picked,
    wouldTake: previewSet(g.sel, v, g.hints, my),
  });
  const last = h("p", { class: "lastmove" }, v.last_move ? moveLine(v.last_move, moverOf(g, v.last_move, v.table)) : "");
  const turn = h("p", { class: "turn" + (my ? " mine" : ""), "data-turn": my ? "me" : "them" },
    v.status === "finished"
      ? (v.winner === teamOf(v.seat) ? t("mesa.you_won") : t("mesa.they_won", { name: opponentCapitalized(v) }))
      : my ? t("mesa.play_now") : t("mesa.their_turn", { name: opponentName(v) }));
  const status = h("div", { class: "status-lines" }, last, turn,
    g.sel.error ? h("p", { class: "error-line" }, g.sel.error) : null,
    g.notice.line());
  return h("section", {
    class: "mesa" + (g.hints ? " hints-on" : "") + (g.sel.selected ? " choosing" : "") +
      (g.sel.mode === "build" ? " building" : ""),
    "aria-labelledby": "mesa-title",
    "data-my-turn": String(my),
    "data-hand-number": String(v.hand_number),
    "data-seq": String(v.seq),
  },
  h("h1", { id: "mesa-title", class: "sr-only" }, t("mesa.title")),
  topbar(g),
  h("div", { class: "mesa-grid" },
    h("div", { class: "opp-area" }, opponent(g), presencePanel(g)),
    table, status, hand(g, my), actionsBar(g)));
}
