// A game against the computer with no server: it stands where the websocket stands
// (the same open/send/close as connection.js) and answers la mesa with the server's own
// frames (docs/protocol.md: welcome, events, error), built from what the engine's Web Worker
// says (client/js/play/worker.js: `game`, `game_play`, `game_computer`). Each move is kept
// in IndexedDB (offlinedb.js) before la mesa hears of it, so a reload finds the game where
// it was. The player is seat 0; the computer plays every other seat (one rival, or at a
// table of four the partner and both rivals, all at the game's level).

import { t } from "./i18n.js";
import { reducedMotion } from "./dom.js";
import { loadLocalGame, newSeed, saveLocalGame } from "./offlinedb.js";
import { loadAnimMs, loadName } from "./device.js";
import { others, seatsOf } from "../engine/seats.js";

export const WORKER_URL = "/static/js/play/worker.js";
const ME = 0;
// the server's errors the offline game words (named: server/i18n/browser.py sends these)
const OFFLINE_ERRORS = {
  not_your_turn: "error.not_your_turn", match_over: "error.match_over", bad_request: "error.bad_request",
};
const MAX_THINK_MS = 700; // the computer's pause before its move (never longer than the Menú's speed)

/** The engine worker, answering `{id, op, ...}` with `{id, ...}` as promises. */
class Engine {
  constructor(onBroken) {
    // the one js/early.js started while the page loaded, when an offline game was going
    this.worker = window.casinoEarlyEngine || new Worker(WORKER_URL, { type: "module" });
    window.casinoEarlyEngine = null;
    this.next = 1;
    this.waiting = new Map();
    this.worker.onmessage = (event) => {
      const answer = this.waiting.get(event.data.id);
      this.waiting.delete(event.data.id);
      answer?.(event.data);
    };
    this.worker.onerror = (event) => {
      event.preventDefault?.();
      onBroken();
    };
  }

  ask(request) {
    const id = this.next++;
    return new Promise((resolve) => {
      this.waiting.set(id, resolve);
      this.worker.postMessage({ id, ...request });
    });
  }

  stop() {
    this.worker.terminate();
    this.waiting.clear();
  }
}

export class LocalRoom {
  /**
   * @param {object} session {local: the game's id}
   * @param {object} handlers as connection.js's: onMessage(msg), onStatus(status, attempt),
   *   onFatal(code, message)
   */
  constructor(session, handlers) {
    this.session = session;
    this.handlers = handlers;
    this.game = null;
    this.engine = null;
    this.closed = false;
    this.chain = Promise.resolve(); // one thing at a time, in order
    this.thinking = null;
  }

  open() {
    if (this.closed) return;
    this.handlers.onStatus("connecting", 0);
    this.engine = new Engine(() => this.broken());
    this.then(async () => {
      this.game = await loadLocalGame(this.session.local);
      performance.mark("casino-game-read");
      if (!this.game) {
        this.handlers.onFatal("local_unknown", t("local.gone"));
        return;
      }
      const answer = await this.ask({ op: "game", seat: ME });
      if (!answer) return;
      performance.mark("casino-engine-answered");
      const events = this.seats() === 4 ? await this.playsSinceMine() : [];
      if (this.closed) return;
      this.handlers.onStatus("online", 0);
      this.handlers.onMessage({ type: "welcome", room: this.game.id, seat: ME, seq: this.seq(),
        view: this.fullView(answer.view), events });
      this.computerIfItsTurn(answer.view);
    });
  }

  /** At a table of four, the plays since the player's own last one (at most three, as the
   * server's welcome carries the events a seat missed), so that a table opened again still
   * tells them. */
  async playsSinceMine() {
    const { moves } = this.game;
    const plays = [];
    for (let k = moves.length; k > 0 && plays.length < 3; k--) {
      const answer = await this.engine.ask({ op: "game", seed: this.game.seed, moves: moves.slice(0, k),
        seats: this.seats(), computer: others(ME, this.seats()), seat: ME });
      const event = answer?.events?.[0];
      if (!event || event.kind !== "move") break;
      plays.unshift({ seq: this.game.seqBase + k, event });
      if (event.seat === ME) break;
    }
    return plays;
  }

  close() {
    this.closed = true;
    clearTimeout(this.thinking);
    this.engine?.stop();
  }

  broken() {
    if (this.closed) return;
    this.close();
    this.handlers.onFatal("local_broken", t("local.broken"));
  }

  /** What la mesa sends: a move, a rematch (pings need no answer; nothing else is offline). */
  send(msg) {
    if (this.closed || !this.game) return false;
    if (msg.type === "ping") return true;
    if (msg.type === "move") {
      this.then(() => this.playMine(msg));
      return true;
    }
    if (msg.type === "rematch") {
      this.then(() => this.rematch());
      return true;
    }
    return false;
  }

  // ------------------------------------------------------------------ inside

