// Cards as the player sees and hears them: the big rank and suit, red or black, and the
// name a screen reader says ("nueve de picas", "Tu montón doble de 8"; the catalog's card.*
// and pile.*).

import { capitalize } from "../lib/dom.js";
import { has, t } from "../lib/i18n.js";

const RANKS = { A: 1, J: 11, Q: 12, K: 13 };
const SUIT_SYMBOLS = { s: "♠", h: "♥", d: "♦", c: "♣" };

export function parseCard(code) {
  const suit = code.slice(-1);
  const rankText = code.slice(0, -1);
  const rank = RANKS[rankText] ?? Number(rankText);
  return { code, rank, rankText, suit };
}

export function cardName(code) {
  const { rank, suit } = parseCard(code);
  return t("card.name", { rank: t(`card.rank.${rank}`), suit: t(`card.suit.${suit}`) });
}

/** "el nueve de picas", "la jota de diamantes", "la reina de corazones", "el as de tréboles"
 * (la jota and la reina are feminine). */
export function cardNameWithArticle(code) {
  const { rank } = parseCard(code);
  return t(has(`card.the.${rank}`) ? `card.the.${rank}` : "card.the", { card: cardName(code) });
}

/** A compact text form for lists: "9♠", "10♦". */
export function cardShort(code) {
  const { rankText, suit } = parseCard(code);
  return rankText + SUIT_SYMBOLS[suit];
}

export function cardValue(code) {
  return parseCard(code).rank;
}

export function isRed(code) {
  const suit = code.slice(-1);
  return suit === "h" || suit === "d";
}

/** A pile in a list of table items: "montón de 8", "montón doble de 8". */
export function pileShort(pile) {
  return t(pile.double ? "pile.short_double" : "pile.short", { value: pile.value });
}

/** The visible title of a pile: "Tu montón de 8" (`seat`'s own), "Montón doble de la
 * computadora" (`ownerName`: its owner as said inside a sentence). */
export function pileTitle(pile, seat, ownerName) {
  const double = pile.double ? "_double" : "";
  if (pile.owner === seat) return t(`pile.mine${double}`, { value: pile.value });
  return capitalize(t(`pile.theirs${double}`, { owner: ownerName }));
}

/** A face-up card: a <button> (or a <div> when `interactive` is false). */
export function cardElement(code, { interactive = true, small = false, extraLabel = "" } = {}) {
  const { rankText, suit } = parseCard(code);
  const el = document.createElement(interactive ? "button" : "div");
  if (interactive) el.type = "button";
  el.className = `card ${isRed(code) ? "red" : "black"}${small ? " small" : ""}`;
  el.dataset.code = code;
  // the name starts with what the card shows ("4♦"), so voice control finds it by its label
  const label = `${cardShort(code)}, ${cardName(code)}` + (extraLabel ? `, ${extraLabel}` : "");
  if (interactive) el.setAttribute("aria-label", label);
  else {
    el.setAttribute("role", "img");
    el.setAttribute("aria-label", label);
  }
  const span = (className, text) => {
    const node = document.createElement("span");
    node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  };
  const corner = span("corner");
  corner.setAttribute("aria-hidden", "true");
  corner.append(span("rank", rankText), span("suit", SUIT_SYMBOLS[suit] || "?"));
  const pip = span("pip", SUIT_SYMBOLS[suit] || "?");
  pip.setAttribute("aria-hidden", "true");
  el.append(corner, pip);
  return el;
}

/** A card inside a line of text: "9♠" on a small white chip, red or black. */
export function chip(code) {
  const el = document.createElement("span");
  el.className = "chip " + (isRed(code) ? "red" : "black");
  el.textContent = cardShort(code);
  return el;
}

export function cardBack({ small = true } = {}) {
  const el = document.createElement("div");
  el.className = `card back${small ? " small" : ""}`;
  el.setAttribute("aria-hidden", "true");
  return el;
}
