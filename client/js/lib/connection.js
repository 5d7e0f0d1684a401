// The websocket to the game: says hello with the seat token (or, for a watcher, watch with
// the watch code), keeps the last seq it saw and, when the signal drops, reconnects with
// backoff and resumes with `since` (at once when the page comes back online or to the
// foreground). Every frame reaches the screen as the server sent it (docs/protocol.md), but
// for a move's `events` frame, whose view part is laid over the view held (heldview.js); an
// error the server marks `"fatal": true` ends the connection. The hello says which version
// of the protocol this page speaks: a page older than the server (kept by a cache) is told
// `old_client` and reloads itself, once.

import { HeldView } from "./heldview.js";
import { language } from "./i18n.js";

const RELOADED_KEY = "casino.oldClientReload"; // when this tab last reloaded for it

/** The server said this page is older than it: reload once (a newer page comes, from the
 * server or the service worker's next copy); true when it did. Not twice within a minute,
 * so a page the server still finds old is never caught in a loop of reloads. */
export function reloadForNewVersion() {
  let last = 0;
  try {
    last = Number(window.sessionStorage.getItem(RELOADED_KEY)) || 0;
  } catch {
    last = 0;
  }
  if (Date.now() - last < 60_000) return false;
  try {
    window.sessionStorage.setItem(RELOADED_KEY, String(Date.now()));
  } catch {
    return false; // no storage: a reload could not know it happened
  }
  window.location.reload();
  return true;
}

// short waits, capped at 2 s: when the server is back, the game is back within ~2 s
const BACKOFF_MS = [250, 500, 1000, 1500, 2000];
const PING_MS = 25000;
const SILENCE_MS = 60000; // no message (not even a pong) for this long: the line is dead
const CHECK_MS = 6000; // after a nudge, how long a pong may take
// the protocol this client speaks (server/protocol/incoming.py PROTOCOL_VERSION): a server
// that speaks a newer one answers `old_client` and this page reloads
// (3: a move's `events` frame carries the view's move part alone: lib/heldview.js)
export const PROTOCOL_VERSION = 3;

export class Connection {
  /**
   * @param {object} session {token, since} (a watcher: {watch, since})
   * @param {object} handlers onMessage(msg) (each frame, as sent), onStatus(status, attempt),
   *   onFatal(code, message) (an error after which this device cannot use the seat or link)
   */
  constructor(session, handlers) {
    this.session = session;
    this.handlers = handlers;
    this.watching = Boolean(session.watch);
    this.ws = null;
    this.attempt = 0;
    this.closed = false;
    this.timer = null;
    this.pingTimer = null;
    this.checkTimer = null;
    this.lastMessageAt = 0;
    this.lastSeq = session.since ?? null;
    this.welcomed = false;
    this.held = new HeldView(); // the socket's whole view: a move's frame brings a part
    this.onOnline = () => this.nudge();
    // the device says it went offline: the socket cannot be heard any more
    this.onOffline = () => this.drop();
    this.onVisible = () => {
      if (document.visibilityState === "visible") this.nudge();
    };
    window.addEventListener("online", this.onOnline);
    window.addEventListener("offline", this.onOffline);
    document.addEventListener("visibilitychange", this.onVisible);
  }

  /** The socket's address names the room, when it is known: the balancer sends a room's
   * seats and watchers to the one process that holds it (docs/protocol.md). */
  url() {
    const scheme = window.location.protocol === "https:" ? "wss:" : "ws:";
    const room = this.session.room ? `/${encodeURIComponent(this.session.room)}` : "";
    return `${scheme}//${window.location.host}/ws${room}`;
  }

