// Moves: their JSON form, every legal move of a position, and playing one
// (server/engine/moves.py, the same algorithm step by step).
//
// Items on the table are numbered as bits of one integer: loose card `i` is bit `i`, pile `j`
// is bit `cards.length + j`. A take-set is such a mask. JavaScript's bit operators work on 32
// bits, so a table may hold at most MAX_ITEMS items (real games stay far below: see the README).

import { MAX_VALUE, parseCard } from "./cards.js";
import { EngineError, IllegalMove, InvalidMove, NotationError } from "./errors.js";
import { Pile, Position, asciiJSON } from "./position.js";
import { compareStr, get, isDict, isInt, pyLen, pyRepr } from "./pyrepr.js";
import { buildError, captureError, shortEs, trailError } from "./refusals.js";
import { scoreHand } from "./scoring.js";
import { nextSeat, seatsOf, teamOf } from "./seats.js";

/** @typedef {import("./cards.js").Card} Card */
/** @typedef {import("./scoring.js").HandResult} HandResult */
/** @typedef {"capture" | "build" | "trail"} Kind */
/** @typedef {{kind: Kind, card: string, take?: string[], value?: number}} MoveJSON */

export const KINDS = /** @type {const} */ (["capture", "build", "trail"]);
export const MAX_ITEMS = 31;

/** A move: play `card` to capture or build with the table items `take`, or trail it. */
export class Move {
  /**
   * @param {Kind} kind
   * @param {Card} card
   * @param {Iterable<string>} [take] the table items (a set: kept sorted)
   * @param {number | null} [value] a build's value
   */
  constructor(kind, card, take = [], value = null) {
    this.kind = kind;
    this.card = card;
    /** @type {readonly string[]} */
    this.take = Object.freeze([...new Set(take)].sort(compareStr));
    this.value = value;
    Object.freeze(this);
  }

  /** @returns {MoveJSON} */
  toJSON() {
    /** @type {MoveJSON} */
    const data = { kind: this.kind, card: this.card.code };
    if (this.kind !== "trail") data.take = [...this.take];
    if (this.kind === "build") data.value = /** @type {number} */ (this.value);
    return data;
  }

  toText() {
    return asciiJSON(this.toJSON());
  }

  /** A string that identifies the move (for sets and maps). */
  key() {
    return JSON.stringify([this.kind, this.card.code, this.take, this.value]);
  }

  /** @param {Move} other */
  equals(other) {
    return this.key() === other.key();
  }

  /** @param {unknown} data */
  static fromJSON(data) {
    if (!isDict(data)) throw new InvalidMove(`a move must be an object, not ${pyRepr(data)}`);
    const kind = get(data, "kind");
    if (kind !== "capture" && kind !== "build" && kind !== "trail") {
      throw new InvalidMove(`bad move kind ${pyRepr(kind)}`);
    }
    /** @type {Card} */
    let card;
    try {
      card = parseCard(get(data, "card"));
    } catch (exc) {
      if (exc instanceof NotationError) throw new InvalidMove(exc.message);
      throw exc;
    }
    const rawTake = get(data, "take", []);
    if (
      !Array.isArray(rawTake) ||
      !rawTake.every((item) => typeof item === "string" && item.length > 0 && pyLen(item) <= 16)
    ) {
      throw new InvalidMove(`take must be a list of table items, not ${pyRepr(rawTake)}`);
    }
    const take = new Set(/** @type {string[]} */ (rawTake));
    if (take.size !== rawTake.length) throw new InvalidMove(`take names an item twice: ${pyRepr(rawTake)}`);
    let value = get(data, "value");
    if (kind === "build") {
      if (typeof value === "bigint") value = Number(value); // any whole number; it is out of range
      if (!isInt(value)) throw new InvalidMove(`a build must say its value, not ${pyRepr(value)}`);
    } else if (value !== null) {
      throw new InvalidMove(`a ${kind} has no value, got ${pyRepr(value)}`);
    }
    if (kind === "trail" && take.size) throw new InvalidMove("a trail takes nothing");
    return new Move(kind, card, take, kind === "build" ? /** @type {number} */ (value) : null);
  }

