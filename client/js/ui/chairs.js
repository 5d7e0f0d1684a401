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
  // a person who gave no name (a room's summary says `named: false` and the seat)
  if (chair.name && chair.named === false && chair.seat !== undefined) return t("watch.player", { n: chair.seat + 1 });
  return chair.name || missing;
}

/**
 * The name of `seat` as a screen shows it, from the stored `name` and the seat's `player`
 * ({kind, chair, named}: the view's `players`, Mis partidas'): the name its person gave; a
 * seat nobody named in this language's words ("Jugador 2", "Player 2": the server stores a
 * Spanish default, and says `named: false`), the computer's chair as "Computadora",
 * "Computer"; null when nobody sat there yet.
 */
export function shownName(name, seat, player) {
  if (name === null || name === undefined) return null;
  if (!player || player.named !== false) return name;
  const computer = player.chair ? player.chair === "computer" : player.kind === "computer";
  return computer ? t("names.computer_short") : t("watch.player", { n: seat + 1 });
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
