// What one seat may see of a position (`viewFor(position, seat)`), and what anyone may see,
// seated or not (`publicView(position)`: a watcher's). server/engine/view.py.

import { DECK } from "./cards.js";
import { Position } from "./position.js";
import { nextSeat, others, seatsOf } from "./seats.js";

/** @typedef {import("./cards.js").Card} Card */
/** @typedef {import("./position.js").Pile} Pile */
/** @typedef {readonly Card[]} Cards */

/**
 * A seat's view: its own hand, and of every other hand only the number of cards (the
 * partner's too, RULES.md 9.1). Never another player's cards, never the order of the deck.
 * This is all a computer player is given.
 */
export class View {
  /**
   * @param {object} fields
   * @param {number} fields.seat
   * @param {Cards} fields.hand
   * @param {readonly number[]} fields.handSizes every player's number of cards, this seat's included
   * @param {Cards} fields.cards
   * @param {readonly Pile[]} fields.piles
   * @param {number} fields.turn
   * @param {number} fields.dealer
   * @param {number} fields.deckSize
   * @param {readonly [Cards, Cards]} fields.captured
   * @param {readonly [number, number]} fields.limpias
   * @param {number | null} fields.lastCapturer
   * @param {readonly [number, number]} fields.scores
   */
  constructor(fields) {
    this.seat = fields.seat;
    this.hand = fields.hand;
    this.handSizes = Object.freeze([...fields.handSizes]);
    this.cards = fields.cards;
    this.piles = fields.piles;
    this.turn = fields.turn;
    this.dealer = fields.dealer;
    this.deckSize = fields.deckSize;
    this.captured = fields.captured;
    this.limpias = fields.limpias;
    this.lastCapturer = fields.lastCapturer;
    this.scores = fields.scores;
    Object.freeze(this);
  }

  get seatCount() {
    return this.handSizes.length;
  }

  /** How many cards the next player (always an opponent) holds. */
  get opponentHandSize() {
    return this.handSizes[nextSeat(this.seat, this.seatCount)];
  }

  /** How many cards each other player holds, by seat, in the order of play after it. */
  hiddenSizes() {
    return new Map(others(this.seat, this.seatCount).map((s) => [s, this.handSizes[s]]));
  }

  /**
   * A position with what this seat knows: enough to list and check its own moves. The
   * other hands and the deck are left empty.
   */
  asPosition() {
    /** @type {Cards[]} */
    const hands = seatsOf(this.seatCount).map(() => []);
    hands[this.seat] = this.hand;
    return new Position({
      hands,
      cards: this.cards,
      piles: this.piles,
      turn: this.turn,
      dealer: this.dealer,
      deck: [],
      captured: this.captured,
      limpias: this.limpias,
      lastCapturer: this.lastCapturer,
      scores: this.scores,
    });
  }

  /** Cards this seat has not seen: the other hands and the deck, together. */
  unseen() {
    const seen = new Set([...this.hand, ...this.cards, ...this.captured[0], ...this.captured[1]]);
    for (const pile of this.piles) for (const card of pile.cards) seen.add(card);
    return DECK.filter((card) => !seen.has(card));
  }

  toJSON() {
    /** @type {Record<string, unknown>} */
    const data = {
      seat: this.seat,
      hand: this.hand.map((c) => c.code),
      opponent_hand_size: this.opponentHandSize,
      table: { cards: this.cards.map((c) => c.code), piles: this.piles.map((p) => p.toJSON()) },
      turn: this.turn,
      dealer: this.dealer,
      deck_size: this.deckSize,
      captured_counts: this.captured.map((cards) => cards.length),
      limpias: [...this.limpias],
      last_capturer: this.lastCapturer,
      scores: [...this.scores],
    };
    if (this.seatCount !== 2) data.hand_sizes = [...this.handSizes]; // the two-seat form is the wire's
    return data;
  }
}

/** @param {Position} position @param {number} seat */
export function viewFor(position, seat) {
  return new View({
    seat,
    hand: position.hands[seat],
    handSizes: position.hands.map((hand) => hand.length),
    cards: position.cards,
    piles: position.piles,
    turn: position.turn,
    dealer: position.dealer,
    deckSize: position.deck.length,
    captured: position.captured,
    limpias: position.limpias,
    lastCapturer: position.lastCapturer,
    scores: position.scores,
  });
}

/**
 * What is face up for everyone (a watcher): the table, how many cards each hand and the deck
 * hold, the counts and scores. Never a card in a hand, never the order of the deck.
 * @param {Position} position
 */
export function publicView(position) {
  return {
    hand_sizes: position.hands.map((hand) => hand.length),
    table: { cards: position.cards.map((c) => c.code), piles: position.piles.map((p) => p.toJSON()) },
    turn: position.turn,
    dealer: position.dealer,
    deck_size: position.deck.length,
    captured_counts: [position.captured[0].length, position.captured[1].length],
    limpias: [...position.limpias],
    last_capturer: position.lastCapturer,
    scores: [...position.scores],
  };
}
