// What this device remembers: the seat in the game being played, the player's name and the
// hints switch. Everything lives in localStorage; a private window simply starts fresh.

const KEY_SESSION = "casino.session";
const KEY_NAME = "casino.nombre";
const KEY_HINTS = "casino.ayudas";
const KEY_ANIM = "casino.animMs";

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

/** The saved seat: {room, seat, token, since, mode} or null. */
export function loadSession() {
  const text = read(KEY_SESSION);
  if (!text) return null;
  try {
    const data = JSON.parse(text);
    if (data && typeof data.token === "string" && data.token) return data;
  } catch {
    // fall through
  }
  return null;
}

export function saveSession(session) {
  write(KEY_SESSION, session ? JSON.stringify(session) : null);
}

export function clearSession() {
  write(KEY_SESSION, null);
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

const KEY_ALERTS = "casino.avisos";

/** Whether the player asked for a system notification when it is their turn. */
export function loadAlerts() {
  return read(KEY_ALERTS) === "si";
}

export function saveAlerts(on) {
  write(KEY_ALERTS, on ? "si" : "no");
}