  open() {
    if (this.closed) return;
    this.handlers.onStatus(this.attempt === 0 ? "connecting" : "reconnecting", this.attempt);
    let ws;
    try {
      ws = new WebSocket(this.url());
    } catch {
      this.retry();
      return;
    }
    this.ws = ws;
    this.welcomed = false;
    this.held.reset();
    ws.addEventListener("open", () => {
      ws.send(JSON.stringify(this.watching
        ? { type: "watch", version: PROTOCOL_VERSION, code: this.session.watch,
            since: this.lastSeq, lang: language() }
        : { type: "hello", version: PROTOCOL_VERSION, token: this.session.token,
            since: this.lastSeq, lang: language() }));
    });
    ws.addEventListener("message", (event) => {
      let msg;
      try {
        msg = JSON.parse(event.data);
      } catch {
        return;
      }
      this.receive(msg);
    });
    ws.addEventListener("close", () => {
      if (this.ws !== ws) return;
      this.ws = null;
      this.stopPing();
      // a fatal error (a refused token or origin) arrives as a message first (see receive)
      if (this.closed) return;
      this.retry();
    });
  }

  receive(frame) {
    this.lastMessageAt = Date.now();
    // an `events` frame's view made whole again: the screens see whole views, as before
    const msg = this.held.receive(frame);
    const welcome = msg.type === "welcome" || msg.type === "watching";
    if (typeof msg.seq === "number" && (welcome || msg.type === "events")) {
      this.lastSeq = Math.max(this.lastSeq ?? 0, msg.seq);
      this.session.since = this.lastSeq;
    }
    if (welcome) {
      this.welcomed = true;
      this.attempt = 0;
      this.handlers.onStatus("online", 0);
      this.startPing();
    }
    if (msg.type === "seat_moved") {
      this.closed = true;
      this.handlers.onMessage(msg);
      this.ws?.close();
      return;
    }
    if (msg.type === "error" && msg.fatal === true) {
      // the server closes the socket after it: reconnecting would only hear it again
      this.closed = true;
      this.ws?.close();
      // a page older than the server: a newer one is loaded (its message is said if not)
      if (msg.code === "old_client" && reloadForNewVersion()) return;
      this.handlers.onFatal(msg.code, msg.message);
      return;
    }
    this.handlers.onMessage(msg);
  }

  retry() {
    if (this.closed) return;
    // ±20 % so that a room of phones does not knock all at the same instant
    const delay = BACKOFF_MS[Math.min(this.attempt, BACKOFF_MS.length - 1)] * (0.8 + Math.random() * 0.4);
    this.attempt += 1;
    this.handlers.onStatus("reconnecting", this.attempt);
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.open(), delay);
  }

  /** The page came back online or to the foreground: reconnect now if the socket is
   * gone; if it looks open, check it still answers (phones drop sockets silently). */
  nudge() {
    if (this.closed) return;
    if (!this.ws) {
      clearTimeout(this.timer);
      this.open();
      return;
    }
    const asked = Date.now();
    if (!this.send({ type: "ping" })) return;
    clearTimeout(this.checkTimer);
    this.checkTimer = setTimeout(() => {
      if (this.lastMessageAt < asked) this.drop();
    }, CHECK_MS);
  }

  /** Gives up on the current socket and reconnects. */
  drop() {
    const ws = this.ws;
    if (!ws || this.closed) return;
    this.ws = null;
    this.stopPing();
    try {
      ws.close();
    } catch {
      // already closing
    }
    this.retry();
  }

  send(msg) {
    if (!this.ws || this.ws.readyState !== WebSocket.OPEN || !this.welcomed) return false;
    this.ws.send(JSON.stringify(msg));
    return true;
  }

  startPing() {
    this.stopPing();
    this.lastMessageAt = Date.now();
    this.pingTimer = setInterval(() => {
      if (Date.now() - this.lastMessageAt > SILENCE_MS) {
        this.drop();
        return;
      }
      this.send({ type: "ping" });
    }, PING_MS);
  }

  stopPing() {
    clearInterval(this.pingTimer);
    this.pingTimer = null;
  }

  close() {
    this.closed = true;
    window.removeEventListener("online", this.onOnline);
    window.removeEventListener("offline", this.onOffline);
    document.removeEventListener("visibilitychange", this.onVisible);
    clearTimeout(this.timer);
    clearTimeout(this.checkTimer);
    this.stopPing();
    if (this.ws) {
      const ws = this.ws;
      this.ws = null;
      ws.close();
    }
  }
}
