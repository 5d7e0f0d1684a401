// Scoring a finished hand (RULES.md 6; server/engine/scoring.py).

import { parseCard, TEN_OF_DIAMONDS, TWO_OF_SPADES } from "./cards.js";
import { TEAMS } from "./seats.js";

/** @typedef {import("./position.js").Position} Position */

export const CATEGORIES = ["cards", "spades", "ten_of_diamonds", "two_of_spades", "aces", "limpias"];
export const CATEGORY_NAMES_ES = ["Cartas", "Picas", "Diez de diamantes", "Dos de picas", "Ases", "Limpias"];
export const ACE_ORDER = ["As", "Ac", "Ah", "Ad"].map(parseCard); // ♠ ♣ ♥ ♦
export const TARGET = 21;
export const LATE_SCORE = 18; // from here on a player scores only categories 1-3
export const HALF_DECK = 26;

/** @typedef {{points: number[][], scores: number[], winner: number | null}} HandResultJSON */

/**
 * The points of each player by category (after the 18-points rule, in full), the match
 * scores after the hand (counted in order, stopping at 21) and the winner, if any;
 * `counted`: the part of `points` that entered the match score.
 */
export class HandResult {
  /**
   * @param {readonly [number[], number[]]} points
   * @param {readonly [number, number]} scores
   * @param {number | null} winner
   * @param {readonly [number[], number[]]} counted
   */
  constructor(points, scores, winner, counted) {
    this.points = points;
    this.scores = scores;
    this.winner = winner;
    this.counted = counted;
    Object.freeze(this);
  }

  /** @returns {HandResultJSON} */
  toJSON() {
    return {
      points: [[...this.points[0]], [...this.points[1]]],
      scores: [...this.scores],
      winner: this.winner,
    };
  }
}

/**
 * Whether `category` (its index in CATEGORIES) can score for a player who began the hand with
 * `start` points: from 18 on, only categories 1-3 (RULES.md 6).
 * @param {number} start @param {number} category
 */
export function categoryCounts(start, category) {
  return start < LATE_SCORE || category < 3;
}

/** Scores a hand whose cards have all been captured (`position.captured`). @param {Position} position */
export function scoreHand(position) {
  const captured = position.captured;
  const start = position.scores;
  const points = [[0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0]];
  /** @type {[number, number, number][]} awards in counting order: (player, category, points) */
  const awards = [];
  /** @param {number} player @param {number} category @param {number} amount */
  const award = (player, category, amount) => {
    if (amount <= 0) return;
    if (!categoryCounts(start[player], category)) return;
    points[player][category] += amount;
    awards.push([player, category, amount]);
  };
  for (const p of TEAMS) if (captured[p].length > HALF_DECK) award(p, 0, 3);
  for (const p of TEAMS) if (captured[p].filter((c) => c.suit === "s").length >= 7) award(p, 1, 1);
  for (const p of TEAMS) if (captured[p].includes(TEN_OF_DIAMONDS)) award(p, 2, 2);
  for (const p of TEAMS) if (captured[p].includes(TWO_OF_SPADES)) award(p, 3, 1);
  for (const ace of ACE_ORDER) for (const p of TEAMS) if (captured[p].includes(ace)) award(p, 4, 1);
  const difference = position.limpias[0] - position.limpias[1];
  if (difference > 0) award(0, 5, difference);
  else if (difference < 0) award(1, 5, -difference);

  const scores = [start[0], start[1]];
  const counted = [[0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0]];
  /** @type {number | null} */
  let winner = null;
  for (const [player, category, amount] of awards) {
    scores[player] += amount;
    counted[player][category] += amount;
    if (scores[player] >= TARGET) {
      winner = player;
      break;
    }
  }
  return new HandResult([points[0], points[1]], [scores[0], scores[1]], winner, [counted[0], counted[1]]);
}
