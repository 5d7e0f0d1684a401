// The games played on this device with no server (Jugar sin conexión): each one kept in
// IndexedDB as it is played, as its seed and its moves (a match is its seed plus its moves),
// with the level, the match number and what Mis partidas shows. Which one is being played
// lives in localStorage beside the online seat (`casino.sinConexion`), so a reload or a new
// start of the app goes straight back to it. The seed is made here (crypto.getRandomValues):
// an offline game is the device's; an online game's deck order never reaches the device.

const DB_NAME = "casino";
const DB_VERSION = 1;
const STORE = "partidas";
const KEY_CURRENT = "casino.sinConexion"; // {id, active}
const MAX_GAMES = 20; // the oldest finished games beyond these are let go

/**
 * @typedef {object} LocalGame
 * @property {string} id
 * @property {"facil" | "normal"} level every computer's
 * @property {number} [seats] 2 (the player and the computer) or 4 (the player, a computer
 *   partner and two computer rivals); absent in games kept before tables of four: 2
 * @property {string} seed the current match's deck seed
 * @property {object[]} moves the current match's moves (NOTATION.md, Move, as JSON)
 * @property {number} match counts matches from 1 (a rematch adds one)
 * @property {number} seqBase the seq before this match's first move (a rematch takes one)
 * @property {number[]} scores the last scores seen, for Mis partidas
 * @property {string} status "playing" | "finished"
 * @property {number | null} winner
 * @property {boolean} myTurn
 * @property {number} created
 * @property {number} updated
 */

let opening = null;

function db() {
  if (!opening) {
    opening = new Promise((resolve, reject) => {
      const request = indexedDB.open(DB_NAME, DB_VERSION);
      request.onupgradeneeded = () => request.result.createObjectStore(STORE, { keyPath: "id" });
      request.onsuccess = () => resolve(request.result);
      request.onerror = () => reject(request.error);
    });
    opening.catch(() => {
      opening = null;
    });
  }
  return opening;
}

/** One transaction on the store, its request's result when it completes. */
async function run(mode, act) {
  const base = await db();
  return new Promise((resolve, reject) => {
    const tx = base.transaction(STORE, mode);
    const request = act(tx.objectStore(STORE));
    tx.oncomplete = () => resolve(request.result);
    tx.onerror = () => reject(tx.error);
    tx.onabort = () => reject(tx.error);
  });
}

/** A fresh seed of 128 random bits, as 22 characters of base64url. */
export function newSeed() {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** A new game of `seats` seats at `level`, not yet saved. @returns {LocalGame} */
export function newLocalGame(level, seats = 2) {
  const now = Date.now();
  return { id: "local-" + newSeed().slice(0, 12), level, seats, seed: newSeed(), moves: [], match: 1, seqBase: 0,
    scores: [0, 0], status: "playing", winner: null, myTurn: true, created: now, updated: now };
}

/** Keeps `game` (the whole record: it is small). */
export function saveLocalGame(game) {
  return run("readwrite", (store) => store.put({ ...game, updated: Date.now() }));
}

/** @returns {Promise<LocalGame | null>} */
export async function loadLocalGame(id) {
  try {
    return (await run("readonly", (store) => store.get(id))) || null;
  } catch {
    return null;
  }
}

/** Every offline game of this device, the most recent first (none where IndexedDB is
 * missing, as in some private windows). @returns {Promise<LocalGame[]>} */
export async function listLocalGames() {
  let games;
  try {
    games = await run("readonly", (store) => store.getAll());
  } catch {
    return [];
  }
  games.sort((a, b) => b.updated - a.updated);
  const extra = games.filter((g) => g.status === "finished").slice(MAX_GAMES);
  for (const game of extra) forgetLocalGame(game.id);
  return games.filter((g) => !extra.includes(g));
}

export function forgetLocalGame(id) {
  const current = loadCurrentLocal();
  if (current && current.id === id) saveCurrentLocal(null);
  return run("readwrite", (store) => store.delete(id)).catch(() => undefined);
}

/** The offline game being played: {id, active} or null. */
export function loadCurrentLocal() {
  try {
    const data = JSON.parse(window.localStorage.getItem(KEY_CURRENT) || "null");
    return data && typeof data.id === "string" ? data : null;
  } catch {
    return null;
  }
}

export function saveCurrentLocal(current) {
  try {
    if (current) window.localStorage.setItem(KEY_CURRENT, JSON.stringify(current));
    else window.localStorage.removeItem(KEY_CURRENT);
  } catch {
    // storage blocked: the game is still in IndexedDB, in Mis partidas
  }
}
