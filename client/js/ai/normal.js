// Normal (RULES.md 7): a one-ply player with an expectation over the opponent's replies, the
// same player as server/ai/normal.py, step for step (only its random draws differ: rng.js).
//
// For every candidate move it looks at the table the move leaves and asks, over a few opponent
// hands drawn from the cards it has not seen: what is the best capture the opponent can make
// there (cards, spades, the 10♦, the 2♠, aces, a limpia), and what can this seat capture
// afterwards with the cards it keeps; and whether the opponent could rather raise one of this
// seat's simple piles to take it later. Near the end of a hand it also counts who will be the
// last to capture and get the table. It only ever sees the seat's View.

import { DECK, MAX_VALUE, TEN_OF_DIAMONDS, TWO_OF_SPADES } from "../engine/cards.js";
import { bestPacking, weightOf } from "../engine/hints.js";
import { HALF_DECK, LATE_SCORE } from "../engine/scoring.js";
import { TEAMS, nextSeat, otherTeam, teamOf, teamSeats } from "../engine/seats.js";

/** @typedef {import("../engine/cards.js").Card} Card */
/** @typedef {import("../engine/moves.js").Move} Move */
/** @typedef {import("../engine/view.js").View} View */
/** @typedef {import("./rng.js").Rng} Rng */

/**
 * A pile of a simulated table.
 * @typedef {{value: number, owner: number, cards: readonly Card[], double: boolean}} SimPile
 */
/** @typedef {{loose: readonly Card[], piles: readonly SimPile[]}} SimTable */
/** A capture found by the simulation: the weight of the items taken, the table after, limpia. */
/** @typedef {{gain: number, table: SimTable, cleared: boolean}} Capture */

export const SPADES_NEEDED = 7;
export const PACKING_BUDGET = 60; // search steps per capture on a crowded table

export const TUNING = Object.freeze({
  samples: 24, // opponent hands drawn per decision
  cardWeight: 0.2, // one card toward "más cartas"
  spadeWeight: 0.1, // one spade toward "más picas"
  follow: 0.8, // how much this seat's next capture counts
  endWeight: 1.0, // the end-of-hand sweep, when it is within sight
  stealWeight: 0.8, // a pile the opponent raises, to take it a turn later
  maxCapturesPerCard: 2,
  maxCandidates: 24,
  minBuilds: 6, // builds looked at even when captures and trails fill the list
  followFour: 0.5, // four players: this seat's own next capture comes three plays later, not two
});

/** @typedef {typeof TUNING} Tuning */

/** @param {readonly Card[]} cards @param {readonly number[]} weights */
function sumWeights(cards, weights) {
  let total = 0;
  for (const card of cards) total += weights[card.index];
  return total;
}

/**
 * What capturing things is worth, in match points, for each seat: a card's share of the
 * categories still open, plus the points it carries (not the 2♠ and aces for a late seat).
 * @param {View} view @param {Tuning} tuning
 * @returns {{card: [number[], number[]], limpia: [number, number]}}
 */
export function weights(view, tuning) {
  const counts = view.captured.map((cards) => cards.length);
  const spades = view.captured.map((cards) => cards.filter((c) => c.suit === "s").length);
  const cardW = Math.max(...counts) > HALF_DECK ? 0.0 : tuning.cardWeight;
  const spadeW = Math.max(...spades) >= SPADES_NEEDED ? 0.0 : tuning.spadeWeight;
  const late = view.scores.map((score) => score >= LATE_SCORE);
  /** @type {number[][]} */
  const tables = [];
  /** @type {number[]} */
  const limpias = [];
  for (const p of TEAMS) {
    // per team (with two players: per seat)
    tables.push(
      DECK.map((card) => {
        let w = cardW;
        if (card.suit === "s") w += spadeW;
        if (card === TEN_OF_DIAMONDS) w += 2.0;
        if (!late[p]) {
          if (card === TWO_OF_SPADES) w += 1.0;
          if (card.rank === 1) w += 1.0;
        }
        return w;
      }),
    );
    // a late player's limpias only cancel the opponent's
    limpias.push(!late[p] ? 1.0 : !late[otherTeam(p)] ? 0.5 : 0.0);
  }
  return { card: [tables[0], tables[1]], limpia: [limpias[0], limpias[1]] };
}

/**
 * The most valuable union of disjoint groups (masks of loose cards), with its weight.
 * @param {number[]} groups @param {number[]} w @returns {[number, number]} [mask, weight]
 */
