// The browser's engine under Node for the tests of tests/js: one JSON request per line in,
// one JSON answer per line out, like the oracle, with what the oracle does not say (a step's
// details, error codes, hints and views, whole matches, Normal's scores) so that the tests
// can hold each of them against the server's.

import { createInterface } from "node:readline";

import { Rng, chooseForPosition } from "../../client/js/ai/index.js";
import { Decision, TUNING } from "../../client/js/ai/normal.js";
import { parseCard } from "../../client/js/engine/cards.js";
import { EngineError, IllegalMove } from "../../client/js/engine/errors.js";
import { cardOptions, cardOptionsJSON } from "../../client/js/engine/hints.js";
import { Match, shuffledDeck, startHand } from "../../client/js/engine/match.js";
import { Move, compareMoves, legalMoves, movesForCard, playStep } from "../../client/js/engine/moves.js";
import { Position } from "../../client/js/engine/position.js";
import { teamOf } from "../../client/js/engine/seats.js";
import { options, seatView, stepEvents } from "../../client/js/engine/facts.js";
import { publicView, viewFor } from "../../client/js/engine/view.js";

// the client's words (lib/i18n.js, ui/reasons.js) under Node: the little of a page they touch
// (imported by address: the screens' modules are not part of the typed engine, tsconfig.json)
const page = /** @type {any} */ (globalThis);
page.document ??= { documentElement: {}, querySelector: () => null };
const client = (/** @type {string} */ path) => new URL(`../../client/js/${path}`, import.meta.url).href;
const { use } = await import(client("lib/i18n.js"));
const { reasonText } = await import(client("ui/reasons.js"));
const { shownName, whoSits } = await import(client("ui/chairs.js"));

/** @typedef {import("../../client/js/engine/moves.js").Step} Step */

// the worker, loaded as a page would load it: it answers what is posted to it
/** @type {unknown[]} */
const posted = [];
const scope = /** @type {any} */ (globalThis);
scope.postMessage = (/** @type {unknown} */ message) => posted.push(message);
await import("../../client/js/play/worker.js");

/** @param {Step} step */
function stepJSON(step) {
  return {
    position: step.position.toJSON(),
    move: step.move.toJSON(),
    taken: step.taken.map((c) => c.code),
    limpia: step.limpia,
    dealt: step.dealt,
    swept: step.swept.map((c) => c.code),
    sweeper: step.sweeper,
    result: step.result && { ...step.result.toJSON(), counted: step.result.counted },
  };
}

/** @param {unknown} exc */
function failure(exc) {
  if (exc instanceof IllegalMove) return { error: exc.message, code: exc.code, args: exc.args, type: "IllegalMove" };
  if (exc instanceof EngineError) return { error: exc.message, type: exc.constructor.name };
  throw exc;
}

/**
 * Plays whole matches between two levels: match 2k puts `first` in seat 0, match 2k + 1 in
 * seat 1, both on the deck of `${prefix}-${k}`. Returns, per match, the seat of `first` and
 * the winner. With `seats` 4, `first` plays for team 0 (seats 0 and 2) then team 1; the winner
 * is a team.
 * @param {string} first @param {string} second @param {number} pairs @param {string} prefix
 * @param {number} [seats]
 */
function selfplay(first, second, pairs, prefix, seats = 2) {
  const results = [];
  for (let index = 0; index < 2 * pairs; index++) {
    const pair = Math.floor(index / 2);
    const firstSeat = index % 2; // with four: the team `first` plays for
    let match = Match.new(`${prefix}-${pair}`, seats);
    const levels = firstSeat === 0 ? [first, second] : [second, first];
    let count = 0;
    while (!match.finished) {
      const position = match.position;
      const level = levels[teamOf(position.turn)];
      const move = chooseForPosition(level, position, `${pair}:${position.turn}:${count++}`);
      [match] = match.play(move);
    }
    results.push({ first_seat: firstSeat, winner: match.winner, scores: match.scores });
  }
  return results;
}

