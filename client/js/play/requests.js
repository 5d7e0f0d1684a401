// The requests of the rules oracle (NOTATION.md, "The rules oracle"), answered by this
// engine exactly as `python -m server.engine` answers them (server/engine/__main__.py):
// `moves`, `play`, `choose` (levels facil and normal). The worker and scripts/oracle-js
// both answer through here.

import { chooseForPosition, isLevel } from "../ai/index.js";
import { EngineError } from "../engine/errors.js";
import { Move, legalMoves, playStep } from "../engine/moves.js";
import { Position } from "../engine/position.js";
import { get, isDict, isInt, pyRepr } from "../engine/pyrepr.js";

/** @typedef {Record<string, unknown>} Answer */

/** The answer to one request (already read from JSON). @param {unknown} request @returns {Answer} */
export function answer(request) {
  if (!isDict(request)) return { error: `a request must be a JSON object, not ${pyRepr(request)}` };
  const op = get(request, "op");
  try {
    if (op === "moves") {
      const position = Position.fromJSON(get(request, "position"));
      return { moves: legalMoves(position).map((m) => m.toJSON()) };
    }
    if (op === "play") {
      const position = Position.fromJSON(get(request, "position"));
      const move = Move.fromJSON(get(request, "move"));
      const step = playStep(position, move);
      /** @type {Answer} */
      const reply = { position: step.position.toJSON() };
      if (step.result !== null) reply.result = step.result.toJSON();
      return reply;
    }
    if (op === "choose") {
      const level = get(request, "level");
      if (!isLevel(level)) return { error: `unknown level ${pyRepr(level)}` };
      const seed = get(request, "seed", 0);
      if (!(isInt(seed) || typeof seed === "bigint" || typeof seed === "string")) {
        return { error: `bad seed ${pyRepr(seed)}` };
      }
      const position = Position.fromJSON(get(request, "position"));
      if (!position.hands[position.turn].length) return { error: "the seat to move has no cards" };
      return { move: chooseForPosition(level, position, seed).toJSON() };
    }
    return { error: `unknown op ${pyRepr(op)}` };
  } catch (exc) {
    if (exc instanceof EngineError) return { error: exc.message };
    if (exc instanceof RangeError && /call stack/i.test(exc.message)) return { error: "request too deeply nested" };
    // a fault of ours must not stop the oracle: say so, go on
    const error = exc instanceof Error ? exc : new Error(String(exc));
    return { error: `internal error: ${error.name}: ${error.message}` };
  }
}
