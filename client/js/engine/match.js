// A match: a series of hands from one seed. A match is its seed plus its moves
// (server/engine/match.py).

import { DECK } from "./cards.js";
import { IllegalMove } from "./errors.js";
import { DEAL_SIZE, dealRound, playStep } from "./moves.js";
import { Position } from "./position.js";
import { SEAT_COUNTS, firstDealer, nextSeat } from "./seats.js";
import { sha256Words, utf8 } from "./sha256.js";

/** @typedef {import("./cards.js").Card} Card */
/** @typedef {import("./moves.js").Move} Move */
/** @typedef {import("./moves.js").Step} Step */
/** @typedef {import("./scoring.js").HandResult} HandResult */

export const FIRST_DEALER = firstDealer(2); // the room creator's opponent deals first: seat 0 leads

/**
 * The deck of hand `handNumber` of the match `seed`: a Fisher-Yates shuffle driven by
 * SHA-256, the same as the server's, card for card.
 * @param {string} seed @param {number} handNumber
 */
export function shuffledDeck(seed, handNumber) {
  const cards = [...DECK];
  for (let i = cards.length - 1; i > 0; i--) {
    const [high, low] = sha256Words(utf8(`${seed}:${handNumber}:${i}`));
    // the first 8 bytes as a big-endian number, modulo i + 1 (exact: both parts are small)
    const j = ((high % (i + 1)) * (2 ** 32 % (i + 1)) + (low % (i + 1))) % (i + 1);
    [cards[i], cards[j]] = [cards[j], cards[i]];
  }
  return cards;
}

/**
 * Deals a new hand: 4 cards to each player from the seat after the dealer around to the
 * dealer, then 4 to the table; the seat after the dealer plays first (RULES.md 2, 9.1).
 * @param {readonly Card[]} deck @param {number} dealer @param {readonly [number, number]} scores
 * @param {number} [seatCount]
 */
export function startHand(deck, dealer, scores, seatCount = 2) {
  checkCount(seatCount);
  /** @type {Card[][]} */
  const hands = Array.from({ length: seatCount }, () => []);
  const dealt = dealRound(new Position({ hands, dealer, deck, scores, turn: dealer }));
  return dealt.replace({
    cards: dealt.deck.slice(0, DEAL_SIZE),
    deck: dealt.deck.slice(DEAL_SIZE),
    turn: nextSeat(dealer, seatCount),
  });
}

/** `count` if a game may have that many seats (else a RangeError). @param {number} count */
function checkCount(count) {
  if (!SEAT_COUNTS.includes(count)) throw new RangeError(`a game has 2 or 4 seats, not ${count}`);
  return count;
}

/**
 * A match in progress or finished. `position` is the hand being played (after the last hand
 * of a finished match: that hand, finished).
 */
export class Match {
  /**
   * @param {string} seed
   * @param {Position} position
   * @param {number} [handNumber]
   * @param {readonly HandResult[]} [results]
   * @param {number | null} [winner]
   * @param {number} [moveCount]
   */
  constructor(seed, position, handNumber = 0, results = [], winner = null, moveCount = 0) {
    this.seed = seed;
    this.position = position;
    this.handNumber = handNumber;
    this.results = Object.freeze([...results]);
    this.winner = winner;
    this.moveCount = moveCount;
    Object.freeze(this);
  }

  /**
   * A match of two players, or four (two against two); the last seat deals first.
   * @param {string} seed @param {number} [seatCount]
   */
  static new(seed, seatCount = 2) {
    const dealer = firstDealer(checkCount(seatCount));
    return new Match(seed, startHand(shuffledDeck(seed, 0), dealer, [0, 0], seatCount));
  }

  get seatCount() {
    return this.position.seatCount;
  }

  /** @param {string} seed @param {Iterable<Move>} moves @param {number} [seatCount] */
  static replay(seed, moves, seatCount = 2) {
    let match = Match.new(seed, seatCount);
    for (const move of moves) [match] = match.play(move);
    return match;
  }

  get finished() {
    return this.winner !== null;
  }

  /** @returns {readonly [number, number]} */
  get scores() {
    const last = this.results[this.results.length - 1];
    return last ? [last.scores[0], last.scores[1]] : [0, 0];
  }

  /**
   * Plays `move`; when the hand ends and nobody reached 21, deals the next hand.
   * @param {Move} move @returns {[Match, Step]}
   */
  play(move) {
    if (this.finished) throw new IllegalMove("match_over", "La partida ya terminó.");
    const step = playStep(this.position, move);
    const count = this.moveCount + 1;
    if (step.result === null) {
      return [new Match(this.seed, step.position, this.handNumber, this.results, null, count), step];
    }
    const results = [...this.results, step.result];
    if (step.result.winner !== null) {
      return [
        new Match(this.seed, step.position, this.handNumber, results, step.result.winner, count),
        step,
      ];
    }
    const number = this.handNumber + 1;
    const dealer = nextSeat(this.position.dealer, this.seatCount);
    const position = startHand(shuffledDeck(this.seed, number), dealer, step.result.scores, this.seatCount);
    return [new Match(this.seed, position, number, results, null, count), step];
  }
}