function bestGroups(groups, w) {
  if (groups.length === 1) return [groups[0], weightOf(w, groups[0])];
  const [weight, mask] = bestPacking(groups, 2 ** w.length - 1, w, PACKING_BUDGET);
  return [mask, weight];
}

/**
 * The masks of every set of two or more of `cards` adding up to at most 14 (aces 1), by
 * their sum: the engine's `Table.multi` (moves.js), without the rest of a Table. Their
 * order differs from the Table's, which changes nothing here (bestPacking sorts them).
 * @param {readonly Card[]} cards
 */
function multiSums(cards) {
  /** @type {number[][]} */
  const out = [];
  for (let v = 0; v <= MAX_VALUE; v++) out.push([]);
  const n = cards.length;
  /** @param {number} start @param {number} mask @param {number} total @param {boolean} more */
  const walk = (start, mask, total, more) => {
    for (let i = start; i < n; i++) {
      const sum = total + cards[i].value;
      if (sum > MAX_VALUE) continue;
      const next = mask | (1 << i);
      if (more) out[sum].push(next);
      walk(i + 1, next, sum, true);
    }
  };
  walk(0, 0, 0, false);
  return out;
}

/** A simulated table with its sums indexed, and the best captures on it (cached). */
class TableInfo {
  /** @param {SimTable} table */
  constructor(table) {
    this.loose = table.loose;
    this.piles = table.piles;
    /** @type {number[][] | null} */
    this.sums = null;
    /** @type {Map<number, Capture | null>} */
    this.cache = new Map();
  }

  /**
   * The most valuable capture (for `player`) with a card of `rank`, without the played card's
   * own weight; null if that rank takes nothing.
   * @param {number} rank @param {readonly number[]} w @param {number} limpia @param {number} player
   */
  bestCapture(rank, w, limpia, player) {
    const key = rank * 2 + player;
    let found = this.cache.get(key);
    if (found === undefined) {
      found = this.findCapture(rank, w, limpia);
      this.cache.set(key, found);
    }
    return found;
  }

  /** @param {number} rank @param {readonly number[]} w @param {number} limpia @returns {Capture | null} */
  findCapture(rank, w, limpia) {
    const { loose, piles } = this;
    const value = rank === 1 ? MAX_VALUE : rank;
    let takenMask = 0;
    let gain = 0.0;
    loose.forEach((card, i) => {
      if (card.rank === rank) {
        takenMask |= 1 << i;
        gain += w[card.index];
      }
    });
    /** @type {SimPile[]} */
    const keptPiles = [];
    let tookPile = false;
    for (const pile of piles) {
      if (pile.value === value) {
        tookPile = true;
        for (const card of pile.cards) gain += w[card.index];
      } else keptPiles.push(pile);
    }
    if (this.sums === null) this.sums = multiSums(loose); // sums of 2+ loose cards
    let groups = this.sums[value];
    if (rank === 1 && takenMask) groups = groups.filter((g) => !(g & takenMask));
    if (groups.length) {
      const [extraMask, extraGain] = bestGroups(
        groups,
        loose.map((c) => w[c.index]),
      );
      takenMask |= extraMask;
      gain += extraGain;
    }
    if (!takenMask && !tookPile) return null;
    const rest = loose.filter((_, i) => !((takenMask >> i) & 1));
    const cleared = !rest.length && !keptPiles.length;
    if (cleared) gain += limpia;
    return { gain, table: { loose: rest, piles: keptPiles }, cleared };
  }
}

/** @typedef {{move: Move, gain: number, table: SimTable, captured: boolean}} Candidate */

/** One decision of Normal's. */
export class Decision {
  /** @param {View} view @param {Tuning} tuning @param {Rng} rng */
  constructor(view, tuning, rng) {
    this.view = view;
    this.tuning = tuning;
    this.rng = rng;
    // weights, captures and the sweep are the team's; piles and turns the seat's. With two
    // players seat and team are the same number.
    this.seat = view.seat;
    this.me = teamOf(view.seat);
    this.opp = otherTeam(this.me);
    this.next = nextSeat(view.seat, view.seatCount); // who replies: an opponent
    this.four = view.seatCount > 2;
    this.mates = teamSeats(this.me, view.seatCount); // this seat and its partner
    const w = weights(view, tuning);
    this.wMe = w.card[this.me];
    this.wOpp = w.card[this.opp];
    this.lMe = w.limpia[this.me];
    this.lOpp = w.limpia[this.opp];
    const wOpp = this.wOpp;
    // the unseen cards, least valuable to the opponent first (the one it would trail)
    this.unseen = view
      .unseen()
      .sort((a, b) => wOpp[a.index] - wOpp[b.index] || a.value - b.value || (a.suit < b.suit ? -1 : 1));
    /** @type {Map<string, number>} */
    this.pileIndex = new Map(view.piles.map((pile, j) => [pile.id, j]));
    /** @type {SimTable} */
    this.table = {
      loose: view.cards,
      piles: view.piles.map((p) => ({ value: p.value, owner: p.owner, cards: p.cards, double: p.double })),
    };
  }

