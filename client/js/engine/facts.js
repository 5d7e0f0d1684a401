// The facts a seat is told, as JSON-ready values (the twin of server/rooms/facts.py): the facts
// of a hand (tallies, a finished hand's counts), the events of a move and what each hand card can do; and the
// rules part of a seat's view (docs/protocol.md, "View V"), so that a table drawn offline
// gets the same shapes the server sends.

import { TEN_OF_DIAMONDS, TWO_OF_SPADES } from "./cards.js";
import { cardOptions, cardOptionsJSON, itemWeights } from "./hints.js";
import { Table, buildMasks, handWithout } from "./moves.js";
import { ACE_ORDER, CATEGORY_NAMES_ES, LATE_SCORE, categoryCounts } from "./scoring.js";
import { TEAMS } from "./seats.js";
import { viewFor } from "./view.js";

/** @typedef {import("./cards.js").Card} Card */
/** @typedef {import("./position.js").Position} Position */
/** @typedef {import("./moves.js").Step} Step */
/** @typedef {import("./match.js").Match} Match */

export const CATEGORIES_ES = [...CATEGORY_NAMES_ES];
export const MAX_BUILD_TAKES = 200; // per card: a crowded table could list more; the ideas stay whole

/**
 * @typedef {object} Tally
 * @property {number} cards
 * @property {number} spades
 * @property {boolean} ten_of_diamonds
 * @property {boolean} two_of_spades
 * @property {number} aces
 */

/** What a seat has captured so far, as families count it aloud. @param {Iterable<Card>} captured @returns {Tally} */
export function tally(captured) {
  let cards = 0;
  let spades = 0;
  let aces = 0;
  let ten = false;
  let two = false;
  for (const card of captured) {
    cards += 1;
    if (card.suit === "s") spades += 1;
    if (card.rank === 1) aces += 1;
    else if (card === TEN_OF_DIAMONDS) ten = true;
    else if (card === TWO_OF_SPADES) two = true;
  }
  return { cards, spades, ten_of_diamonds: ten, two_of_spades: two, aces };
}

/** The raw counts of a finished hand for `seat` (the score sheet's first column). @param {Position} position @param {number} seat */
export function handCounts(position, seat) {
  const counts = tally(position.captured[seat]);
  const held = new Set(position.captured[seat]);
  return {
    ...counts,
    aces: ACE_ORDER.filter((ace) => held.has(ace)).map((ace) => ace.code),
    limpias: position.limpias[seat],
    // RULES.md 6: each player's limpias cancel out (the smaller count, on both sides)
    limpias_cancelled: Math.min(position.limpias[0], position.limpias[1]),
  };
}

/**
 * The events of one move, in order (docs/protocol.md, "Event E"); `computer`: the computer
 * played it (the seat's own, or for a friend who was away).
 * @param {Step} step @param {number} seat @param {Match} before @param {Match} after
 * @param {{computer?: boolean}} [options]
 * @returns {Record<string, unknown>[]}
 */
export function stepEvents(step, seat, before, after, { computer = false } = {}) {
  /** @type {Record<string, unknown>[]} */
  const events = [
    {
      kind: "move",
      seat,
      by: computer ? "computer" : "person",
      move: step.move.toJSON(),
      taken: step.taken.map((c) => c.code),
      limpia: step.limpia,
    },
  ];
  if (step.dealt) events.push({ kind: "deal" });
  const result = step.result;
  if (result !== null) {
    const start = before.position.scores;
    events.push({
      kind: "hand_end",
      hand_number: before.handNumber,
      result: {
        points: [[...result.points[0]], [...result.points[1]]],
        counted: [[...result.counted[0]], [...result.counted[1]]],
        categories: CATEGORIES_ES,
        counts: [handCounts(step.position, 0), handCounts(step.position, 1)],
        scores_before: [...start],
        limited: [start[0] >= LATE_SCORE, start[1] >= LATE_SCORE],
        // per seat and category: could it score for that seat (RULES.md 6)
        eligible: TEAMS.map((i) => CATEGORY_NAMES_ES.map((_, k) => categoryCounts(start[i], k))),
        scores: [...result.scores],
        winner: result.winner,
        swept: step.swept.map((c) => c.code),
        sweeper: step.sweeper,
      },
    });
    if (after.finished) {
      events.push({ kind: "match_end", winner: after.winner, scores: [...after.scores] });
    } else {
      events.push({ kind: "new_hand", hand_number: after.handNumber, dealer: after.position.dealer });
    }
  }
  return events;
}

/**
 * Every set of table items `card` can build on, with the values it can make.
 * @param {Position} position @param {Table} table @param {Card} card
 */
export function buildTakes(position, table, card) {
  const rest = handWithout(position.hands[position.turn], card);
  /** @type {Map<string, {take: string[], values: number[]}>} */
  const values = new Map();
  for (const [mask, value] of buildMasks(table, card, rest, position.turn)) {
    const take = table.names(mask);
    const key = JSON.stringify(take);
    const entry = values.get(key);
    if (entry) entry.values.push(value);
    else values.set(key, { take: [...take], values: [value] });
  }
  return [...values.values()].slice(0, MAX_BUILD_TAKES).map(({ take, values: found }) => ({
    take,
    values: [...new Set(found)].sort((a, b) => a - b),
  }));
}

/** What each card in the hand of the seat to move can do (ideas, takes, build sets). @param {Position} position */
export function options(position) {
  const table = new Table(position.cards, position.piles);
  const weights = itemWeights(table);
  return position.hands[position.turn].map((card) => ({
    ...cardOptionsJSON(cardOptions(position, card, table, weights)),
    build_takes: buildTakes(position, table, card),
  }));
}

/**
 * The rules part of a seat's view V (docs/protocol.md): what `server/rooms/views.py` (`seat_view`) builds from
 * the engine, without what only a room knows (names, seq, presence, invite, watchers...).
 * `lastMove` is the last `move` event of the match, or null.
 * @param {Match} match @param {number} seat @param {Record<string, unknown> | null} [lastMove]
 */
export function seatView(match, seat, lastMove = null) {
  const position = match.position;
  const status = match.finished ? "finished" : "playing";
  const myTurn = status === "playing" && position.turn === seat && !position.handOver;
  return {
    ...viewFor(position, seat).toJSON(),
    scores: [...match.scores], // after the last hand (the position's: before it)
    hand_number: match.handNumber,
    status,
    winner: match.winner,
    last_move: lastMove,
    tally: [tally(position.captured[0]), tally(position.captured[1])],
    categories: CATEGORIES_ES,
    options: myTurn ? options(position) : [],
  };
}
