// Cards as the player sees and hears them: the big rank and suit, red or black, and the
// Spanish name a screen reader says ("nueve de picas", "montón doble de 8, tuyo").

const RANKS = { A: 1, J: 11, Q: 12, K: 13 };
const RANK_NAMES = [
  "", "as", "dos", "tres", "cuatro", "cinco", "seis", "siete", "ocho", "nueve", "diez",
  "jota", "reina", "rey",
];
const SUIT_NAMES = { s: "picas", h: "corazones", d: "diamantes", c: "tréboles" };
const SUIT_SYMBOLS = { s: "♠", h: "♥", d: "♦", c: "♣" };

export function parseCard(code) {
  const suit = code.slice(-1);
  const rankText = code.slice(0, -1);
  const rank = RANKS[rankText] ?? Number(rankText);
  return { code, rank, rankText, suit };
}

export function cardName(code) {
  const { rank, suit } = parseCard(code);
  return `${RANK_NAMES[rank]} de ${SUIT_NAMES[suit]}`;
}

/** "el nueve de picas", "la reina de corazones", "el as de tréboles". */
export function cardNameWithArticle(code) {
  const { rank } = parseCard(code);
  return (rank === 12 ? "la " : "el ") + cardName(code);
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

/** Who a pile belongs to, in words, from the point of view of `seat`. */
function ownerWords(owner, seat, opponentName) {
  return owner === seat ? "tuyo" : `de ${opponentName}`;
}

export function pileName(pile, seat, opponentName) {
  const kind = pile.double ? "montón doble" : "montón";
  return `${kind} de ${pile.value}, ${ownerWords(pile.owner, seat, opponentName)}`;
}

/** The visible title of a pile: "Tu montón de 8", "Montón doble de la computadora". */
export function pileTitle(pile, seat, opponentName) {
  const doble = pile.double ? " doble" : "";
  if (pile.owner === seat) return `Tu montón${doble} de ${pile.value}`;
  return `Montón${doble} de ${opponentName}`;
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

export function cardBack({ small = true } = {}) {
  const el = document.createElement("div");
  el.className = `card back${small ? " small" : ""}`;
  el.setAttribute("aria-hidden", "true");
  return el;
}