  // -- the opponent's possible hands ------------------------------------------------

  /**
   * Hands the opponent may hold for the reply, as sorted indices into `unseen`, and whether
   * the next deal comes first (the reply is then made from a fresh hand and this seat's next
   * cards are unknown).
   * @returns {[number[][], boolean]}
   */
  opponentHands() {
    const view = this.view;
    let size = view.opponentHandSize;
    let fresh = false;
    if (size === 0) {
      if (view.deckSize === 0) return [[], false];
      size = 4;
      fresh = true;
    }
    const count = this.unseen.length;
    size = Math.min(size, count);
    if (!fresh && view.deckSize === 0 && count === size) {
      // the unseen cards are exactly the opponent's hand
      return [[Array.from({ length: count }, (_, i) => i)], false];
    }
    const needed = [...new Set(this.table.piles.filter((p) => p.owner === this.next).map((p) => p.value))].sort(
      (a, b) => a - b,
    );
    const takersOf = new Map(
      needed.map((v) => [v, this.unseen.flatMap((c, i) => (c.captureValue === v ? [i] : []))]),
    );
    const rng = this.rng;
    /** @type {number[][]} */
    const hands = [];
    for (let n = 0; n < this.tuning.samples; n++) {
      const hand = rng.sample(count, size);
      if (!fresh) {
        // a pile owner always holds the card that takes the pile (RULES.md 4.4)
        for (const value of needed) {
          const takers = /** @type {number[]} */ (takersOf.get(value));
          if (takers.length && !hand.some((i) => takers.includes(i))) hand[rng.below(size)] = rng.choice(takers);
        }
      }
      hands.push(hand.sort((a, b) => a - b));
    }
    return [hands, fresh];
  }

  // -- candidates ---------------------------------------------------------------------

  /**
   * The table after one of this seat's moves, the weight captured and whether it is a capture.
   * @param {Move} move @returns {[number, SimTable, boolean]}
   */
  apply(move) {
    const { loose, piles } = this.table;
    const take = new Set(move.take);
    if (move.kind === "trail") return [0.0, { loose: [...loose, move.card], piles }, false];
    const takenLoose = loose.filter((c) => take.has(c.code));
    const rest = loose.filter((c) => !take.has(c.code));
    /** @type {SimPile[]} */
    const takenPiles = [];
    for (const item of move.take) {
      const j = this.pileIndex.get(item);
      if (j !== undefined) takenPiles.push(piles[j]);
    }
    const kept = piles.filter((p) => !takenPiles.includes(p));
    const used = [...takenLoose, ...takenPiles.flatMap((p) => p.cards)];
    if (move.kind === "capture") {
      let gain = this.wMe[move.card.index] + sumWeights(used, this.wMe);
      if (!rest.length && !kept.length) gain += this.lMe;
      return [gain, { loose: rest, piles: kept }, true];
    }
    const value = move.value || 0;
    const one = takenPiles[0];
    const simple =
      (!takenPiles.length && takenLoose.reduce((s, c) => s + c.value, 0) + move.card.value === value) ||
      (!takenLoose.length &&
        takenPiles.length === 1 &&
        one.owner !== this.seat &&
        !one.double &&
        one.value + move.card.value === value);
    /** @type {SimPile} */
    const pile = { value, owner: this.seat, cards: [...used, move.card], double: !simple };
    return [0.0, { loose: rest, piles: [...kept, pile] }, false];
  }

