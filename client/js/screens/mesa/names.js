// How la mesa speaks of the people at it, from the seat's view: "tú", the opponent's name
// ("la computadora", "tu amigo" before the friend has a name), and whose turn it is.

import { capitalize } from "../../lib/dom.js";
import { t } from "../../lib/i18n.js";
import { rivals } from "../../engine/seats.js";

/** The opponent's seat: the first rival to play after mine (with two seats, the one
 * opponent, the seat the view's `opponent` fields speak of). */
export function opponentSeat(view) {
  return rivals(view.seat, view.names.length)[0];
}

export function isFriendGame(view) {
  return Boolean(view && view.opponent && view.opponent.kind === "person");
}

/** The opponent inside a sentence: "la computadora", "Beto", "tu amigo". */
export function opponentName(view) {
  if (!view) return t("names.opponent");
  if (view.opponent && view.opponent.kind === "computer") return t("games.computer");
  return view.names[opponentSeat(view)] || t("games.friend");
}

/** The opponent where a sentence starts: "La computadora", "Beto". */
export function opponentCapitalized(view) {
  return capitalize(opponentName(view));
}

/** For narrow labels (score boxes, table headers). */
export function shortOpponentName(view) {
  if (view && view.opponent && view.opponent.kind === "computer") return t("names.computer_short");
  return opponentCapitalized(view);
}

export function myTurn(view) {
  return Boolean(view && view.status === "playing" && view.turn === view.seat && view.options.length > 0);
}

export function turnWords(view) {
  if (!view) return "";
  if (view.status === "waiting") return t("turn.waiting");
  if (view.status === "finished") return t("turn.over");
  return view.turn === view.seat ? t("turn.mine") : t("turn.theirs", { name: opponentName(view) });
}
