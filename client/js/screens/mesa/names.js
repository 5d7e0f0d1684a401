// How la mesa speaks of the people at it, from the seat's view: "tú", the other players'
// names ("la computadora", "tu amigo" before the friend has a name; at a table of four
// "tu pareja", "la computadora de la izquierda"), whose turn it is, and where each seat sits
// around the table (docs/protocol.md, View V: `seat_count`, `hand_sizes`, `players`).

import { capitalize } from "../../lib/dom.js";
import { t } from "../../lib/i18n.js";
import { nextSeat, others, partner, rivals, teamOf } from "../../engine/seats.js";
import { shownName } from "../../ui/chairs.js";

/** How many seats the table has (2 or 4). */
export function seatCount(view) {
  return view.seat_count ?? view.hand_sizes.length;
}

export function isFour(view) {
  return Boolean(view) && seatCount(view) === 4;
}

/** Who plays `seat` now: {kind: "person"|"computer", level}. */
export function playerAt(view, seat) {
  return view.players[seat];
}

// a computer's own chair is named so by the server (server/rooms/views.py COMPUTER_NAME; no
// person may take the name): the view's `players` says who plays a seat now, and a friend the
// computer plays for while they are away reads the same there
const COMPUTER_NAME = "Computadora";

/** The chair of `seat` is a person's: a friend's (even while the computer plays for them,
 * or before they sat down), not the computer's own. */
export function personChair(view, seat) {
  const player = playerAt(view, seat);
  if (player.kind !== "computer") return true;
  if (player.chair) return player.chair === "friend"; // when the view says whose chair it is
  return Boolean(view.names?.[seat]) && view.names[seat] !== COMPUTER_NAME;
}

/** How many cards `seat` holds. */
export function handSizeOf(view, seat) {
  return view.hand_sizes[seat];
}

/** Where `seat` sits as this seat sees the table: "me", "partner" (across), "right" (plays
 * after me), "left" (plays before me). With two seats the other one is "across". */
export function sideOf(view, seat) {
  const count = seatCount(view);
  if (seat === view.seat) return "me";
  if (count === 2) return "across";
  if (seat === partner(view.seat, count)) return "partner";
  return seat === nextSeat(view.seat, count) ? "right" : "left";
}

/** The other seats as drawn around the table of four: left, across (the partner), right. */
export function seatsAround(view) {
  const count = seatCount(view);
  const [right, left] = rivals(view.seat, count);
  return { left, partner: partner(view.seat, count), right };
}

/** The opponent's seat: the first rival to play after mine (with two seats, the one
 * opponent). */
export function opponentSeat(view) {
  return rivals(view.seat, seatCount(view))[0];
}

/** Another person sits at this table (a friend game, not only computers). */
export function isFriendGame(view) {
  if (!view) return false;
  return others(view.seat, seatCount(view)).some((seat) => personChair(view, seat));
}

/** `seat` inside a sentence: "la computadora", "Beto", "tu amigo", "tu pareja",
 * "la computadora de la izquierda". */
export function seatName(view, seat) {
  if (!view) return t("names.opponent");
  const computer = !personChair(view, seat); // a friend keeps their name while the computer plays
  if (!isFour(view)) {
    if (computer) return t("games.computer");
    return shownName(view.names[seat], seat, view.players[seat]) || t("games.friend");
  }
  const side = sideOf(view, seat);
  if (side === "me") return t("names.you").toLowerCase();
  if (computer) return t(`four.computer.${side}`);
  return shownName(view.names[seat], seat, view.players[seat]) || t(`four.friend.${side}`);
}

/** `seat` where a sentence starts. */
export function seatCapitalized(view, seat) {
  return capitalize(seatName(view, seat));
}

/** `seat` in a narrow label (a panel's name). */
export function seatShort(view, seat) {
  if (personChair(view, seat)) return seatCapitalized(view, seat);
  if (!isFour(view)) return t("names.computer_short");
  return t(`four.short.${sideOf(view, seat)}`);
}

/** The opponent inside a sentence: "la computadora", "Beto", "tu amigo" (at a table of
 * four: the first rival after this seat). */
export function opponentName(view) {
  if (!view) return t("names.opponent");
  return seatName(view, opponentSeat(view));
}

/** The opponent where a sentence starts: "La computadora", "Beto". */
export function opponentCapitalized(view) {
  return capitalize(opponentName(view));
}

/** For narrow labels (score boxes, table headers): at a table of four, "Ellos". */
export function shortOpponentName(view) {
  if (isFour(view)) return t("four.them_short");
  return seatShort(view, opponentSeat(view));
}

/** The near score box's label: "Tú", or at a table of four "Nosotros". */
export function shortMyName(view) {
  return isFour(view) ? t("four.us_short") : t("names.you");
}

/** The team of this seat won (a finished match). */
export function weWon(view) {
  return view.winner === teamOf(view.seat);
}

export function myTurn(view) {
  return Boolean(view && view.status === "playing" && view.turn === view.seat && view.options.length > 0);
}

export function turnWords(view) {
  if (!view) return "";
  if (view.status === "waiting") return t("turn.waiting");
  if (view.status === "finished") return t("turn.over");
  if (view.turn === view.seat) return t("turn.mine");
  // at four "the computer on your left's turn" reads heavily: "Now playing: …"
  return t(isFour(view) ? "turn.theirs_four" : "turn.theirs", { name: seatName(view, view.turn) });
}
