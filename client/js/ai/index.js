// The computer players of the browser: each one has `choose(view, legalMoves, rng) -> Move`
// and is handed the seat's view, never the position, so it cannot see the opponent's hand or
// the order of the deck (server/ai/__init__.py).

import { EngineError } from "../engine/errors.js";
import { legalMoves } from "../engine/moves.js";
import { viewFor } from "../engine/view.js";
import { facil } from "./facil.js";
import { normal } from "./normal.js";
import { Rng } from "./rng.js";

/** @typedef {import("../engine/moves.js").Move} Move */
/** @typedef {import("../engine/view.js").View} View */
/** @typedef {import("../engine/position.js").Position} Position */
/** @typedef {{name: string, choose: (view: View, legalMoves: readonly Move[], rng: Rng) => Move}} Player */

/** @type {Readonly<Record<string, Player>>} */
export const LEVELS = Object.freeze({ facil, normal });

/**
 * The seat to move has no legal move (a position the rules never reach: a pile owner without
 * the card that takes it), so no player can choose one.
 */
export class NoLegalMove extends EngineError {}

/** @param {unknown} level @returns {level is string} */
export function isLevel(level) {
  return typeof level === "string" && Object.prototype.hasOwnProperty.call(LEVELS, level);
}

/**
 * The move the `level` player makes for the seat to move, from that seat's view, with the
 * random numbers of `${level}:${seed}`. Throws NoLegalMove if that seat has no legal move.
 * @param {string} level @param {Position} position @param {number | bigint | string} seed
 */
export function chooseForPosition(level, position, seed) {
  const view = viewFor(position, position.turn);
  const moves = legalMoves(view.asPosition());
  if (!moves.length) throw new NoLegalMove("the seat to move has no legal move");
  return LEVELS[level].choose(view, moves, new Rng(`${level}:${seed}`));
}

export { Rng, facil, normal };
