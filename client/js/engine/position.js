// Piles and positions, with the JSON form of NOTATION.md (server/engine/position.py).

import { DECK, parseCard, compareCards } from "./cards.js";
import { NotationError } from "./errors.js";
import { get, isDict, isInt, pyLen, pyRepr } from "./pyrepr.js";
import { SEAT_COUNTS, TEAMS, firstDealer, seatsOf } from "./seats.js";

/** @typedef {import("./cards.js").Card} Card */
/** @typedef {readonly Card[]} Cards */
/** @typedef {readonly [number, number]} Pair */

export const MAX_PILE_ID = 16;

/**
 * @typedef {object} PileJSON
 * @property {string} id
 * @property {string[]} cards
 * @property {number} value
 * @property {number} owner
 * @property {boolean} double
 */

/**
 * @typedef {object} PositionJSON
 * @property {string[][]} hands
 * @property {{cards: string[], piles: PileJSON[]}} table
 * @property {number} turn
 * @property {number} dealer
 * @property {string[]} deck
 * @property {[string[], string[]]} captured
 * @property {[number, number]} limpias
 * @property {number | null} last_capturer
 * @property {[number, number]} scores
 */

/** A pile (montón) on the table. Its id is a name only: it takes no part in equality. */
export class Pile {
  /**
   * @param {Cards} cards
   * @param {number} value
   * @param {number} owner
   * @param {boolean} [double]
   * @param {string} [id]
   */
  constructor(cards, value, owner, double = false, id = "") {
    this.cards = Object.freeze([...cards]);
    this.value = value;
    this.owner = owner;
    this.double = double;
    this.id = id;
    Object.freeze(this);
  }

  /** @returns {PileJSON} */
  toJSON() {
    return {
      id: this.id,
      cards: this.cards.map((c) => c.code),
      value: this.value,
      owner: this.owner,
      double: this.double,
    };
  }

  /** @param {Pile} other */
  equals(other) {
    return (
      this.value === other.value &&
      this.owner === other.owner &&
      this.double === other.double &&
      sameCards(this.cards, other.cards)
    );
  }

  /** @param {unknown} data */
  static fromJSON(data) {
    if (!isDict(data)) throw new NotationError(`a pile must be an object, not ${pyRepr(data)}`);
    const id = get(data, "id");
    if (typeof id !== "string" || !id || pyLen(id) > MAX_PILE_ID) {
      throw new NotationError(`bad pile id ${pyRepr(id)}`);
    }
    const cards = readCards(get(data, "cards"), `pile ${id}`);
    const value = get(data, "value");
    if (!isInt(value) || value < 2 || value > 14) {
      throw new NotationError(`pile ${id}: bad value ${pyRepr(value)}`);
    }
    const owner = get(data, "owner");
    if (!isInt(owner) || !ANY_SEAT.includes(owner)) {
      throw new NotationError(`pile ${id}: bad owner ${pyRepr(owner)}`);
    }
    const double = get(data, "double", false);
    if (typeof double !== "boolean") throw new NotationError(`pile ${id}: bad double ${pyRepr(double)}`);
    if (!pileCardsMakeValue(cards, value, double)) {
      const kind = double ? "double" : "simple";
      throw new NotationError(
        `pile ${id}: cards ${cards.map((c) => c.code).join(" ")} cannot make a ${kind} pile of ${value}`,
      );
    }
    return new Pile(cards, value, owner, double, id);
  }
}

/** @param {Cards} a @param {Cards} b */
function sameCards(a, b) {
  return a.length === b.length && a.every((card, i) => card === b[i]);
}

/**
 * Everything about a hand in progress: the NOTATION.md position. Hands, loose cards, piles,
 * deck and captured cards are frozen arrays; `play` makes new positions. It has two hands
 * or four (RULES.md 9): hands, turn, dealer, a pile's owner and the last capturer are per
 * player; captured cards, limpias and scores per team.
 */
