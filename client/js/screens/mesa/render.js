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
import {
  handSizeOf, isFour, myTurn, opponentCapitalized, opponentSeat, personChair, playerAt, seatCapitalized,
  seatName, seatShort, seatsAround, shortMyName, shortOpponentName, sideOf, weWon,
} from "./names.js";
import { presencePanel } from "./presence.js";
import { reactButton, reactPanel } from "./reacting.js";
import { optionsFor, previewSet } from "./selection.js";
import { waitingRoom } from "./waiting.js";

/** Who made a move, for ui/words.js: me, another player, or the computer in my seat. */
export function moverOf(g, event, table) {
  if (event.seat === g.view?.seat && event.by === "computer") return { forMe: true, table };
  if (event.seat === g.view?.seat) return { who: null, table };
  return { who: g.view ? seatCapitalized(g.view, event.seat) : opponentCapitalized(g.view), table };
}

/** The plays since this seat's last one (at a table of four, up to three happen between two
 * of yours): each told in a line, the newest last, kept until this seat plays again. */
export function recentPlays(g) {
  const v = g.view;
  const list = h("ol", { class: "lastmove recent-plays", "aria-label": t("four.recent") });
  const plays = g.recent && g.recent.length ? g.recent : v.last_move ? [{ event: v.last_move, table: v.table }] : [];
  plays.forEach(({ event, table }, i) => {
    list.append(h("li", { class: i === plays.length - 1 ? "newest" : "earlier", "data-seat": String(event.seat) },
      moveLine(event, moverOf(g, event, table))));
  });
  return list;
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
    limpias: v.limpias[teamOf(seat)], tally: playing ? v.tally[teamOf(seat)] : null, mine: seat === v.seat, team: isFour(v),
    bubble: seat === v.seat ? g.reactions.bubble(seat) : null });
  return h("header", { class: "topbar" },
    scoreBoxes(box(v.seat, shortMyName(v)), box(opponentSeat(v), shortOpponentName(v))),
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
    person: personChair(v, seat),
    away: Boolean(p && p.state !== "here"),
    level: playerAt(v, seat).level,
    handSize: handSizeOf(v, seat),
    badges: v.turns ? h("span", { class: "turns-badge" }, "Por turnos") : null,
    below: [deckLine(v.deck_size), g.watchers > 0 ? watchersCount(g.watchers) : null,
      g.reactions.bubble(seat)],
  });
}

/** One of the three other seats at a table of four, where it sits (left, across, right):
 * its name, whether it is a partner or a rival, its cards, and whether it plays now. */
function seatPanel(g, seat) {
  const v = g.view;
  const side = sideOf(v, seat);
  const player = playerAt(v, seat);
  const person = personChair(v, seat);
  const p = v.presence?.[seat];
  const moving = v.status === "playing" && v.turn === seat;
  const panel = playerPanel({
    seat,
    name: seatShort(v, seat),
    person,
    away: Boolean(person && p && p.state !== "here"),
    level: player.level,
    handSize: handSizeOf(v, seat),
    badges: [h("span", { class: "role" }, t(side === "partner" ? "four.role.partner" : "four.role.rival")),
      moving ? h("span", { class: "turn-mark" }, t("four.plays_now")) : null],
    below: g.reactions.bubble(seat),
  }, `opponent seat-${side}` + (moving ? " to-move" : ""));
  panel.dataset.side = side;
  return panel;
}

/** The other three seats of a table of four: the rival on the left, the partner across, the
 * rival on the right; under them the deck and who is watching. */
function around(g) {
  const v = g.view;
  const { left, partner, right } = seatsAround(v);
  return h("div", { class: "around" },
    h("div", { class: "around-seats" }, seatPanel(g, left), seatPanel(g, partner), seatPanel(g, right)),
    h("div", { class: "around-foot" }, deckLine(v.deck_size), g.watchers > 0 ? watchersCount(g.watchers) : null,
      v.turns ? h("span", { class: "turns-badge" }, t("inicio.turns")) : null));
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
    ownerName: (seat) => seatName(v, seat),
    onItem: (id) => toggleTableItem(g, id),
    picked: g.sel.picked,
    wouldTake: previewSet(g.sel, v, g.hints, my),
  });
  const four = isFour(v);
  const last = four ? recentPlays(g)
    : h("p", { class: "lastmove" }, v.last_move ? moveLine(v.last_move, moverOf(g, v.last_move, v.table)) : "");
  let won = null;
  if (v.status === "finished") {
    if (four) won = weWon(v) ? t("four.we_won") : t("four.they_won");
    else won = v.winner === teamOf(v.seat) ? t("mesa.you_won") : t("mesa.they_won", { name: opponentCapitalized(v) });
  }
  const turn = h("p", { class: "turn" + (my ? " mine" : ""), "data-turn": my ? "me" : "them",
    "data-turn-seat": String(v.turn) },
  won ?? (my ? t("mesa.play_now") : t(four ? "mesa.their_turn_four" : "mesa.their_turn",
    { name: seatName(v, v.turn === v.seat ? opponentSeat(v) : v.turn) })));
  const status = h("div", { class: "status-lines" }, last, turn,
    g.sel.error ? h("p", { class: "error-line" }, g.sel.error) : null,
    g.notice.line());
  return h("section", {
    class: "mesa" + (four ? " four" : "") + (g.hints ? " hints-on" : "") + (g.sel.selected ? " choosing" : "") +
      (g.sel.mode === "build" ? " building" : ""),
    "aria-labelledby": "mesa-title",
    "data-my-turn": String(my),
    "data-hand-number": String(v.hand_number),
    "data-seq": String(v.seq),
    "data-seats": String(four ? 4 : 2),
  },
  h("h1", { id: "mesa-title", class: "sr-only" }, t("mesa.title")),
  topbar(g),
  h("div", { class: "mesa-grid" },
    h("div", { class: "opp-area" }, four ? around(g) : opponent(g), presencePanel(g)),
    table, status, hand(g, my), actionsBar(g)));
}