  /** Reads the text form (JSON); what is not a string is not JSON either. @param {unknown} text */
  static parse(text) {
    /** @type {unknown} */
    let data;
    try {
      if (typeof text !== "string") throw new TypeError("not a string");
      data = JSON.parse(text);
    } catch {
      throw new InvalidMove(`move is not JSON: ${pyRepr(text)}`);
    }
    return Move.fromJSON(data);
  }

  /** @param {string} card @param {...string} take */
  static capture(card, ...take) {
    return new Move("capture", parseCard(card), take);
  }

  /** @param {string} card @param {string[]} take @param {number} value */
  static build(card, take, value) {
    return new Move("build", parseCard(card), take, value);
  }

  /** @param {string} card */
  static trail(card) {
    return new Move("trail", parseCard(card));
  }
}

const KIND_ORDER = { capture: 0, build: 1, trail: 2 };

/** The order legal moves are listed in: kind, rank, suit, take, value. @param {Move} a @param {Move} b */
export function compareMoves(a, b) {
  const d = KIND_ORDER[a.kind] - KIND_ORDER[b.kind] || a.card.rank - b.card.rank;
  if (d) return d;
  if (a.card.suit !== b.card.suit) return a.card.suit < b.card.suit ? -1 : 1;
  for (let i = 0; i < Math.min(a.take.length, b.take.length); i++) {
    const c = compareStr(a.take[i], b.take[i]);
    if (c) return c;
  }
  return a.take.length - b.take.length || (a.value ?? 0) - (b.value ?? 0);
}

// -- the table, indexed for enumeration -------------------------------------------

/** @param {number} n */
const allBits = (n) => 2 ** n - 1;

/** The table of a position with the sums of its loose cards precomputed. */
export class Table {
  /** @param {readonly Card[]} cards @param {readonly Pile[]} piles */
  constructor(cards, piles) {
    if (cards.length + piles.length > MAX_ITEMS) {
      throw new EngineError(
        `a table of ${cards.length + piles.length} items: this engine counts at most ${MAX_ITEMS}`,
      );
    }
    this.cards = cards;
    this.piles = piles;
    const n = cards.length;
    this.n = n;
    /** @type {string[]} */
    this.items = [...cards.map((c) => c.code), ...piles.map((p) => p.id)];
    // subsets of loose cards with sum <= 14 (aces 1): by sum, of size >= 1 and >= 2
    const masks = [0];
    const totals = [0];
    const sizes = [0];
    for (let i = 0; i < n; i++) {
      const bit = 1 << i;
      const v = cards[i].value;
      const count = masks.length;
      for (let k = 0; k < count; k++) {
        if (totals[k] + v <= MAX_VALUE) {
          masks.push(masks[k] | bit);
          totals.push(totals[k] + v);
          sizes.push(sizes[k] + 1);
        }
      }
    }
    /** @type {number[][]} */
    this.sums = Array.from({ length: MAX_VALUE + 1 }, () => []);
    /** @type {number[][]} */
    this.multi = Array.from({ length: MAX_VALUE + 1 }, () => []);
    for (let k = 1; k < masks.length; k++) {
      this.sums[totals[k]].push(masks[k]);
      if (sizes[k] >= 2) this.multi[totals[k]].push(masks[k]);
    }
    /** @type {(Set<number> | undefined)[]} by value */
    this._captureUnions = [];
    /** @type {(Set<number> | undefined)[]} by value */
    this._otherUnions = [];
    /** @type {Map<number, string[]>} */
    this._names = new Map();
    /** @type {(number[] | undefined)[]} by value */
    this._otherGroups = [];
    /** @type {Map<string, number> | null} */
    this._bitOf = null;
    /** @type {number[]} */
    this._rankMasks = new Array(14).fill(0);
    cards.forEach((card, i) => {
      this._rankMasks[card.rank] |= 1 << i;
    });
    /** @type {number[]} */
    this._pileMasks = new Array(MAX_VALUE + 1).fill(0);
    piles.forEach((pile, j) => {
      this._pileMasks[pile.value] |= 1 << (n + j);
    });
  }

