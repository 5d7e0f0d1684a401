// The explanations of a refused move (server/engine/moves.py, the end of it): a code and its
// arguments, which the catalogs word for a player (ui/reasons.js), and a Spanish sentence for
// developers (the rules oracle's answer), naming cards by their rank.

import { MAX_VALUE } from "./cards.js";
import { IllegalMove } from "./errors.js";

/** @typedef {import("./cards.js").Card} Card */
/** @typedef {import("./position.js").Position} Position */
/** @typedef {import("./moves.js").Table} Table */

/** @type {Record<number, string>} */
const SHORT_ES = { 1: "el as", 11: "la jota", 12: "la reina", 13: "el rey" };

/** `el 5`, `el as`, `la reina`: how a player names a card by its rank. @param {Card} card */
export function shortEs(card) {
  return SHORT_ES[card.rank] ?? `el ${card.rank}`;
}

/** @param {number} value */
export function valueEs(value) {
  return value === MAX_VALUE ? "14 (con un as)" : String(value);
}

/** @param {Position} position @param {Table} table @param {Card} card */
export function trailError(position, table, card) {
  if (position.piles.some((pile) => pile.owner === position.turn)) {
    return new IllegalMove(
      "trail_owns_pile",
      "No puedes echar una carta mientras tengas un montón en la mesa: llévatelo o construye.",
    );
  }
  const mask = table.rankMask(card.rank);
  const pair = table.cards[31 - Math.clz32(mask & -mask)]; // the first on the table
  return new IllegalMove(
    "trail_pairs",
    `No puedes echar ${shortEs(card)}: hace pareja con ${shortEs(card)} de la mesa.`,
    { card: card.code, pair: pair.code },
  );
}

/** @param {Table} table @param {Card} card @param {number} mask */
export function captureError(table, card, mask) {
  if (!mask) return new IllegalMove("capture_empty", "Escoge lo que te vas a llevar de la mesa.");
  const value = card.captureValue;
  const missing = (table.rankMask(card.rank) | table.pilesOfValue(value)) & ~mask;
  if (missing) {
    const names = [];
    const items = [];
    for (let i = 0; i < table.items.length; i++) {
      if ((missing >> i) & 1) {
        names.push(itemEs(table, i));
        items.push(item(table, i));
      }
    }
    return new IllegalMove(
      "capture_must_take",
      `Con ${shortEs(card)} tienes que llevarte también ${names.join(", ")}: ` +
        "las parejas y los montones de su valor siempre se llevan.",
      { card: card.code, items },
    );
  }
  return new IllegalMove(
    "capture_bad_sum",
    `Con ${shortEs(card)} solo te llevas parejas, montones de ${value} y cartas que sumen ${value}.`,
    { card: card.code, value },
  );
}

/**
 * @param {Position} position @param {Table} table @param {Card} card @param {number} mask
 * @param {number} value @param {readonly Card[]} rest
 */
export function buildError(position, table, card, mask, value, rest) {
  const seat = position.turn;
  if (!(value >= 2 && value <= MAX_VALUE)) return new IllegalMove("build_value", "Un montón vale de 2 a 14.");
  if (!mask) return new IllegalMove("build_empty", "Escoge las cartas de la mesa para tu montón.");
  // a pile the move tries to raise: the raise itself is what is not allowed
  for (const [j, pile] of table.piles.entries()) {
    if (mask & table.pileBit(j) && pile.value !== value) {
      if (pile.double) return new IllegalMove("build_raise_double", "Un montón doble no se puede subir.");
      if (pile.owner === seat) return new IllegalMove("build_raise_own", "No puedes subir tu propio montón.");
    }
  }
  const held = new Set(rest.map((c) => c.captureValue));
  if (!held.has(value)) {
    const need = value === MAX_VALUE ? "un as" : `un ${value}`;
    return new IllegalMove(
      "build_no_card",
      `Para hacer un montón de ${value} tienes que quedarte con ${need} en la mano.`,
      { value },
    );
  }
  for (const [j, pile] of table.piles.entries()) {
    if (pile.owner === seat && !(table.pileBit(j) & mask) && !held.has(pile.value)) {
      return new IllegalMove(
        "build_strands_pile",
        `No puedes dejar tu montón de ${pile.value} sin carta para llevártelo.`,
        { value: pile.value },
      );
    }
  }
  return new IllegalMove("build_invalid", `Con esas cartas no se hace un montón de ${valueEs(value)}.`, { value });
}

/** A table item as a refusal's arguments name it: a card by its code, a pile by its value.
 * @param {Table} table @param {number} index @returns {string | number} */
function item(table, index) {
  if (index < table.n) return table.cards[index].code;
  return table.piles[index - table.n].value;
}

/** @param {Table} table @param {number} index */
function itemEs(table, index) {
  if (index < table.n) return shortEs(table.cards[index]);
  return `el montón de ${table.piles[index - table.n].value}`;
}
