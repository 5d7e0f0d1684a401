// What happened at the table, in words: a move as said (card names, for the live region) or
// as shown (card symbols; as a line with card chips), and the other events of a match. One
// copy for la mesa, the watcher's page and the replay; each says who moved its own way.

import { otherTeam } from "../engine/seats.js";
import { capitalize, h } from "../lib/dom.js";
import { cardName, cardNameWithArticle, cardShort, chip, pileShort } from "./cards.js";

/** "1 carta", "3 cartas". */
export function plural(n, one, many) {
  return `${n} ${n === 1 ? one : many}`;
}

/**
 * Who made a move, for the sentences below:
 * - `who`: the mover's name as a sentence starts ("Ana", "La computadora"), or null when it
 *   is this device's own seat ("Jugaste…");
 * - `forMe`: the computer played this device's seat while its player was away;
 * - `table`: the table after the move (a build says whether its pile is a double one).
 * @typedef {{who?: string|null, forMe?: boolean, table?: {piles: object[]}|null}} Mover
 */

const VERBS = { capture: ["Jugaste", "jugó"], build: ["Pusiste", "puso"], trail: ["Echaste", "echó"] };

/** A move cut into its pieces: who and the verb, the card played, what it did (said and
 * shown), the cards it took. */
function pieces(event, { who = null, forMe = false, table = null }) {
  const m = event.move;
  const mine = who === null && !forMe;
  const [ours, theirs] = VERBS[m.kind] || VERBS.trail;
  const subject = forMe ? "La computadora" : mine ? null : who;
  const forYou = forMe ? " por ti" : "";
  const parts = { subject, verb: mine ? ours : theirs, card: m.card, taken: [], limpia: false };
  if (m.kind === "capture") {
    const took = mine ? " y te llevaste" : " y se llevó";
    parts.taken = (event.taken || []).filter((c) => c !== m.card);
    parts.limpia = Boolean(event.limpia);
    parts.said = parts.shown = forYou + took;
  } else if (m.kind === "build") {
    const pile = (table?.piles || []).find((p) => p.cards.includes(m.card));
    const made = pileShort({ value: m.value, double: Boolean(pile?.double) });
    parts.said = `${forYou} e ${mine ? "hiciste" : "hizo"} un ${made}`;
    parts.shown = `${forYou}: ${made}`;
  } else {
    parts.said = parts.shown = forMe ? forYou : " a la mesa";
  }
  return parts;
}

/** The move as a sentence: said (`spoken`: "Ana jugó el nueve de picas y se llevó nueve de
 * diamantes.") or written with symbols ("Ana jugó 9♠ y se llevó 9♦."). */
export function moveSentence(event, mover, spoken = true) {
  const p = pieces(event, mover);
  const card = spoken ? cardNameWithArticle(p.card) : cardShort(p.card);
  const taken = p.taken.map((c) => (spoken ? cardName(c) : cardShort(c))).join(", ");
  const start = p.subject ? `${p.subject} ${p.verb}` : p.verb;
  return `${start} ${card}${p.said}${taken ? " " + taken : ""}.` + (p.limpia ? " ¡Limpia!" : "");
}

/** The move as the last-move line shows it: the sentence for screen readers, and the same
 * with card chips for the eyes. */
export function moveLine(event, mover) {
  const p = pieces(event, mover);
  const nodes = p.subject ? [h("span", { class: "who" }, p.subject), ` ${p.verb} `] : [`${p.verb} `];
  nodes.push(chip(p.card), p.shown);
  p.taken.forEach((c) => nodes.push(" ", chip(c)));
  if (p.limpia) nodes.push(h("strong", { class: "limpia" }, " ¡Limpia!"));
  return [h("span", { class: "sr-only" }, moveSentence(event, mover, true)),
    h("span", { "aria-hidden": "true" }, nodes)];
}

export const DEAL_WORDS = "Se repartieron cuatro cartas más a cada uno.";
export const REMATCH_WORDS = "¡Revancha! Empieza otra partida.";

/** "Empieza la mano 2." */
export function newHandWords(event) {
  return `Empieza la mano ${event.hand_number + 1}.`;
}

/** The end of a hand told by a third person (`names`: both seats as a sentence says them):
 * "Fin de la mano 1. Ana sumó 3, la computadora 4. En la partida: Ana 3, la computadora 4." */
export function handEndWords(event, names) {
  const r = event.result;
  const gained = (i) => r.scores[i] - r.scores_before[i];
  return `Fin de la mano ${event.hand_number + 1}. ${capitalize(names[0])} sumó ${gained(0)}, ` +
    `${names[1]} ${gained(1)}. En la partida: ${names[0]} ${r.scores[0]}, ${names[1]} ${r.scores[1]}.`;
}

/** "¡Ana ganó la partida, 21 a 16!" */
export function matchEndWords(event, names) {
  const w = event.winner;
  if (w === null || w === undefined) return "La partida terminó.";
  return `¡${capitalize(names[w])} ganó la partida, ${event.scores[w]} a ${event.scores[otherTeam(w)]}!`;
}

/** Web Push ("te toca" with the app closed): every word the client says about it, in one
 * place (the server words the pushes themselves: server/push/texts.py). */
export const PUSH_WORDS = {
  offer: "¿Te avisamos cuando te toque?",
  offerWhy: "Es una partida por turnos: te mandamos un aviso a este teléfono cuando sea tu turno, aunque tengas la aplicación cerrada.",
  yes: "Sí, avísame",
  no: "Ahora no",
  asking: "Pidiendo permiso al navegador…",
  on: "Listo: te avisamos cuando te toque.",
  off: "No te mandaremos avisos de esta partida.",
  denied: "El navegador no dejó mostrar avisos. Puedes permitirlos en sus ajustes.",
  failed: "Este navegador no pudo activar los avisos con la aplicación cerrada.",
  switchLabel: "Avisos con la app cerrada: ",
  switchNote: "Te avisamos en este teléfono cuando te toque, aunque cierres la aplicación.",
  gameWord: "Avisos",
  gameOf: (name) => ` de la partida con ${name}`,
  yesNo: (on) => (on ? "Sí" : "No"),
};