  /** Each item's bit, by its name. */
  get bitOf() {
    if (this._bitOf === null) this._bitOf = new Map(this.items.map((item, i) => [item, 1 << i]));
    return this._bitOf;
  }

  get everything() {
    return allBits(this.items.length);
  }

  /** @param {number} j */
  pileBit(j) {
    return 1 << (this.n + j);
  }

  /** @param {number} seat */
  ownsPile(seat) {
    return this.piles.some((pile) => pile.owner === seat);
  }

  /** The loose cards of `rank`. @param {number} rank */
  rankMask(rank) {
    return this._rankMasks[rank];
  }

  /** @param {number} value */
  pilesOfValue(value) {
    return this._pileMasks[value] ?? 0;
  }

  /** Every union of disjoint sums (2+ loose cards) worth `value`, the empty one included. @param {number} value */
  captureUnions(value) {
    let found = this._captureUnions[value];
    if (found === undefined) {
      found = disjointUnions(this.multi[value]);
      this._captureUnions[value] = found;
    }
    return found;
  }

  /** Non-empty unions of disjoint groups worth `value` not containing the played card. @param {number} value */
  otherUnions(value) {
    let found = this._otherUnions[value];
    if (found === undefined) {
      found = disjointUnions(this.otherGroups(value));
      found.delete(0);
      this._otherUnions[value] = found;
    }
    return found;
  }

  /** The names of the items of `mask`, sorted (a move's `take`). @param {number} mask */
  names(mask) {
    let found = this._names.get(mask);
    if (found === undefined) {
      found = this.items.filter((_, i) => (mask >> i) & 1).sort(compareStr);
      this._names.set(mask, found);
    }
    return found;
  }

  /**
   * The groups of a double pile of `value` without the played card (RULES.md 4.3): sums of
   * 2+ loose cards, one loose card of the value (a lone ace for 14), any pile of the value.
   * @param {number} value
   */
  otherGroups(value) {
    const known = this._otherGroups[value];
    if (known !== undefined) return known;
    const groups = [...this.multi[value]];
    this.cards.forEach((c, i) => {
      if (c.value === value || (c.rank === 1 && value === MAX_VALUE)) groups.push(1 << i);
    });
    this.piles.forEach((pile, j) => {
      if (pile.value === value) groups.push(this.pileBit(j));
    });
    this._otherGroups[value] = groups;
    return groups;
  }

  /** The mask of named items, or null if one is not on the table. @param {Iterable<string>} take */
  maskOf(take) {
    let mask = 0;
    for (const item of take) {
      const bit = this.bitOf.get(item);
      if (bit === undefined) return null;
      mask |= bit;
    }
    return mask;
  }
}

/** @param {readonly number[]} groups */
export function disjointUnions(groups) {
  const reachable = new Set([0]);
  for (const group of groups) {
    for (const mask of [...reachable]) if (!(mask & group)) reachable.add(mask | group);
  }
  return reachable;
}

// -- enumeration ------------------------------------------------------------------

/** Every legal take-set (as a mask) for capturing with `card`. @param {Table} table @param {Card} card */
export function captureMasks(table, card) {
  const value = card.captureValue;
  const mandatory = table.rankMask(card.rank) | table.pilesOfValue(value);
  const takes = new Set();
  for (const union of table.captureUnions(value)) takes.add(mandatory | union);
  takes.delete(0);
  return takes;
}

/** @param {readonly Card[]} rest */
const heldValues = (rest) => new Set(rest.map((c) => c.captureValue));

/** @param {Table} table @param {number} seat @returns {[number, number][]} */
const ownedPiles = (table, seat) =>
  table.piles.flatMap((pile, j) => (pile.owner === seat ? [[table.pileBit(j), pile.value]] : []));

/**
 * Every legal build with `card` as [mask, value, double]; `rest` is the hand after it.
 * @param {Table} table @param {Card} card @param {readonly Card[]} rest @param {number} seat
 * @returns {Generator<[number, number, boolean]>}
 */
