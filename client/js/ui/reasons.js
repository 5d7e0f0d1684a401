// Why a move is refused, in the player's words: the engines' reason code and its arguments
// (engine/errors.js IllegalMove: a card as its NOTATION code, a list of table items, a card's
// code or a pile's value, a number) worded from the catalog's reason.* (docs/protocol.md,
// "error"); the server words the same code and arguments the same way
// (server/i18n reason_text).

import { has, language, t } from "../lib/i18n.js";
import { cardNameWithArticle } from "./cards.js";

const CARD = /^(A|[2-9]|10|J|Q|K)[shdc]$/;

/** An argument as a sentence says it: a card by its name, a list of table items as a list. */
function said(value) {
  if (typeof value === "string") return CARD.test(value) ? cardNameWithArticle(value) : value;
  if (Array.isArray(value)) {
    const items = value.map((item) => (typeof item === "number" ? t("reason.pile", { value: item }) : String(said(item))));
    return new Intl.ListFormat(language(), { type: "conjunction" }).format(items);
  }
  return value;
}

/** The catalog's key of a refusal: reason.<code>, or reason.<code>.<value> where the value
 * has words of its own (a pile of 14 is an ace's). */
export function reasonKey(code, args = {}) {
  const value = args.value;
  return typeof value === "number" && has(`reason.${code}.${value}`) ? `reason.${code}.${value}` : `reason.${code}`;
}

/** Whether the catalog words the refusal `code`. */
export function hasReason(code) {
  return has(`reason.${code}`);
}

/** A refused move's reason from its code and arguments ({card: "10d"}, {items: ["5h", 5]},
 * {value: 14}): "You don't have the ten of diamonds in your hand." */
export function reasonText(code, args = {}) {
  /** @type {Record<string, any>} */
  const values = {};
  for (const [name, value] of Object.entries(args || {})) values[name] = said(value);
  return t(reasonKey(code, args || {}), values);
}
