// Cards: the 52 cards of a French deck, their text form and their values (server/engine/cards.py).

import { NotationError } from "./errors.js";
import { pyRepr } from "./pyrepr.js";

export const RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"];
export const SUITS = ["s", "h", "d", "c"]; // picas, corazones, diamantes, tréboles
export const MAX_VALUE = 14; // the most a pile or a capture is worth: an ace played, or held

/**
 * A card. There is one object per card (`DECK`), so cards compare with `===`.
 * @typedef {object} Card
 * @property {number} rank 1 (ace) to 13 (king)
 * @property {string} suit
 * @property {string} code its text: `As`, `10d`, `Qh`
 * @property {number} value in a sum: its number, the ace 1
 * @property {number} captureValue played to capture: the ace takes 14
 * @property {number} index its place in `DECK`
 */

/** @type {readonly Card[]} */
export const DECK = Object.freeze(
  SUITS.flatMap((suit, s) =>
    RANKS.map((name, r) =>
      Object.freeze({
        rank: r + 1,
        suit,
        code: name + suit,
        value: r + 1,
        captureValue: r === 0 ? 14 : r + 1,
        index: s * 13 + r,
      }),
    ),
  ),
);

/** @type {Map<string, Card>} */
const BY_CODE = new Map(DECK.map((card) => [card.code, card]));

/** Reads a card such as `As`, `10d` or `Qh`; anything else throws NotationError. @param {unknown} text */
export function parseCard(text) {
  const card = typeof text === "string" ? BY_CODE.get(text) : undefined;
  if (card === undefined) throw new NotationError(`bad card ${pyRepr(text)}`);
  return card;
}

export const TEN_OF_DIAMONDS = parseCard("10d");
export const TWO_OF_SPADES = parseCard("2s");

/** The dataclass order of cards: by rank, then suit letter. @param {Card} a @param {Card} b */
export function compareCards(a, b) {
  return a.rank - b.rank || (a.suit < b.suit ? -1 : a.suit > b.suit ? 1 : 0);
}

/** @param {readonly Card[]} cards */
export const codes = (cards) => cards.map((card) => card.code);