  /**
   * The moves worth a closer look: for each card its most valuable captures, the builds that
   * gather the most, and every trail.
   * @param {readonly Move[]} moves @returns {Candidate[]}
   */
  candidates(moves) {
    const wMe = this.wMe;
    /** @type {Map<string, number>} */
    const itemWeight = new Map(this.table.loose.map((c) => [c.code, wMe[c.index]]));
    for (const pile of this.view.piles) itemWeight.set(pile.id, sumWeights(pile.cards, wMe));
    const allItems = itemWeight.size;
    /** @type {Map<string, [number, number][]>} */
    const captures = new Map();
    /** @type {[number, number][]} */
    const builds = [];
    /** @type {Set<number>} */
    const chosen = new Set();
    moves.forEach((move, index) => {
      if (move.kind === "trail") {
        chosen.add(index);
        return;
      }
      let weight = 0;
      for (const item of move.take) weight += /** @type {number} */ (itemWeight.get(item));
      if (move.kind === "capture") {
        if (move.take.length === allItems) weight += this.lMe;
        const list = captures.get(move.card.code);
        if (list) list.push([-weight, index]);
        else captures.set(move.card.code, [[-weight, index]]);
      } else builds.push([-weight, index]);
    });
    /** @param {[number, number]} a @param {[number, number]} b */
    const byWeight = (a, b) => a[0] - b[0] || a[1] - b[1];
    for (const entries of captures.values()) {
      entries.sort(byWeight); // ties keep the legal order
      for (const [, index] of entries.slice(0, this.tuning.maxCapturesPerCard)) chosen.add(index);
    }
    const room = Math.max(this.tuning.maxCandidates - chosen.size, this.tuning.minBuilds);
    builds.sort(byWeight);
    for (const [, index] of builds.slice(0, room)) chosen.add(index);
    return [...chosen]
      .sort((a, b) => a - b)
      .map((i) => {
        const [gain, table, captured] = this.apply(moves[i]);
        return { move: moves[i], gain, table, captured };
      });
  }

  // -- evaluation ---------------------------------------------------------------------

  /** @param {readonly Move[]} moves */
  best(moves) {
    let bestScore = -Infinity;
    /** @type {Move[]} */
    let bestMoves = [];
    for (const [move, score] of this.scored(moves)) {
      if (score > bestScore + 1e-9) {
        bestScore = score;
        bestMoves = [move];
      } else if (score > bestScore - 1e-9) bestMoves.push(move);
    }
    return bestMoves.length === 1 ? bestMoves[0] : this.rng.choice(bestMoves);
  }

  /**
   * The candidate moves with their expected values; `drawn` replaces the opponent's hands
   * this decision would draw (for tests that compare with the server's player).
   * @param {readonly Move[]} moves @param {[number[][], boolean]} [drawn] @returns {[Move, number][]}
   */
  scored(moves, drawn) {
    const [hands, fresh] = drawn ?? this.opponentHands();
    return this.candidates(moves).map(({ move, gain, table, captured }) => {
      const rest = [...this.view.hand];
      rest.splice(rest.indexOf(move.card), 1);
      return [move, gain + this.after(table, rest, hands, fresh, captured)];
    });
  }

  /**
   * Expected value, for this seat, of what follows a move that left `table`.
   * @param {SimTable} table @param {readonly Card[]} rest @param {number[][]} hands
   * @param {boolean} fresh @param {boolean} captured
   */
  after(table, rest, hands, fresh, captured) {
    const view = this.view;
    const last = view.lastCapturer;
    const lastMe = captured || (last !== null && teamOf(last) === this.me);
    if (!hands.length) {
      // this seat plays the last card of the hand
      return view.deckSize === 0 ? this.sweep(table, lastMe) : 0.0;
    }
    // the end of the hand is within sight: the sweep goes to the last capturer
    const endInSight = !this.four && view.deckSize === 0 && rest.length <= 1 && view.opponentHandSize <= 1;
    const info = new TableInfo(table);
    // each unseen card's best capture there, and its value for the opponent
    /** @type {Map<number, Capture | null>} */
    const byRank = new Map();
    /** @type {number[]} */
    const values = [];
    /** @type {(Capture | null)[]} */
    const replies = [];
    const { wOpp, lOpp, opp } = this;
    for (const card of this.unseen) {
      let found = byRank.get(card.rank);
      if (found === undefined) {
        found = info.bestCapture(card.rank, wOpp, lOpp, opp);
        byRank.set(card.rank, found);
      }
      replies.push(found);
      values.push(found === null ? -1.0 : found.gain + wOpp[card.index]);
    }
    // this team's simple piles, which the opponent may raise and make its own
    /** @type {[number, number, number][]} */
    const raisable = [];
    table.piles.forEach((pile, j) => {
      if (this.mates.includes(pile.owner) && !pile.double && pile.value < MAX_VALUE) {
        raisable.push([j, pile.value, sumWeights(pile.cards, wOpp)]);
      }
    });
    /** @type {Map<unknown, number>} */
    const follow = new Map();
    /** @param {unknown} key @param {() => number} compute */
    const cached = (key, compute) => {
      let value = follow.get(key);
      if (value === undefined) {
        value = compute();
        follow.set(key, value);
      }
      return value;
    };
    let total = 0.0;
    for (const hand of hands) {
      let best = hand[0]; // ties: the first, least valuable
      for (const i of hand) if (values[i] > values[best]) best = i;
      const reply = replies[best];
      if (raisable.length) {
        const steal = this.steal(hand, raisable, values[best]);
        if (steal !== null) {
          const [j, stolen] = steal;
          total -= stolen;
          if (fresh) continue;
          total += cached(-1000 - j, () =>
            this.followUp(
              { loose: table.loose, piles: [...table.piles.slice(0, j), ...table.piles.slice(j + 1)] },
              rest,
              lastMe,
              endInSight,
            ),
          );
          continue;
        }
      }
      if (reply !== null) {
        total -= values[best];
        if (fresh) continue;
        total += cached(reply, () => this.followUp(reply.table, rest, false, endInSight));
      } else {
        if (fresh) continue;
        const trailed = hand[0]; // the least valuable card of the hand
        total += cached(-1 - trailed, () =>
          this.followUp(
            { loose: [...table.loose, this.unseen[trailed]], piles: table.piles },
            rest,
            lastMe,
            endInSight,
          ),
        );
      }
    }
    return total / hands.length;
  }