export function* buildMasks(table, card, rest, seat) {
  const held = heldValues(rest);
  const owned = ownedPiles(table, seat);
  for (const value of [...held].sort((a, b) => a - b)) {
    if (value < 2) continue;
    const seen = new Set();
    const groups = cardGroups(table, card, value, seat);
    for (const mask of groups) {
      if (!mask) continue;
      if (keepsPiles(mask, owned, held)) {
        seen.add(mask);
        yield [mask, value, false];
      }
    }
    const others = table.otherUnions(value);
    if (!others.size) continue;
    for (const group of groups) {
      for (const union of others) {
        if (group & union) continue;
        const mask = group | union;
        if (seen.has(mask) || !keepsPiles(mask, owned, held)) continue;
        seen.add(mask);
        yield [mask, value, true];
      }
    }
  }
}

/** @param {number} mask @param {[number, number][]} owned @param {Set<number>} held */
function keepsPiles(mask, owned, held) {
  return owned.every(([bit, value]) => bit & mask || held.has(value));
}

/** RULES.md 5: no trail while owning a pile, nor with a card that pairs a loose one. @param {Table} table @param {Card} card @param {number} seat */
export function mayTrail(table, card, seat) {
  return !table.ownsPile(seat) && !table.rankMask(card.rank);
}

/** @param {readonly Card[]} hand @param {Card} card */
export function handWithout(hand, card) {
  const cards = [...hand];
  cards.splice(cards.indexOf(card), 1);
  return cards;
}

/**
 * Every legal move playing `card` from the hand of the seat to move (in no set order).
 * @param {Position} position @param {Card} card @param {Table} [table]
 */
export function movesForCard(position, card, table) {
  const t = table ?? new Table(position.cards, position.piles);
  const seat = position.turn;
  const moves = [...captureMasks(t, card)].map((mask) => new Move("capture", card, t.names(mask)));
  const rest = handWithout(position.hands[seat], card);
  for (const [mask, value] of buildMasks(t, card, rest, seat)) {
    moves.push(new Move("build", card, t.names(mask), value));
  }
  if (mayTrail(t, card, seat)) moves.push(new Move("trail", card));
  return moves;
}

/** Every legal move of the seat to move, each once, in a stable order. @param {Position} position */
export function legalMoves(position) {
  const table = new Table(position.cards, position.piles);
  /** @type {Move[]} */
  const moves = [];
  for (const card of new Set(position.hands[position.turn])) moves.push(...movesForCard(position, card, table));
  return moves.sort(compareMoves);
}

// -- playing ------------------------------------------------------------------

/**
 * What one move did: the next position, and the hand's result if it ended.
 * @typedef {object} Step
 * @property {Position} position
 * @property {Move} move
 * @property {Card[]} taken the card played and what it captured (none for a build or trail)
 * @property {boolean} limpia
 * @property {boolean} dealt
 * @property {HandResult | null} result
 * @property {Card[]} swept cards the end of the hand gave to `sweeper`
 * @property {number | null} sweeper
 */

/** The position after `move`; throws IllegalMove if the rules forbid it. @param {Position} position @param {Move} move */
export function play(position, move) {
  return playStep(position, move).position;
}

/**
 * Throws IllegalMove unless `move` is legal. Returns the indexed table, the take mask and
 * whether a build makes a double pile.
 * @param {Position} position @param {Move} move @returns {[Table, number, boolean]}
 */
export function checkMove(position, move) {
  const seat = position.turn;
  const card = move.card;
  if (position.handOver) throw new IllegalMove("hand_over", "La mano ya terminó.");
  if (!position.hands[seat].includes(card)) {
    throw new IllegalMove("not_in_hand", `No tienes ${shortEs(card)} en la mano.`, { card: card.code });
  }
  const table = new Table(position.cards, position.piles);
  const mask = table.maskOf(move.take);
  if (mask === null) {
    const missing = move.take.filter((item) => !table.bitOf.has(item)).sort(compareStr);
    throw new IllegalMove("not_on_table", `En la mesa no hay ${missing.join(", ")}.`, { items: missing });
  }
  if (move.kind === "trail") {
    if (!mayTrail(table, card, seat)) throw trailError(position, table, card);
    return [table, 0, false];
  }
  if (move.kind === "capture") {
    if (!isCapture(table, card, mask)) throw captureError(table, card, mask);
    return [table, mask, false];
  }
  const rest = handWithout(position.hands[seat], card);
  const value = move.value || 0;
  const kind = buildKind(table, card, rest, seat, mask, value);
  if (kind === null) throw buildError(position, table, card, mask, value, rest);
  return [table, mask, kind];
}

