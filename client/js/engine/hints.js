// What each hand card can do, compactly: the *Llevarte* and *Llevarte solo* takes, the builds
// it can make (the build ideas of RULES.md 8) and whether it may be trailed
// (server/engine/hints.py, the same searches in the same order).

import { DECK, TEN_OF_DIAMONDS, TWO_OF_SPADES } from "./cards.js";
import { Move, Table, captureGroups, cardGroups, handWithout, mayTrail } from "./moves.js";

/** @typedef {import("./cards.js").Card} Card */
/** @typedef {import("./position.js").Position} Position */
/** @typedef {import("./moves.js").MoveJSON} MoveJSON */

export const MAX_IDEAS = 12;
export const SEARCH_BUDGET = 2000; // search steps per bestPacking call (see there)
export const MAX_DOUBLE_TRIES = 24; // played-card groups searched for the biggest double pile of a value

/** @param {Table} table @param {number} mask */
function cardsIn(table, mask) {
  const cards = table.cards.filter((_, i) => (mask >> i) & 1);
  table.piles.forEach((pile, j) => {
    if (mask & table.pileBit(j)) cards.push(...pile.cards);
  });
  return cards;
}

/**
 * How good a take is for *Llevarte*: most cards, then spades, the 10♦, the 2♠, aces.
 * @param {Table} table @param {Card} card @param {number} mask @returns {number[]}
 */
export function takeRank(table, card, mask) {
  const cards = [card, ...cardsIn(table, mask)];
  return [
    cards.length,
    cards.filter((c) => c.suit === "s").length,
    cards.includes(TEN_OF_DIAMONDS) ? 1 : 0,
    cards.includes(TWO_OF_SPADES) ? 1 : 0,
    cards.filter((c) => c.rank === 1).length,
  ];
}

/** `takeRank` as one additive number: 6-bit fields, most significant first. @param {Card} card */
export function cardWeight(card) {
  return (
    2 ** 24 +
    (card.suit === "s" ? 2 ** 18 : 0) +
    (card === TEN_OF_DIAMONDS ? 2 ** 12 : 0) +
    (card === TWO_OF_SPADES ? 2 ** 6 : 0) +
    (card.rank === 1 ? 1 : 0)
  );
}

const WEIGHTS = DECK.map(cardWeight);

/** `cardWeight` of each table item (a pile weighs all its cards). @param {Table} table */
export function itemWeights(table) {
  const weights = table.cards.map((c) => WEIGHTS[c.index]);
  for (const pile of table.piles) weights.push(pile.cards.reduce((sum, c) => sum + WEIGHTS[c.index], 0));
  return weights;
}

/** The sum of the weights of the items in `mask`, in item order. @param {readonly number[]} weights @param {number} mask */
export function weightOf(weights, mask) {
  let total = 0;
  for (let i = 0; i < weights.length; i++) if ((mask >> i) & 1) total += weights[i];
  return total;
}

/**
 * The heaviest union of disjoint `groups` inside `avail`: [weight, mask].
 *
 * Branch and bound over the lowest coverable item (take it in some group, or leave it),
 * heaviest groups first, pruned by the weight still coverable. Deterministic: the first best
 * found wins. After `budget` steps the search stops with the best found so far.
 * @param {readonly number[]} groups @param {number} avail @param {readonly number[]} weights
 * @param {number} [budget] @returns {[number, number]}
 */
export function bestPacking(groups, avail, weights, budget = SEARCH_BUDGET) {
  /** @type {[number, number][]} */
  const usable = [];
  for (const g of new Set(groups)) if (g && (g & avail) === g) usable.push([weightOf(weights, g), g]);
  usable.sort((a, b) => b[0] - a[0] || b[1] - a[1]);
  let best = 0;
  let bestMask = 0;
  let steps = 0;
  /** @param {number} weight @param {number} mask @param {[number, number][]} fitting */
  const search = (weight, mask, fitting) => {
    if (weight > best) {
      best = weight;
      bestMask = mask;
    }
    steps += 1;
    if (!fitting.length || steps > budget) return;
    let covered = 0;
    for (const [, g] of fitting) covered |= g;
    if (weight + weightOf(weights, covered) <= best) return;
    const low = covered & -covered;
    for (const [w, g] of fitting) {
      if (g & low) search(weight + w, mask | g, fitting.filter(([, h]) => !(h & g)));
    }
    search(weight, mask, fitting.filter(([, h]) => !(h & low)));
  };
  search(0, 0, usable);
  return [best, bestMask];
}

/**
 * The *Llevarte* take-set: the heaviest legal capture (it always holds every pair and pile of
 * the card's value, since leaving one out would make it lighter), or null.
 * @param {Table} table @param {Card} card @param {readonly number[]} [weights]
 */
export function bestTake(table, card, weights) {
  const groups = captureGroups(table, card);
  if (groups.length <= 1) return groups.length ? groups[0] : null;
  const [, mask] = bestPacking(groups, table.everything, weights ?? itemWeights(table));
  return mask || null;
}

