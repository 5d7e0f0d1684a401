// The chairs of a table of four in words, wherever they are spoken of before or beside la
// mesa (the invitation, the waiting table, Mis partidas): who sits in a chair, a list of
// names ("Beto y la computadora"), and a chair's place as seen from one seat ("Tu pareja",
// "Rival") or from the one who invites ("Pareja de Ana").

import { language, t } from "../lib/i18n.js";
import { teamOf } from "../engine/seats.js";
import { levelName } from "./texts.js";

/** "Ana", "Beto y la computadora", "Ana, Beto y Caro" (the language's own way). */
export function listWords(words) {
  try {
    return new Intl.ListFormat(language(), { style: "long", type: "conjunction" }).format(words);
  } catch {
    return words.join(", ");
  }
}

/** "la computadora (Normal)", or "la computadora" when its level is not known. */
export function computerWords(level) {
  return level ? t("games.vs_computer", { level: levelName(level) }) : t("games.computer");
}

/**
 * Who sits in a chair, inside a sentence: the person's name, the computer with its level,
 * or `missing` (a friend's chair nobody sat in yet). `chair`: {name, kind, level}.
 */
export function whoSits(chair, missing = t("chairs.someone")) {
  if (chair.kind === "computer") return computerWords(chair.level);
  return chair.name || missing;
}

/** A chair's place as seen from `seat`: "you", "partner" or "rival". */
export function placeFrom(seat, chair) {
  if (chair === seat) return "you";
  return teamOf(chair) === teamOf(seat) ? "partner" : "rival";
}

/** "Tú", "Tu pareja", "Rival": a chair's place as seen from `seat`. */
export function placeWords(seat, chair) {
  const place = placeFrom(seat, chair);
  if (place === "you") return t("chairs.you");
  return place === "partner" ? t("chairs.partner") : t("chairs.rival");
}
