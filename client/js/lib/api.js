// HTTP calls to the game server. Every error becomes an ApiError carrying the server's
// Spanish message (or a friendly one when the network itself failed).

import { language, t } from "./i18n.js";

export class ApiError extends Error {
  constructor(code, message, status) {
    super(message);
    this.code = code;
    this.status = status;
  }
}

async function call(method, path, body) {
  let response;
  try {
    response = await fetch(path, {
      method,
      // the server words its errors in the language the player reads
      headers: body === undefined ? { "Accept-Language": language() }
        : { "Content-Type": "application/json", "Accept-Language": language() },
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: "same-origin",
    });
  } catch {
    throw new ApiError("network", t("api.network"), 0);
  }
  let data = null;
  try {
    data = await response.json();
  } catch {
    data = null;
  }
  if (!response.ok) {
    const error = (data && data.error) || {};
    throw new ApiError(
      error.code || "http_" + response.status,
      error.message || t("api.failed"),
      response.status,
    );
  }
  return data;
}

export function createRoom(body) {
  return call("POST", "/api/rooms", body);
}

/** A random key for one request: its retries carry the same key and get the same answer. */
function retryKey() {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** A POST that is safe to retry (the server recognises its key): tried again when its
 * answer was lost (no connection, or the server failed) before giving up. */
async function callSafely(path, body) {
  const keyed = { ...body, key: retryKey() };
  let lastError = null;
  for (const wait of [0, 700, 2000]) {
    if (wait) await new Promise((resolve) => setTimeout(resolve, wait));
    try {
      return await call("POST", path, keyed);
    } catch (error) {
      if (error.code !== "network" && error.status < 500) throw error;
      lastError = error;
    }
  }
  throw lastError;
}

/** Sits at the invitation's table: in the chair `seat` when one was chosen (a table of
 * four), else in the first free one. */
export function joinRoom(invite, name, seat = undefined) {
  return callSafely("/api/join", { invite, name, seat });
}

/** The room a watch link's code leads to, so that the watcher's socket names it. */
export function watchRoom(code) {
  return call("GET", `/api/watch/${encodeURIComponent(code)}`);
}

/** Who sent an invitation: {host, open, turns, room, seat_count, seats: [{seat, name, kind,
 * level, free}]} (the chairs of its table). */
export function invitation(invite) {
  return call("GET", `/api/invites/${encodeURIComponent(invite)}`);
}

export function newRejoinCode(token) {
  return call("POST", "/api/rejoin-codes", { token });
}

export function rejoin(code) {
  return callSafely("/api/rejoin", { code });
}

/** A code as typed on Inicio: the server says what it is, {kind: "invite", invite, url,
 * host, open, turns} or {kind: "seat", room, seat, token} (a rejoin code: safe to retry). */
export function useCode(code) {
  return callSafely("/api/codes", { code });
}

// QR codes are asked for by POST, the path in the body: a rejoin link is a secret, and a URL
// (query string included) ends up in logs. Each path's image is fetched once per page load.
const qrImages = new Map();

export function qrObjectUrl(path) {
  if (!qrImages.has(path)) {
    const image = fetch("/api/qr", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ text: path }),
      credentials: "same-origin",
    }).then(async (response) => {
      if (!response.ok) throw new ApiError("qr", t("api.qr"), response.status);
      return URL.createObjectURL(await response.blob());
    });
    image.catch(() => qrImages.delete(path));
    qrImages.set(path, image);
  }
  return qrImages.get(path);
}

/** Mis partidas: for each seat token (secrets: in the body, never in a URL), its game or
 * null when the server no longer knows it. */
export function myGames(tokens) {
  return call("POST", "/api/my-games", { tokens });
}

/** The shareable replay code of a finished match of this seat's room: {code, url}. */
export function replayLink(token, match) {
  return call("POST", "/api/replays", { token, match });
}

export function replay(code) {
  return call("GET", `/api/replays/${encodeURIComponent(code)}`);
}

/** The server's VAPID public key: the browser's applicationServerKey for Web Push. */
export function pushKey() {
  return call("GET", "/api/push/key");
}

/** Keeps this browser's push subscription as the seat's (`subscription`: its toJSON()), or
 * drops the seat's (null). Safe to repeat. */
export function setPush(token, subscription, lang) {
  return call("POST", "/api/push", { token, subscription, lang });
}