export class Position {
  /**
   * @param {object} fields
   * @param {readonly Cards[]} fields.hands
   * @param {Cards} [fields.cards] loose cards on the table
   * @param {readonly Pile[]} [fields.piles]
   * @param {number} [fields.turn]
   * @param {number} [fields.dealer]
   * @param {Cards} [fields.deck]
   * @param {readonly [Cards, Cards]} [fields.captured]
   * @param {Pair} [fields.limpias]
   * @param {number | null} [fields.lastCapturer]
   * @param {Pair} [fields.scores]
   */
  constructor({
    hands,
    cards = [],
    piles = [],
    turn = 0,
    dealer = 1,
    deck = [],
    captured = [[], []],
    limpias = [0, 0],
    lastCapturer = null,
    scores = [0, 0],
  }) {
    /** @type {readonly Cards[]} */
    this.hands = Object.freeze(hands.map((hand) => Object.freeze([...hand])));
    /** @type {Cards} */
    this.cards = Object.freeze([...cards]);
    /** @type {readonly Pile[]} */
    this.piles = Object.freeze([...piles]);
    this.turn = turn;
    this.dealer = dealer;
    /** @type {Cards} */
    this.deck = Object.freeze([...deck]);
    /** @type {readonly [Cards, Cards]} */
    this.captured = Object.freeze([Object.freeze([...captured[0]]), Object.freeze([...captured[1]])]);
    /** @type {Pair} */
    this.limpias = Object.freeze([limpias[0], limpias[1]]);
    this.lastCapturer = lastCapturer;
    /** @type {Pair} */
    this.scores = Object.freeze([scores[0], scores[1]]);
    Object.freeze(this);
  }

  /** A copy with some fields changed. @param {Partial<ConstructorParameters<typeof Position>[0]>} changes */
  replace(changes) {
    return new Position({ ...this.fields(), ...changes });
  }

  fields() {
    return {
      hands: this.hands,
      cards: this.cards,
      piles: this.piles,
      turn: this.turn,
      dealer: this.dealer,
      deck: this.deck,
      captured: this.captured,
      limpias: this.limpias,
      lastCapturer: this.lastCapturer,
      scores: this.scores,
    };
  }

  /** How many players: 2, or 4 (two against two, RULES.md 9). */
  get seatCount() {
    return this.hands.length;
  }

  /** @returns {PositionJSON} */
  toJSON() {
    return {
      hands: this.hands.map(codesOf),
      table: { cards: codesOf(this.cards), piles: this.piles.map((p) => p.toJSON()) },
      turn: this.turn,
      dealer: this.dealer,
      deck: codesOf(this.deck),
      captured: [codesOf(this.captured[0]), codesOf(this.captured[1])],
      limpias: [this.limpias[0], this.limpias[1]],
      last_capturer: this.lastCapturer,
      scores: [this.scores[0], this.scores[1]],
    };
  }

  /** The compact text form (what is stored and sent), as the server writes it. */
  toText() {
    return asciiJSON(this.toJSON());
  }

  /** Equal positions: the same in everything but pile ids. @param {Position} other */
  equals(other) {
    return (
      this.hands.length === other.hands.length &&
      this.hands.every((hand, i) => sameCards(hand, other.hands[i])) &&
      sameCards(this.cards, other.cards) &&
      this.piles.length === other.piles.length &&
      this.piles.every((pile, i) => pile.equals(other.piles[i])) &&
      this.turn === other.turn &&
      this.dealer === other.dealer &&
      sameCards(this.deck, other.deck) &&
      sameCards(this.captured[0], other.captured[0]) &&
      sameCards(this.captured[1], other.captured[1]) &&
      this.limpias[0] === other.limpias[0] &&
      this.limpias[1] === other.limpias[1] &&
      this.lastCapturer === other.lastCapturer &&
      this.scores[0] === other.scores[0] &&
      this.scores[1] === other.scores[1]
    );
  }

