// What the player does at la mesa: choose a hand card (Escape lets it go), mark table items
// (a table card tapped first says what to tap first), open the build panel, and play. Each intent updates the selection, redraws and puts the focus where
// the next step is; a move goes to the server as the player composed it (the server says
// why when it is not allowed).

import { t } from "../../lib/i18n.js";
import { alertNow, h } from "../../lib/dom.js";
import { cardNameWithArticle, cardValue } from "../../ui/cards.js";
import { focusLater } from "./focus.js";
import { myTurn, opponentSeat, seatName } from "./names.js";
import { chooseCard, freshSelection, optionsFor, toggleMark } from "./selection.js";

let moveCounter = 0;

/** Whether the player may touch the table now (else says why). */
function canAct(g) {
  if (g.sel.pending || g.animating) return false;
  if (myTurn(g.view)) return true;
  // a tap while it is not my turn: say whose turn it is (nothing once it is over)
  if (g.view?.status === "playing") {
    const v = g.view;
    g.showError(t("mesa.not_yet", { name: seatName(v, v.turn === v.seat ? opponentSeat(v) : v.turn) }));
  } else {
    g.sel.error = null;
    g.render();
  }
  return false;
}

export function selectCard(g, code) {
  if (!canAct(g)) return;
  g.sel = chooseCard(g.sel, code);
  g.render();
  focusLater(g, g.sel.selected ? ".actions button:not([aria-disabled])" : null);
}

const HAND_FIRST = "mesa.hand_first";

/** Says `text` on the error line while the other's move is being shown: the line is put in
 * place without drawing the table again (that would cut the move short), and it stays once
 * the move has landed (Mesa.apply). */
function sayDuringMove(g, text) {
  g.sel.error = text;
  g.sel.keepError = true;
  alertNow(text);
  const lines = g.root.querySelector(".status-lines");
  if (!lines) return;
  let line = lines.querySelector(".error-line");
  if (!line) {
    line = h("p", { class: "error-line" });
    lines.querySelector(".turn")?.after(line);
  }
  line.textContent = text;
}

export function toggleTableItem(g, id) {
  if (!g.sel.selected && g.animating && g.view?.status === "playing") {
    // a table card tapped first while the other's move lands: what to tap first
    sayDuringMove(g, t(HAND_FIRST));
    return;
  }
  if (!canAct(g)) return;
  if (!g.sel.selected) {
    g.showError(t(HAND_FIRST));
    return;
  }
  toggleMark(g.sel, id);
  g.render();
  focusLater(g, `.table-area [data-id="${id}"]`);
}

export function clearMarks(g) {
  g.sel.picked = new Set();
  g.render();
}

export function cancel(g) {
  g.sel = freshSelection();
  g.render();
}

/** Escape at the table: a chosen card is let go (its marks and build too) and the focus
 * goes back to it in the hand, so that the next Space or Enter chooses again, never plays. */
export function escapeChoice(g, event) {
  if (event.key !== "Escape" || event.defaultPrevented || !g.sel.selected || g.sel.pending) return;
  event.preventDefault();
  const code = g.sel.selected;
  cancel(g);
  g.root.querySelector(`.hand [data-code="${code}"]`)?.focus();
}

function sendMove(g, move) {
  if (!g.view || g.sel.pending) return;
  const id = `m${Date.now().toString(36)}-${++moveCounter}`;
  const seq = g.view.seq ?? g.session.since;
  if (!g.conn.send({ type: "move", move, seq, id })) {
    g.showError(t("mesa.no_connection"));
    return;
  }
  g.sel.pending = { id, move, seq };
  g.sel.error = null;
  g.render();
}

/** "Llevarte" (`most`), "Llevarte solo" (`solo`) or "Llevarte lo marcado" (`picked`). */
export function capture(g, which) {
  const opts = optionsFor(g.view, g.sel.selected);
  if (!opts) return;
  if (which === "picked") {
    sendMove(g, { kind: "capture", card: opts.card, take: [...g.sel.picked] });
    return;
  }
  const move = which === "solo" ? opts.llevarte_solo : opts.llevarte;
  if (!move) {
    g.showError(t("mesa.nothing_to_take", { card: cardNameWithArticle(opts.card) }));
    return;
  }
  sendMove(g, move);
}

export function trail(g) {
  // even when the options say no, the server explains why in its own words
  if (g.sel.selected) sendMove(g, { kind: "trail", card: g.sel.selected });
}

export function startBuild(g) {
  if (!g.sel.selected) return;
  g.sel.mode = "build";
  g.sel.error = null;
  g.render();
  // the first idea, else the first table item to mark, else the way back
  focusLater(g, ".build-panel .idea", ".table-area [data-id]", ".build-panel button");
}

export function leaveBuild(g) {
  g.sel.mode = "choose";
  g.sel.picked = new Set();
  g.sel.idea = null;
  g.render();
}

/** One of the server's build ideas: its table items marked. */
export function chooseIdea(g, index) {
  const idea = optionsFor(g.view, g.sel.selected)?.builds[index];
  if (!idea) return;
  g.sel.picked = new Set(idea.move.take);
  g.sel.idea = index;
  g.render();
  focusLater(g, `.build-confirm[data-value="${idea.value}"]`);
}

export function confirmBuild(g, value) {
  const code = g.sel.selected;
  if (!code || g.sel.picked.size === 0) return;
  sendMove(g, { kind: "build", card: code, take: [...g.sel.picked], value });
}

/** "¿Por qué no?": the build as the player composed it, its value the plain sum of the
 * marks, so that the server says in its own words what is wrong with it. */
export function askWhyNot(g) {
  let sum = cardValue(g.sel.selected);
  for (const id of g.sel.picked) {
    const pile = g.view.table.piles.find((p) => p.id === id);
    sum += pile ? pile.value : cardValue(id);
  }
  confirmBuild(g, sum);
}
