// What happened at the table, in words: a move as said (card names, for the live region) or
// as shown (card symbols; as a line with card chips), and the other events of a match. One
// copy for la mesa, the watcher's page and the replay; each says who moved its own way.

import { otherTeam } from "../engine/seats.js";
import { capitalize, h } from "../lib/dom.js";
import { language, parts, t } from "../lib/i18n.js";
import { cardName, cardNameWithArticle, cardShort, chip, pileShort } from "./cards.js";

/** A count with its noun, from a plural text of the catalog ("1 carta", "3 cartas"). */
export function plural(n, key) {
  return t(key, { n });
}

/**
 * Who made a move, for the sentences below:
 * - `who`: the mover's name as a sentence starts ("Ana", "La computadora"), or null when it
 *   is this device's own seat ("Jugaste…");
 * - `forMe`: the computer played this device's seat while its player was away;
 * - `table`: the table after the move (a build says whether its pile is a double one).
 * @typedef {{who?: string|null, forMe?: boolean, table?: {piles: object[]}|null}} Mover
 */

/** A move's sentence key and its pieces: who, the card played, the pile it made, the cards
 * it took, whether it was a limpia. */
function pieces(event, { who = null, forMe = false, table = null }) {
  const m = event.move;
  const kind = ["capture", "build", "trail"].includes(m.kind) ? m.kind : "trail";
  const mine = who === null && !forMe;
  const key = `move.${kind}.${forMe ? "for_me" : mine ? "me" : "them"}`;
  const parts = { key, who: forMe ? t("words.computer") : who, card: m.card, taken: [], limpia: false,
    pile: "" };
  if (m.kind === "capture") {
    parts.taken = (event.taken || []).filter((c) => c !== m.card);
    parts.limpia = Boolean(event.limpia);
  } else if (m.kind === "build") {
    const pile = (table?.piles || []).find((p) => p.cards.includes(m.card));
    parts.pile = pileShort({ value: m.value, double: Boolean(pile?.double) });
  }
  return parts;
}

/** The move as a sentence: said (`spoken`: "Ana jugó el nueve de picas y se llevó nueve de
 * diamantes.") or written with symbols ("Ana jugó 9♠ y se llevó 9♦."). */
export function moveSentence(event, mover, spoken = true) {
  const p = pieces(event, mover);
  const card = spoken ? cardNameWithArticle(p.card) : cardShort(p.card);
  const taken = new Intl.ListFormat(language(), { type: "conjunction" })
    .format(p.taken.map((c) => (spoken ? cardName(c) : cardShort(c))));
  const move = t(p.key, { who: p.who, card, taken, pile: p.pile });
  return t("move.sentence", { move }) + (p.limpia ? " " + t("move.limpia") : "");
}

/** The move as the last-move line shows it: the sentence for screen readers, and the same
 * with card chips for the eyes. */
export function moveLine(event, mover) {
  const p = pieces(event, mover);
  const taken = [];
  p.taken.forEach((c, i) => taken.push(...(i ? [" "] : []), chip(c)));
  const nodes = parts(p.key, { who: h("span", { class: "who" }, p.who || ""), card: chip(p.card),
    taken, pile: p.pile });
  if (p.limpia) nodes.push(h("strong", { class: "limpia" }, " " + t("move.limpia")));
  return [h("span", { class: "sr-only" }, moveSentence(event, mover, true)),
    h("span", { "aria-hidden": "true" }, nodes)];
}

/** "Se repartieron cuatro cartas más a cada uno." */
export function dealWords() {
  return t("words.deal");
}

/** "¡Revancha! Empieza otra partida." */
export function rematchWords() {
  return t("words.rematch");
}

/** "Empieza la mano 2." */
export function newHandWords(event) {
  return t("words.new_hand", { n: event.hand_number + 1 });
}

/** The end of a hand told by a third person (`names`: both seats as a sentence says them;
 * `teams`: both teams of a table of four, "Ana y Beto"):
 * "Fin de la mano 1. Ana sumó 3, la computadora 4. En la partida: Ana 3, la computadora 4." */
export function handEndWords(event, names, teams = false) {
  const r = event.result;
  const gained = (i) => r.scores[i] - r.scores_before[i];
  return t(teams ? "words.hand_end_teams" : "words.hand_end", { hand: event.hand_number + 1, first: capitalize(names[0]),
    second_first: names[0], second: names[1], gained0: gained(0), gained1: gained(1),
    score0: r.scores[0], score1: r.scores[1] });
}

/** "¡Ana ganó la partida, 21 a 16!" (`teams`: "¡Ana y Beto ganaron…!") */
export function matchEndWords(event, names, teams = false) {
  const w = event.winner;
  if (w === null || w === undefined) return t("words.match_over");
  return t(teams ? "words.match_won_teams" : "words.match_won", { winner: capitalize(names[w]), won: event.scores[w],
    lost: event.scores[otherTeam(w)] });
}

/** Web Push ("te toca" with the app closed): every word the client says about it, in one
 * place (the server words the pushes themselves: server/push/texts.py). */
export const PUSH_WORDS = {
  get offer() { return t("push.offer"); },
  get offerWhy() { return t("push.offer_why"); },
  get yes() { return t("push.yes"); },
  get no() { return t("push.no"); },
  get asking() { return t("push.asking"); },
  get on() { return t("push.on"); },
  get off() { return t("push.off"); },
  get denied() { return t("push.denied"); },
  get failed() { return t("push.failed"); },
  get switchLabel() { return t("push.switch_label"); },
  get switchNote() { return t("push.switch_note"); },
  get gameWord() { return t("push.game_word"); },
  gameOf: (name) => t("push.game_of", { name }),
  yesNo: (on) => (on ? t("menu.yes") : t("menu.no")),
};