// -- checking one move directly (no enumeration: fast on a crowded table) ------------

/** Whether `mask` is exactly a union of disjoint `groups`. @param {number} mask @param {readonly number[]} groups */
export function canPartition(mask, groups) {
  /** @type {Map<number, number[]>} */
  const byLow = new Map();
  for (const group of groups) {
    if (group && (group & mask) === group) {
      const low = group & -group;
      const list = byLow.get(low);
      if (list) list.push(group);
      else byLow.set(low, [group]);
    }
  }
  const stack = [mask];
  const seen = new Set();
  while (stack.length) {
    const left = /** @type {number} */ (stack.pop());
    if (!left) return true;
    if (seen.has(left)) continue;
    seen.add(left);
    for (const group of byLow.get(left & -left) ?? []) {
      if ((group & left) === group) stack.push(left & ~group);
    }
  }
  return false;
}

/** The groups a capture with `card` may take: pairs, sums and piles of its value. @param {Table} table @param {Card} card */
export function captureGroups(table, card) {
  const value = card.captureValue;
  const groups = [...table.multi[value]];
  table.cards.forEach((c, i) => {
    if (c.rank === card.rank) groups.push(1 << i);
  });
  table.piles.forEach((pile, j) => {
    if (pile.value === value) groups.push(table.pileBit(j));
  });
  return groups;
}

/** @param {Table} table @param {Card} card @param {number} mask */
export function isCapture(table, card, mask) {
  const mandatory = table.rankMask(card.rank) | table.pilesOfValue(card.captureValue);
  if (!mask || mandatory & ~mask) return false;
  return canPartition(mask, captureGroups(table, card));
}

/**
 * The groups that may hold the played card in a build of `value` (0: the card alone).
 * @param {Table} table @param {Card} card @param {number} value @param {number} seat
 */
export function cardGroups(table, card, value, seat) {
  const hv = card.value;
  /** @type {number[]} */
  const groups = [];
  if (value - hv >= 1) {
    groups.push(...table.sums[value - hv]);
    table.piles.forEach((pile, j) => {
      if (pile.owner !== seat && !pile.double && pile.value === value - hv) groups.push(table.pileBit(j));
    });
  }
  if (hv === value || (card.rank === 1 && value === MAX_VALUE)) groups.push(0);
  return groups;
}

/**
 * null if the build is illegal, else whether it makes a double pile.
 * @param {Table} table @param {Card} card @param {readonly Card[]} rest @param {number} seat
 * @param {number} mask @param {number} value @returns {boolean | null}
 */
export function buildKind(table, card, rest, seat, mask, value) {
  if (!(value >= 2 && value <= MAX_VALUE) || !mask) return null;
  const held = heldValues(rest);
  if (!held.has(value)) return null;
  if (!keepsPiles(mask, ownedPiles(table, seat), held)) return null;
  const groups = cardGroups(table, card, value, seat);
  if (groups.includes(mask)) return false; // a simple build or a raise
  const others = table.otherGroups(value);
  for (const group of groups) {
    if ((group & mask) === group && mask & ~group && canPartition(mask & ~group, others)) return true;
  }
  return null;
}

