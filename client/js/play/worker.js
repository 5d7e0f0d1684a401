// The Web Worker of the offline game: the rules and the computer players off the page's
// thread, so the page never freezes while Normal thinks. Start it as a module worker:
//     new Worker(new URL("./js/play/worker.js", import.meta.url), {type: "module"})
// and post `{id, op, ...}`; the answer comes back as `{id, ...answer}`.
// - `moves`, `play`, `choose`: the requests of the rules oracle (NOTATION.md), answered as
//   the server's engine answers them (requests.js);
// - `game`, `game_play`, `game_computer`: a match held on the device as its seed and its
//   moves, with the seat's view and the move's events in the server's shapes (games.js).

import { answerGame } from "./games.js";
import { answer } from "./requests.js";

/** @typedef {{onmessage: ((event: {data: unknown}) => void) | null, postMessage: (message: unknown) => void}} Scope */

const scope = /** @type {Scope} */ (/** @type {unknown} */ (globalThis));
const GAME_OPS = new Set(["game", "game_play", "game_computer"]);

/** @param {unknown} data */
export function handle(data) {
  const request = typeof data === "object" && data !== null ? /** @type {Record<string, unknown>} */ (data) : {};
  const { id = null, ...rest } = request;
  /** @type {Record<string, unknown>} */
  let reply;
  try {
    reply = GAME_OPS.has(/** @type {string} */ (rest.op)) ? answerGame(rest) : answer(rest);
  } catch (exc) {
    const error = exc instanceof Error ? exc : new Error(String(exc));
    reply = { error: `internal error: ${error.name}: ${error.message}`, code: "internal" };
  }
  return { id, ...reply };
}

/** @param {{data: unknown}} event */
scope.onmessage = (event) => scope.postMessage(handle(event.data));
