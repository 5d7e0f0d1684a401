// A match against the computer held in the browser: a seed and its moves (a match is its
// seed plus its moves, as on the server). What the offline table asks the worker: the seat's
// view and the last move's events in the server's shapes (docs/protocol.md, View V and Event
// E), the play of a move of the player's, and the computer's move. Nothing here is kept
// between requests but a cache of the last match replayed.

import { chooseForPosition, isLevel } from "../ai/index.js";
import { EngineError, IllegalMove, NotationError } from "../engine/errors.js";
import { Match } from "../engine/match.js";
import { Move } from "../engine/moves.js";
import { get, isDict, pyRepr } from "../engine/pyrepr.js";
import { seatView, stepEvents } from "../engine/facts.js";

/** @typedef {import("../engine/moves.js").MoveJSON} MoveJSON */
/** @typedef {Record<string, unknown>} Answer */

/** @typedef {{seed: string, seats: number, computer: number[], texts: string[], match: Match, events: Record<string, unknown>[], lastMove: Record<string, unknown> | null}} Replayed */

/** @type {Replayed | null} */
let last = null;

/**
 * The match of `seed` (of `seats` seats) after `moves`, with the events of the last move
 * (replayed from the last match asked about when these moves continue it). `computer`: the
 * seats the computer plays (their moves' events say `by: "computer"`).
 * @param {string} seed @param {unknown[]} moves @param {number[]} [computer] @param {number} [seats]
 * @returns {Replayed}
 */
function replay(seed, moves, computer = [], seats = 2) {
  const texts = moves.map((m) => Move.fromJSON(m).toText());
  let state =
    last && last.seed === seed && last.seats === seats && String(last.computer) === String(computer) &&
    last.texts.length <= texts.length && last.texts.every((t, i) => t === texts[i])
      ? last
      : { seed, seats, computer, texts: [], match: Match.new(seed, seats), events: [], lastMove: null };
  for (const text of texts.slice(state.texts.length)) {
    const before = state.match;
    const seat = before.position.turn;
    const [after, step] = before.play(Move.parse(text));
    const events = stepEvents(step, seat, before, after, { computer: computer.includes(seat) });
    state = { seed, seats, computer, texts: [...state.texts, text], match: after, events, lastMove: events[0] };
  }
  last = state;
  return state;
}

/** @param {unknown} request @returns {{seed: string, moves: unknown[]}} */
function readGame(request) {
  if (!isDict(request)) throw new NotationError(`a request must be a JSON object, not ${pyRepr(request)}`);
  const seed = get(request, "seed");
  const moves = get(request, "moves", []);
  if (typeof seed !== "string" || !seed) throw new NotationError(`bad seed ${pyRepr(seed)}`);
  if (!Array.isArray(moves)) throw new NotationError(`moves must be a list, not ${pyRepr(moves)}`);
  return { seed, moves };
}

/** How many seats a request's match has (`seats`: 2 when absent). @param {unknown} seats @returns {number} */
function readSeats(seats) {
  if (seats === undefined || seats === null) return 2;
  if (seats !== 2 && seats !== 4) throw new NotationError(`seats must be 2 or 4, not ${pyRepr(seats)}`);
  return seats;
}

/** @param {unknown} seat @param {number} [seats] @returns {number} */
function readSeat(seat, seats = 2) {
  if (typeof seat !== "number" || !Number.isInteger(seat) || seat < 0 || seat >= seats) {
    throw new NotationError(`seat must be one of 0..${seats - 1}, not ${pyRepr(seat)}`);
  }
  return seat;
}

/** @param {Replayed} state @param {number} seat */
function shown(state, seat) {
  return { view: seatView(state.match, seat, state.lastMove), events: state.events };
}

/** The seats the computer plays (`computer` in a request: one seat, a list, or none).
 * @param {unknown} seat @param {number} seats @returns {number[]} */
function readComputer(seat, seats) {
  if (seat === undefined || seat === null) return [];
  if (Array.isArray(seat)) return seat.map((s) => readSeat(s, seats));
  return [readSeat(seat, seats)];
}

/**
 * `{op: "game", seed, moves, seat}`: the view of `seat` and the last move's events;
 * in every op, `seats` (optional, 2 or 4; else 2) is how many seats the match has;
 * `{op: "game_play", seed, moves, move, seat}`: plays `move` (refused with the engine's code
 * and Spanish message), then the same, with `moves` the moves after it;
 * in both, `computer` (optional) is the seat (or the list of seats) the computer plays: its moves' events say
 * `by: "computer"`; and in `game_play`, `viewer` (optional, else `seat`) whose view comes back;
 * `{op: "game_computer", seed, moves, level}`: the computer's move for the seat to move, from
 * its view, drawn from `${level}:${seed}:${moves.length}` (the same after a reload).
 * @param {Record<string, unknown>} request @returns {Answer}
 */
export function answerGame(request) {
  try {
    const { seed, moves } = readGame(request);
    const op = request.op;
    const seats = readSeats(request.seats);
    const computer = readComputer(request.computer, seats);
    if (op === "game") return shown(replay(seed, moves, computer, seats), readSeat(request.seat, seats));
    if (op === "game_play") {
      const seat = readSeat(request.seat, seats);
      const viewer = request.viewer === undefined ? seat : readSeat(request.viewer, seats);
      const before = replay(seed, moves, computer, seats);
      if (before.match.finished) throw new IllegalMove("match_over", "La partida ya terminó.");
      if (before.match.position.turn !== seat) throw new IllegalMove("not_your_turn", "Todavía no es tu turno.");
      const move = Move.fromJSON(request.move).toJSON();
      const after = replay(seed, [...moves, move], computer, seats);
      return { moves: [...moves, move], ...shown(after, viewer) };
    }
    if (op === "game_computer") {
      const level = request.level;
      if (!isLevel(level)) return { error: `unknown level ${pyRepr(level)}`, code: "bad_level" };
      const { match } = replay(seed, moves, computer, seats);
      if (match.finished) throw new IllegalMove("match_over", "La partida ya terminó.");
      return { move: chooseForPosition(level, match.position, `${seed}:${moves.length}`).toJSON() };
    }
    return { error: `unknown op ${pyRepr(op)}`, code: "bad_request" };
  } catch (exc) {
    if (exc instanceof IllegalMove) return { error: exc.message, code: exc.code, args: exc.args };
    if (exc instanceof EngineError) return { error: exc.message, code: "bad_request" };
    throw exc;
  }
}