/** @type {Record<string, (request: any) => unknown>} */
const OPS = {
  step({ position, move }) {
    try {
      return stepJSON(playStep(Position.fromJSON(position), Move.fromJSON(move)));
    } catch (exc) {
      return failure(exc);
    }
  },
  card({ card }) {
    try {
      return { card: parseCard(card).code };
    } catch (exc) {
      return failure(exc);
    }
  },
  move({ move, text }) {
    try {
      const found = text !== undefined ? Move.parse(text) : Move.fromJSON(move);
      return { move: found.toJSON(), text: found.toText(), again: Move.parse(found.toText()).equals(found) };
    } catch (exc) {
      return failure(exc);
    }
  },
  position({ position, text }) {
    try {
      const found = text !== undefined ? Position.parse(text) : Position.fromJSON(position);
      const again = Position.parse(found.toText());
      return { position: found.toJSON(), text: found.toText(), again: again.equals(found) };
    } catch (exc) {
      return failure(exc);
    }
  },
  sorted({ moves }) {
    /** @type {Move[]} */
    const found = moves.map((/** @type {unknown} */ m) => Move.fromJSON(m));
    return { moves: found.sort(compareMoves).map((m) => m.toJSON()) };
  },
  moves_for_card({ position, card }) {
    return { moves: movesForCard(Position.fromJSON(position), parseCard(card)).map((m) => m.toJSON()) };
  },
  card_options({ position, card }) {
    return cardOptionsJSON(cardOptions(Position.fromJSON(position), parseCard(card)));
  },
  options({ position }) {
    return { options: options(Position.fromJSON(position)) };
  },
  view({ position, seat }) {
    const found = Position.fromJSON(position);
    return { view: viewFor(found, seat).toJSON(), public: publicView(found) };
  },
  start_hand({ deck, dealer, seats = 2, scores = [0, 0] }) {
    return { position: startHand(deck.map(parseCard), dealer, scores, seats).toJSON() };
  },
  deck({ seed, hand }) {
    return { deck: shuffledDeck(seed, hand).map((c) => c.code) };
  },
  // a match replayed from its seed and moves: every step's events, and the seat views after
  match({ seed, moves, seats = 2 }) {
    let match = Match.new(seed, seats);
    const steps = [];
    for (const raw of moves) {
      const before = match;
      const seat = before.position.turn;
      const [after, step] = before.play(Move.fromJSON(raw));
      match = after;
      steps.push({ events: stepEvents(step, seat, before, after), ...stepJSON(step) });
    }
    return {
      steps,
      results: match.results.map((r) => r.toJSON()),
      scores: match.scores,
      winner: match.winner,
      hand_number: match.handNumber,
      move_count: match.moveCount,
      position: match.position.toJSON(),
      views: match.position.hands.map((_, seat) => seatView(match, seat)),
    };
  },
  // Normal's expected value of each candidate move, with the opponent hands it is given
  normal_scores({ position, hands, fresh }) {
    const found = Position.fromJSON(position);
    const view = viewFor(found, found.turn);
    const moves = legalMoves(view.asPosition());
    const decision = new Decision(view, TUNING, new Rng("unused"));
    return {
      unseen: decision.unseen.map((c) => c.code),
      scores: decision.scored(moves, [hands, fresh]).map(([move, score]) => [move.toJSON(), score]),
    };
  },
  // a message posted to the worker, and what it posted back
  worker({ data }) {
    posted.length = 0;
    scope.onmessage({ data });
    return { posted: [...posted] };
  },
  // a refusal as la mesa words it (ui/reasons.js), with `catalog` (a whole catalog file)
  reason_text({ lang, catalog, code, args }) {
    use(lang, catalog);
    return { text: reasonText(code, args) };
  },
  // seats as the screens name them (ui/chairs.js), with `catalog`
  shown_names({ lang, catalog, seats }) {
    use(lang, catalog);
    return {
      shown: seats.map((/** @type {any} */ s) => shownName(s.name, s.seat, s.player)),
      sits: seats.map((/** @type {any} */ s) => whoSits({ ...s.player, name: s.name, seat: s.seat })),
    };
  },
  selfplay({ first, second, pairs, prefix, seats = 2 }) {
    return { matches: selfplay(first, second, pairs, prefix, seats) };
  },
};

const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
lines.on("line", (line) => {
  if (!line.trim()) return;
  const request = JSON.parse(line);
  const op = OPS[request.op];
  let reply;
  try {
    reply = op ? op(request) : { error: `unknown op ${request.op}` };
  } catch (exc) {
    const error = exc instanceof Error ? exc : new Error(String(exc));
    reply = { error: `${error.name}: ${error.message}`, type: "crash", stack: error.stack };
  }
  process.stdout.write(JSON.stringify(reply) + "\n");
});
