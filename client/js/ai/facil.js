// Fácil (RULES.md 7): captures whenever it can, taking the most it can; otherwise trails its
// lowest card it may legally trail; never builds or raises (server/ai/facil.py).

import { takeRank } from "../engine/hints.js";
import { Table } from "../engine/moves.js";
import { compareStr } from "../engine/pyrepr.js";

/** @typedef {import("../engine/moves.js").Move} Move */
/** @typedef {import("../engine/view.js").View} View */
/** @typedef {import("./rng.js").Rng} Rng */

/** Python's order of tuples of numbers. @param {readonly number[]} a @param {readonly number[]} b */
function compareNumbers(a, b) {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i] < b[i] ? -1 : 1;
  return a.length - b.length;
}

/** @param {readonly string[]} a @param {readonly string[]} b */
function compareTakes(a, b) {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const c = compareStr(a[i], b[i]);
    if (c) return c;
  }
  return a.length - b.length;
}

export const facil = {
  name: "facil",

  /** @param {View} view @param {readonly Move[]} legalMoves @param {Rng} rng @returns {Move} */
  choose(view, legalMoves, rng) {
    const captures = legalMoves.filter((m) => m.kind === "capture");
    if (captures.length) {
      const table = new Table(view.cards, view.piles);
      // most cards (tie-breaks of RULES.md 3), then the lowest card, then a fixed order
      /** @param {Move} move */
      const rank = (move) => takeRank(table, move.card, table.maskOf(move.take) ?? 0);
      let best = captures[0];
      let bestRank = rank(best);
      for (const move of captures.slice(1)) {
        const r = rank(move);
        const c =
          compareNumbers(r, bestRank) || best.card.rank - move.card.rank || compareTakes(move.take, best.take);
        if (c > 0) {
          best = move;
          bestRank = r;
        }
      }
      return best;
    }
    const trails = legalMoves.filter((m) => m.kind === "trail");
    if (trails.length) {
      let lowest = trails[0];
      for (const move of trails.slice(1)) {
        const c = move.card.value - lowest.card.value || compareStr(move.card.suit, lowest.card.suit);
        if (c < 0) lowest = move;
      }
      return lowest;
    }
    // Only when Fácil took over a seat that owns a pile and cannot capture it: impossible by
    // the rules (the owner holds the taking card), but never crash.
    return rng.choice(legalMoves);
  },
};