/**
 * For each value and kind (simple, double), the build with `card` that uses the most cards:
 * a map from `${value}:${double}` to [value, double, mask], in no set order.
 * @param {Table} table @param {Card} card @param {readonly Card[]} rest @param {number} seat
 * @param {readonly number[]} [weights] @returns {[number, boolean, number][]}
 */
export function bestBuilds(table, card, rest, seat, weights) {
  const held = new Set(rest.map((c) => c.captureValue));
  if (table.piles.some((p) => p.owner === seat && !held.has(p.value))) {
    return []; // some own pile could not be kept: no build at all (RULES.md 4.4)
  }
  const w = weights ?? itemWeights(table);
  const everything = table.everything;
  /** @type {[number, boolean, number][]} */
  const found = [];
  for (const value of [...held].filter((v) => v >= 2).sort((a, b) => a - b)) {
    const candidates = cardGroups(table, card, value, seat);
    if (!candidates.length) continue;
    const others = table.otherGroups(value);
    /** @type {[number, number][]} */
    const groups = candidates.map((g) => [weightOf(w, g), g]);
    groups.sort((a, b) => b[0] - a[0] || b[1] - a[1]);
    const simple = groups.find(([, g]) => g);
    if (simple) found.push([value, false, simple[1]]);
    /** @type {[number, number] | null} the best double pile: [weight, mask] */
    let double = null;
    let tries = 0;
    for (const [weight, group] of groups) {
      // bound: this group plus every other group that fits beside it
      let reach = 0;
      for (const other of others) if (!(other & group)) reach |= other;
      if (!reach) continue;
      const upper = weight + weightOf(w, reach);
      if (upper <= (double ? double[0] : -1) || tries >= MAX_DOUBLE_TRIES) continue;
      tries += 1;
      const [extra, union] = bestPacking(others, everything & ~group, w);
      if (!union) continue;
      const total = weight + extra;
      const mask = group | union;
      if (!double || total > double[0] || (total === double[0] && mask > double[1])) double = [total, mask];
    }
    if (double) found.push([value, true, double[1]]);
  }
  return found;
}

/**
 * @typedef {object} BuildIdea
 * @property {Move} move
 * @property {boolean} double
 * @property {Card[]} takers the hand cards that will take the pile
 */

/**
 * @typedef {object} CardOptions
 * @property {Card} card
 * @property {Move | null} llevarte
 * @property {Move | null} llevarteSolo
 * @property {BuildIdea[]} builds
 * @property {boolean} trail
 */

/**
 * @typedef {object} CardOptionsJSON
 * @property {string} card
 * @property {MoveJSON | null} llevarte
 * @property {MoveJSON | null} llevarte_solo
 * @property {{move: MoveJSON, value: number | null, double: boolean, takers: string[]}[]} builds
 * @property {boolean} trail
 */

/** @param {CardOptions} options @returns {CardOptionsJSON} */
export function cardOptionsJSON(options) {
  return {
    card: options.card.code,
    llevarte: options.llevarte ? options.llevarte.toJSON() : null,
    llevarte_solo: options.llevarteSolo ? options.llevarteSolo.toJSON() : null,
    builds: options.builds.map((idea) => ({
      move: idea.move.toJSON(),
      value: idea.move.value,
      double: idea.double,
      takers: idea.takers.map((c) => c.code),
    })),
    trail: options.trail,
  };
}

/**
 * What `card` (in the hand of the seat to move) can do in `position`.
 * @param {Position} position @param {Card} card @param {Table} [table] @param {readonly number[]} [weights]
 * @returns {CardOptions}
 */
export function cardOptions(position, card, table, weights) {
  const t = table ?? new Table(position.cards, position.piles);
  const w = weights ?? itemWeights(t);
  const seat = position.turn;
  const most = bestTake(t, card, w);
  const soloMask = t.rankMask(card.rank) | t.pilesOfValue(card.captureValue);
  const rest = handWithout(position.hands[seat], card);
  const ideas = bestBuilds(t, card, rest, seat, w)
    .sort((a, b) => a[0] - b[0] || Number(a[1]) - Number(b[1]))
    .slice(0, MAX_IDEAS)
    .map(([value, double, mask]) => ({
      move: new Move("build", card, t.names(mask), value),
      double,
      takers: rest.filter((c) => c.captureValue === value),
    }));
  return {
    card,
    llevarte: most !== null ? new Move("capture", card, t.names(most)) : null,
    llevarteSolo: soloMask ? new Move("capture", card, t.names(soloMask)) : null,
    builds: ideas,
    trail: mayTrail(t, card, seat),
  };
}

/** `cardOptions` for every card in the hand of the seat to move. @param {Position} position */
export function handOptions(position) {
  const table = new Table(position.cards, position.piles);
  const weights = itemWeights(table);
  return position.hands[position.turn].map((c) => cardOptions(position, c, table, weights));
}