  /**
   * The opponent's best raise of one of this seat's simple piles (RULES.md 4.2), if it beats
   * its best capture: [pile index, value for the opponent]. A raise needs a card to add and
   * another that takes the new value; the pile is taken a turn later (`stealWeight`).
   * @param {number[]} hand @param {[number, number, number][]} raisable @param {number} bestCapture
   * @returns {[number, number] | null}
   */
  steal(hand, raisable, bestCapture) {
    const { unseen, wOpp } = this;
    /** @type {[number, number] | null} */
    let found = null;
    let bestValue = bestCapture;
    for (const [j, value, weight] of raisable) {
      for (const i of hand) {
        const card = unseen[i];
        const raised = value + card.value;
        if (raised > MAX_VALUE) continue;
        if (!hand.some((k) => k !== i && unseen[k].captureValue === raised)) continue;
        const gain = this.tuning.stealWeight * (weight + wOpp[card.index]);
        if (gain > bestValue) {
          found = [j, gain];
          bestValue = gain;
        }
      }
    }
    return found;
  }

  /**
   * This seat's best capture on `table` with the cards it kept, and the end sweep. With four
   * players the partner plays first: its piles still on the table are the team's (it holds
   * their takers, RULES.md 4.4), and this seat's own capture comes three plays later.
   * @param {SimTable} table @param {readonly Card[]} rest @param {boolean} lastMe @param {boolean} endInSight
   */
  followUp(table, rest, lastMe, endInSight) {
    /** @type {Capture | null} */
    let best = null;
    let bestGain = 0.0;
    if (rest.length) {
      const info = new TableInfo(table);
      for (const card of rest) {
        const found = info.bestCapture(card.rank, this.wMe, this.lMe, this.me);
        if (found !== null) {
          const g = found.gain + this.wMe[card.index];
          if (best === null || g > bestGain) {
            bestGain = g;
            best = found;
          }
        }
      }
    }
    if (this.four) {
      let partner = 0;
      for (const pile of table.piles) {
        if (this.mates.includes(pile.owner) && pile.owner !== this.seat) {
          for (const card of pile.cards) partner += this.wMe[card.index];
        }
      }
      return this.tuning.follow * partner + this.tuning.followFour * bestGain;
    }
    let value = this.tuning.follow * bestGain;
    if (endInSight) {
      if (best !== null) value += this.sweep(best.table, true);
      else {
        const left = !rest.length ? table : { loose: [...table.loose, ...rest], piles: table.piles };
        value += this.sweep(left, lastMe);
      }
    }
    return value;
  }

  /** @param {SimTable} table @param {boolean} lastMe */
  sweep(table, lastMe) {
    const cards = [...table.loose, ...table.piles.flatMap((p) => p.cards)];
    if (lastMe) return this.tuning.endWeight * sumWeights(cards, this.wMe);
    return -this.tuning.endWeight * sumWeights(cards, this.wOpp);
  }
}

export const normal = {
  name: "normal",

  /** @param {View} view @param {readonly Move[]} legalMoves @param {Rng} rng @returns {Move} */
  choose(view, legalMoves, rng) {
    if (legalMoves.length === 1) return legalMoves[0];
    return new Decision(view, TUNING, rng).best(legalMoves);
  },
};
