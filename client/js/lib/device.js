// What this device remembers: every seat it holds (Mis partidas), the seat of the game being
// played, the player's name and the hints switch. Everything lives in localStorage; a
// private window simply starts fresh.

const KEY_SESSION = "casino.session"; // the seat of the game being played (or last played)
const KEY_SEATS = "casino.asientos"; // every seat held: [{room, seat, token, since, mode, …}]
const KEY_NAME = "casino.nombre";
const KEY_HINTS = "casino.ayudas";
const KEY_ANIM = "casino.animMs";
// Mis partidas asks for all of this device's seats in one request, and POST /api/my-games
// takes at most 30 tokens (docs/protocol.md): the device keeps the 30 it used last
const MAX_SEATS = 30;

function read(key) {
  try {
    return window.localStorage.getItem(key);
  } catch {
    return null;
  }
}

function write(key, value) {
  try {
    if (value === null || value === undefined) window.localStorage.removeItem(key);
    else window.localStorage.setItem(key, value);
  } catch {
    // storage full or blocked: the game still works, it just will not be remembered
  }
}

function validSeat(data) {
  return Boolean(data && typeof data.token === "string" && data.token);
}

/** The session to keep from a create/join/rejoin answer; `extra` adds mode, invite_url, … */
export function seatFrom(data, extra = {}) {
  return { room: data.room, seat: data.seat, token: data.token, since: null, ...extra };
}

/** The saved seat: {room, seat, token, since, mode, invite?, active?, finished?} or null
 * (`finished`: the last view of it said the match was over). */
export function loadSession() {
  const text = read(KEY_SESSION);
  if (!text) return null;
  try {
    const data = JSON.parse(text);
    if (validSeat(data)) return data;
  } catch {
    // fall through
  }
  return null;
}

/** Every seat this device holds, the most recently used first. */
export function loadSeats() {
  let seats = [];
  try {
    const data = JSON.parse(read(KEY_SEATS) || "[]");
    if (Array.isArray(data)) seats = data.filter(validSeat);
  } catch {
    seats = [];
  }
  const current = loadSession();
  if (current && !seats.some((s) => s.token === current.token)) seats.unshift(current);
  return seats;
}

function saveSeats(seats) {
  write(KEY_SEATS, JSON.stringify(seats.slice(0, MAX_SEATS)));
}

/** Keeps `session` as the seat being played, and in the list of seats (first). */
export function saveSession(session) {
  write(KEY_SESSION, session ? JSON.stringify(session) : null);
  if (!session) return;
  const others = loadSeats().filter((s) => s.token !== session.token &&
    !(s.room === session.room && s.seat === session.seat)); // a seat moved here: its new token
  saveSeats([{ ...session, used: Date.now() }, ...others]);
}

/** The seat this device holds in the room of invite `invite` (it joined or opened that
 * room with it), or null. */
export function seatForInvite(invite) {
  const code = String(invite).toUpperCase();
  return loadSeats().find((s) => typeof s.invite === "string" && s.invite.toUpperCase() === code) || null;
}

/** The server says the game of seat `token` is over: it is no longer "continued". */
export function markFinished(token) {
  const current = loadSession();
  if (current && current.token === token && !current.finished) {
    current.finished = true;
    current.active = false;
    saveSession(current);
  }
}

/** Forgets the seat being played (it is no longer valid): from the list too. */
export function clearSession() {
  const current = loadSession();
  write(KEY_SESSION, null);
  if (current) forgetSeat(current.token);
}

/** Forgets one seat (a finished game taken off the list, a token the server no longer
 * knows). */
export function forgetSeat(token) {
  saveSeats(loadSeats().filter((s) => s.token !== token));
  const current = loadSession();
  if (current && current.token === token) write(KEY_SESSION, null);
}

export function loadName() {
  return read(KEY_NAME) || "";
}

export function saveName(name) {
  write(KEY_NAME, name);
}

/** Hints are on unless the player turned them off. */
export function loadHints() {
  return read(KEY_HINTS) !== "no";
}

export function saveHints(on) {
  write(KEY_HINTS, on ? "si" : "no");
}

export const SPEEDS = { despacio: 2600, normal: 1500, rapido: 700 };

/** How long the opponent's move stays on screen, in ms (the Menú's speed; tests use 0). */
export function loadAnimMs(reducedMotion) {
  const text = read(KEY_ANIM);
  if (text !== null && /^\d+$/.test(text)) return Number(text);
  return reducedMotion ? 1100 : SPEEDS.normal;
}

export function saveAnimMs(ms) {
  write(KEY_ANIM, String(ms));
}

const KEY_MUTE = "casino.silenciarReacciones";

/** Whether this device hides the quick reactions of others (the player asked for it). */
export function loadMuted() {
  return read(KEY_MUTE) === "si";
}

export function saveMuted(on) {
  write(KEY_MUTE, on ? "si" : "no");
}

const KEY_ALERTS = "casino.avisos";

/** Whether the player asked for a system notification when it is their turn. */
export function loadAlerts() {
  return read(KEY_ALERTS) === "si";
}

export function saveAlerts(on) {
  write(KEY_ALERTS, on ? "si" : "no");
}