  /** @param {unknown} data */
  static fromJSON(data) {
    if (!isDict(data)) throw new NotationError(`a position must be an object, not ${pyRepr(data)}`);
    for (const key of ["hands", "table", "turn"]) {
      if (!Object.prototype.hasOwnProperty.call(data, key)) {
        throw new NotationError(`position without ${pyRepr(key)}`);
      }
    }
    const rawHands = data.hands;
    if (!Array.isArray(rawHands) || !SEAT_COUNTS.includes(rawHands.length)) {
      throw new NotationError(`hands must be a list of 2 or 4 hands, not ${pyRepr(rawHands)}`);
    }
    const hands = rawHands.map((hand, i) => readCards(hand, `hands[${i}]`));
    const count = hands.length;
    const table = data.table;
    if (!isDict(table)) throw new NotationError(`table must be an object, not ${pyRepr(table)}`);
    const cards = readCards(get(table, "cards", []), "table cards");
    const rawPiles = get(table, "piles", []);
    if (!Array.isArray(rawPiles)) {
      throw new NotationError(`table piles must be a list, not ${pyRepr(rawPiles)}`);
    }
    const piles = rawPiles.map((p) => Pile.fromJSON(p));
    const turn = readPlayer(data.turn, "turn", count);
    const dealer = readPlayer(get(data, "dealer", firstDealer(count)), "dealer", count);
    const deck = readCards(get(data, "deck", []), "deck");
    const captured = readTwo(get(data, "captured", [[], []]), "captured", readCards);
    const limpias = readTwo(get(data, "limpias", [0, 0]), "limpias", readCount);
    const scores = readTwo(get(data, "scores", [0, 0]), "scores", readCount);
    const last = get(data, "last_capturer");
    const lastCapturer = last === null ? null : readPlayer(last, "last_capturer", count);
    const position = new Position({
      hands,
      cards,
      piles,
      turn,
      dealer,
      deck,
      captured,
      limpias,
      lastCapturer,
      scores,
    });
    position.check();
    return position;
  }

  /** Reads the text form (JSON); what is not a string is not JSON either. @param {unknown} text */
  static parse(text) {
    /** @type {unknown} */
    let data;
    try {
      if (typeof text !== "string") throw new TypeError("not a string");
      data = JSON.parse(text);
    } catch {
      throw new NotationError(`position is not JSON: ${pyRepr(text)}`);
    }
    return Position.fromJSON(data);
  }

  /** Throws NotationError if this position cannot happen. */
  check() {
    const count = this.hands.length;
    if (!SEAT_COUNTS.includes(count)) throw new NotationError(`a position has 2 or 4 hands, not ${count}`);
    for (const pile of this.piles) {
      if (!seatsOf(count).includes(pile.owner)) {
        throw new NotationError(`pile ${pile.id}: bad owner ${pyRepr(pile.owner)} (not a player here)`);
      }
    }
    const seen = new Set();
    for (const card of this.allCards()) {
      if (seen.has(card)) throw new NotationError(`card ${card.code} appears twice`);
      seen.add(card);
    }
    const ids = new Set();
    for (const pile of this.piles) {
      if (ids.has(pile.id)) throw new NotationError(`pile id ${pyRepr(pile.id)} appears twice`);
      if (CODES.has(pile.id)) throw new NotationError(`pile id ${pyRepr(pile.id)} is a card code`);
      ids.add(pile.id);
    }
  }

  /** @returns {Card[]} */
  allCards() {
    return [
      ...this.hands.flat(),
      ...this.cards,
      ...this.piles.flatMap((p) => p.cards),
      ...this.deck,
      ...this.captured.flat(),
    ];
  }

  get tableEmpty() {
    return !this.cards.length && !this.piles.length;
  }

  /** Every hand and the deck are empty: the hand (mano) is finished. */
  get handOver() {
    return !this.deck.length && this.hands.every((hand) => !hand.length);
  }
}

// -- pile arithmetic ----------------------------------------------------------

/**
 * Whether `cards` can form a simple (sum) or double (>= 2 groups) pile of `value`.
 * @param {Cards} cards @param {number} value @param {boolean} double
 */
