// Seats and teams (server/engine/seats.py): how many seats a game has, whose turn comes
// next, a seat's team and the other team (RULES.md 9.1; NOTATION.md, Position). The one
// place where seat arithmetic is written, for the engine and for the page alike: it
// imports nothing, so a screen that imports it loads no rule.
//
// A game has two seats (each its own team) or four (two against two, partners opposite).
// A seat's team is its number mod 2; there are always two teams.

/** The games there are: one against one, two against two. */
export const SEAT_COUNTS = Object.freeze([2, 4]);
/** Always two teams. */
export const TEAMS = Object.freeze([0, 1]);

/** Every seat of a game of `count` seats, in the order of play. @param {number} count */
export const seatsOf = (count) => Array.from({ length: count }, (_, seat) => seat);

/** The seat that plays after `seat`. @param {number} seat @param {number} count */
export const nextSeat = (seat, count) => (seat + 1) % count;

/** The team a seat plays for (with two seats: the seat itself). @param {number} seat */
export const teamOf = (seat) => seat % TEAMS.length;

/** The team that is not `team`. @param {number} team */
export const otherTeam = (team) => (team + 1) % TEAMS.length;

/** The seats of `team`, in the order of play. @param {number} team @param {number} count */
export const teamSeats = (team, count) => seatsOf(count).filter((seat) => teamOf(seat) === team);

/** Every seat but `seat`, in the order of play after it. @param {number} seat @param {number} count */
export const others = (seat, count) =>
  Array.from({ length: count - 1 }, (_, k) => (seat + k + 1) % count);

/** The seats of the other team, in the order of play after `seat`. @param {number} seat @param {number} count */
export const rivals = (seat, count) => others(seat, count).filter((s) => teamOf(s) !== teamOf(seat));

/** The seat across the table on the same team (null with two seats). @param {number} seat @param {number} count */
export function partner(seat, count) {
  const mate = others(seat, count).find((s) => teamOf(s) === teamOf(seat));
  return mate === undefined ? null : mate;
}

/** Who deals a match's first hand: the last seat, so seat 0 plays first. @param {number} count */
export const firstDealer = (count) => count - 1;