  then(job) {
    this.chain = this.chain.then(() => (this.closed ? undefined : job())).catch(() => this.broken());
  }

  seq() {
    return this.game.seqBase + this.game.moves.length;
  }

  /** How many seats this game has (a game kept before tables of four: two). */
  seats() {
    return this.game.seats === 4 ? 4 : 2;
  }

  async ask(request) {
    const answer = await this.engine.ask({ seed: this.game.seed, moves: this.game.moves, seats: this.seats(),
      computer: others(ME, this.seats()), ...request });
    return this.closed ? null : answer;
  }

  /** The worker's view (the rules part of View V) with what a room adds, in the wire's shape
   * (docs/protocol.md: `seat_count`, `hand_sizes`, `players`; lists of every seat). */
  fullView(rules) {
    const level = this.game.level;
    const seats = seatsOf(this.seats());
    const { opponent_hand_size: opponentHandSize, ...rest } = rules;
    // the engine's two-seat form says only the other hand's size
    const handSizes = rules.hand_sizes ?? seats.map((seat) => (seat === ME ? rules.hand.length : opponentHandSize));
    return {
      ...rest,
      seat_count: seats.length,
      hand_sizes: handSizes,
      // every other chair is the computer's own (`chair`: screens/mesa/names.js personChair)
      players: seats.map((seat) => (seat === ME ? { kind: "person", level: null }
        : { kind: "computer", level, chair: "computer" })),
      names: seats.map((seat) => (seat === ME ? loadName() || t("names.you") : t("names.computer_short"))),
      seq: this.seq(),
      match: this.game.match,
      presence: seats.map((seat) => (seat === ME ? { state: "here", grace_left: null, level: null }
        : { state: "computer", grace_left: null, level })),
      rematch: seats.map(() => false),
      invite: null,
      turns: false,
      turns_grace: null,
      watchers: 0,
      watch_url: null,
      local: true,
    };
  }

  /** Keeps the game as it is now, with what Mis partidas shows of it. */
  async keep(moves, view) {
    this.game = { ...this.game, moves, scores: [...view.scores], status: view.status, winner: view.winner,
      myTurn: view.status === "playing" && view.turn === ME, updated: Date.now() };
    await saveLocalGame(this.game);
  }

  async playMine(msg) {
    const answer = await this.ask({ op: "game_play", move: msg.move, seat: ME, viewer: ME });
    if (!answer) return;
    if (answer.error) {
      const rules = Object.hasOwn(OFFLINE_ERRORS, answer.code);
      // a refusal carries the engine's reason and arguments (the card, the items, the
      // value), as the server's does: la mesa words it from the catalog (ui/reasons.js); the
      // engine's own Spanish sentence, for developers, stands only where nothing words it
      const message = rules ? t(OFFLINE_ERRORS[answer.code]) : answer.error;
      this.handlers.onMessage({ type: "error", code: rules ? answer.code : "illegal",
        ...(rules ? {} : { reason: answer.code, args: answer.args || {} }), message, id: msg.id });
      return;
    }
    await this.keep(answer.moves, answer.view);
    this.handlers.onMessage({ type: "events", seq: this.seq(), events: answer.events,
      view: this.fullView(answer.view), id: msg.id });
    this.computerIfItsTurn(answer.view);
  }

  computerIfItsTurn(view) {
    if (view.status !== "playing" || view.turn === ME) return;
    const seat = view.turn;
    const pause = Math.min(MAX_THINK_MS, loadAnimMs(reducedMotion()));
    clearTimeout(this.thinking);
    this.thinking = setTimeout(() => this.then(() => this.playComputer(seat)), pause);
  }

  async playComputer(seat) {
    const chosen = await this.ask({ op: "game_computer", level: this.game.level });
    if (!chosen || chosen.error) return;
    const answer = await this.ask({ op: "game_play", move: chosen.move, seat, viewer: ME });
    if (!answer || answer.error) return;
    await this.keep(answer.moves, answer.view);
    this.handlers.onMessage({ type: "events", seq: this.seq(), events: answer.events, view: this.fullView(answer.view) });
    this.computerIfItsTurn(answer.view);
  }

  /** Another match, a new deck of this device's (the computer always wants one). */
  async rematch() {
    if (this.game.status !== "finished") {
      this.handlers.onMessage({ type: "error", code: "not_over", message: t("error.not_over") });
      return;
    }
    const match = this.game.match + 1;
    this.game = { ...this.game, seed: newSeed(), moves: [], match, seqBase: this.seq() + 1 };
    const answer = await this.ask({ op: "game", seat: ME });
    if (!answer) return;
    await this.keep([], answer.view);
    this.handlers.onMessage({ type: "events", seq: this.seq(), events: [{ kind: "rematch", match }],
      view: this.fullView(answer.view) });
    this.computerIfItsTurn(answer.view);
  }
}