export function pileCardsMakeValue(cards, value, double) {
  if (cards.length < 2) return false;
  if (!double) return cards.reduce((sum, c) => sum + c.value, 0) === value;
  const sorted = [...cards].sort((a, b) => compareCards(b, a));
  return groupsPossible(sorted, value) >= 2;
}

/**
 * The number of groups of a partition of `cards` into groups worth `value`, or 0.
 * @param {Card[]} cards @param {number} value @returns {number}
 */
function groupsPossible(cards, value) {
  if (!cards.length) return 0;
  const [first, ...rest] = cards;
  // a lone card worth the value (a lone ace worth 14)
  if (first.value === value || (first.rank === 1 && value === 14)) {
    if (!rest.length) return 1;
    const more = groupsPossible(rest, value);
    if (more) return more + 1;
  }
  // the first card together with some of the others, summing to value
  for (const subset of subsetsSumming(rest, value - first.value, 0)) {
    const remaining = rest.filter((_, i) => !subset.has(i));
    if (!remaining.length) return 1;
    const more = groupsPossible(remaining, value);
    if (more) return more + 1;
  }
  return 0;
}

/**
 * @param {Card[]} cards @param {number} target @param {number} start
 * @returns {Generator<Set<number>>}
 */
function* subsetsSumming(cards, target, start) {
  if (target <= 0) return;
  for (let i = start; i < cards.length; i++) {
    const v = cards[i].value;
    if (v === target) yield new Set([i]);
    else if (v < target) {
      for (const rest of subsetsSumming(cards, target - v, i + 1)) yield new Set([i, ...rest]);
    }
  }
}

// -- JSON helpers ---------------------------------------------------------------

const CODES = new Set(DECK.map((card) => card.code));
const ANY_SEAT = seatsOf(Math.max(...SEAT_COUNTS)); // a pile's owner, before the position is known

/** @param {readonly Card[]} cards */
const codesOf = (cards) => cards.map((c) => c.code);

/** @param {unknown} value @param {string} what @returns {Card[]} */
function readCards(value, what) {
  if (!Array.isArray(value)) throw new NotationError(`${what} must be a list of cards, not ${pyRepr(value)}`);
  return value.map(parseCard);
}

/** @param {unknown} value @param {string} what @param {number} count @returns {number} */
function readPlayer(value, what, count) {
  if (!isInt(value) || !seatsOf(count).includes(value)) {
    const players = count > 2 ? `from 0 to ${count - 1}` : seatsOf(count).join(" or ");
    throw new NotationError(`${what} must be player ${players}, not ${pyRepr(value)}`);
  }
  return value;
}

/** @param {unknown} value @param {string} what */
function readCount(value, what) {
  if (typeof value === "bigint" && value > 0n) {
    // Python takes whole numbers of any size; this engine counts in doubles
    throw new NotationError(`${what} is too large a number for this engine: ${pyRepr(value)}`);
  }
  if (!isInt(value) || value < 0) throw new NotationError(`${what} must be a whole number, not ${pyRepr(value)}`);
  if (!Number.isSafeInteger(value)) {
    throw new NotationError(`${what} is too large a number for this engine: ${pyRepr(value)}`);
  }
  return value;
}

/**
 * @template T
 * @param {unknown} value @param {string} what @param {(v: unknown, what: string) => T} read
 * @returns {[T, T]}
 */
function readTwo(value, what, read) {
  // one entry per team: there are always two teams
  if (!Array.isArray(value) || value.length !== TEAMS.length) {
    throw new NotationError(`${what} must be a list of two, not ${pyRepr(value)}`);
  }
  return [read(value[0], `${what}[0]`), read(value[1], `${what}[1]`)];
}

/** `json.dumps(data, separators=(",", ":"))`: compact, every non-ASCII character escaped. @param {unknown} data */
export function asciiJSON(data) {
  return JSON.stringify(data).replace(
    /[\u0080-\uffff]/g,
    (ch) => "\\u" + ch.charCodeAt(0).toString(16).padStart(4, "0"),
  );
}