/** Plays `move` and reports what happened (captures, limpia, deal, end of hand). @param {Position} position @param {Move} move @returns {Step} */
export function playStep(position, move) {
  const [table, mask, double] = checkMove(position, move);
  const seat = position.turn;
  const card = move.card;
  const hands = [...position.hands];
  hands[seat] = handWithout(hands[seat], card);
  const loose = table.cards.filter((_, i) => !((mask >> i) & 1));
  const keptPiles = table.piles.filter((_, j) => !(mask & table.pileBit(j)));
  const usedCards = table.cards.filter((_, i) => (mask >> i) & 1);
  table.piles.forEach((pile, j) => {
    if (mask & table.pileBit(j)) usedCards.push(...pile.cards);
  });
  const captured = [...position.captured];
  const limpias = [...position.limpias];
  let lastCapturer = position.lastCapturer;
  /** @type {Card[]} */
  let taken = [];
  let limpia = false;
  if (move.kind === "capture") {
    const team = teamOf(seat); // what a player captures goes to their team (RULES.md 9.3)
    taken = [card, ...usedCards];
    captured[team] = [...captured[team], ...taken];
    lastCapturer = seat;
    if (!loose.length && !keptPiles.length) {
      limpia = true;
      limpias[team] += 1;
    }
  } else if (move.kind === "build") {
    keptPiles.push(
      new Pile([...usedCards, card], move.value || 0, seat, double, newPileId(position.piles)),
    );
  } else {
    loose.push(card);
  }
  const after = new Position({
    hands,
    cards: loose,
    piles: keptPiles,
    turn: nextSeat(seat, hands.length),
    dealer: position.dealer,
    deck: position.deck,
    captured: [captured[0], captured[1]],
    limpias: [limpias[0], limpias[1]],
    lastCapturer,
    scores: position.scores,
  });
  const step = { move, taken, limpia, dealt: false, result: null, swept: [], sweeper: null };
  if (after.hands.some((hand) => hand.length)) return { ...step, position: after };
  if (after.deck.length) return { ...step, position: dealRound(after), dealt: true };
  const [finished, swept, sweeper] = sweepTable(after);
  return { ...step, position: finished, result: scoreHand(finished), swept, sweeper };
}

export const DEAL_SIZE = 4; // cards to each player per deal, 4 at a time (RULES.md 2 and 9.1)

/**
 * Deals 4 cards to each player from the top of the deck, starting with the seat after the
 * dealer and ending with the dealer; a short deck runs out on the way (NOTATION.md).
 * @param {Position} position
 */
export function dealRound(position) {
  let deck = position.deck;
  const hands = [...position.hands];
  const count = hands.length;
  let seat = position.dealer;
  for (const _ of seatsOf(count)) {
    seat = nextSeat(seat, count);
    hands[seat] = [...hands[seat], ...deck.slice(0, DEAL_SIZE)];
    deck = deck.slice(DEAL_SIZE);
  }
  return position.replace({ hands, deck });
}

/**
 * End of the hand: the table goes to the last capturer's team, or the dealer's (RULES.md 2
 * and 9.3). Not a limpia. Returns the finished position, the swept cards and the seat they
 * went to (its team keeps them).
 * @param {Position} position @returns {[Position, Card[], number]}
 */
export function sweepTable(position) {
  const receiver = position.lastCapturer ?? position.dealer;
  const team = teamOf(receiver);
  const swept = [...position.cards, ...position.piles.flatMap((pile) => pile.cards)];
  const captured = [...position.captured];
  captured[team] = [...captured[team], ...swept];
  const finished = position.replace({ cards: [], piles: [], captured: [captured[0], captured[1]] });
  return [finished, swept, receiver];
}

const PILE_ID = /^p(\p{Nd}{1,6})$/u;
const DIGIT = /\p{Nd}/u;

/** The value of a decimal digit of any script (digits come in runs of ten, 0 first). @param {string} ch */
function digitValue(ch) {
  const cp = /** @type {number} */ (ch.codePointAt(0));
  let below = 0;
  while (DIGIT.test(String.fromCodePoint(cp - below - 1))) below++;
  return below % 10;
}

/** The id of a new pile: one more than the highest `p<number>` on the table. @param {readonly Pile[]} piles */
export function newPileId(piles) {
  let highest = 0;
  for (const pile of piles) {
    const found = PILE_ID.exec(pile.id);
    if (found) highest = Math.max(highest, [...found[1]].reduce((n, ch) => n * 10 + digitValue(ch), 0));
  }
  return `p${highest + 1}`;
}
