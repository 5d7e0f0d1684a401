// How la mesa speaks of the people at it, from the seat's view: "tú", the opponent's name
// ("la computadora", "tu amigo" before the friend has a name), and whose turn it is.

import { capitalize } from "../../lib/dom.js";
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
  if (!view) return "tu contrincante";
  if (view.opponent && view.opponent.kind === "computer") return "la computadora";
  return view.names[opponentSeat(view)] || "tu amigo";
}

/** The opponent where a sentence starts: "La computadora", "Beto". */
export function opponentCapitalized(view) {
  return capitalize(opponentName(view));
}

/** For narrow labels (score boxes, table headers). */
export function shortOpponentName(view) {
  if (view && view.opponent && view.opponent.kind === "computer") return "Computadora";
  return opponentCapitalized(view);
}

export function myTurn(view) {
  return Boolean(view && view.status === "playing" && view.turn === view.seat && view.options.length > 0);
}

export function turnWords(view) {
  if (!view) return "";
  if (view.status === "waiting") return "Esperando a que llegue tu amigo.";
  if (view.status === "finished") return "La partida terminó.";
  return view.turn === view.seat ? "Te toca." : `Le toca a ${opponentName(view)}.`;
}
