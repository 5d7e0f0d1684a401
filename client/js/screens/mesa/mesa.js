// La mesa: one game on this device, from its start to its end. Holds the websocket, the
// latest view the server sent and a queue of what happened (each event of an `events`
// frame, shown one after the other, the opponent's moves held on screen a moment), and
// redraws from them (render.js). The browser knows no rules: what each hand card can do
// comes from `view.options`.

import { t } from "../../lib/i18n.js";
import { alertNow, announce, reducedMotion, setBanner, wait } from "../../lib/dom.js";
import { loadAnimMs, loadHints, saveHints, saveSession } from "../../lib/device.js";
import { cardElement } from "../../ui/cards.js";
import { hasReason, reasonText } from "../../ui/reasons.js";
import { closePushOffer, offerPush } from "../../ui/push.js";
import { refreshPush } from "../../lib/push.js";
import { dealWords, rematchWords, moveLine, moveSentence, newHandWords } from "../../ui/words.js";
import { LiveTable } from "../live.js";
import { askLeave, openMenu } from "./dialogs.js";
import { arrowKeys, focusHand, focusHandIfLost, focusLater } from "./focus.js";
import { closeSheet, noteRematchWish, openHandSheet } from "./handsheet.js";
import { isFour, myTurn, opponentCapitalized, opponentSeat, seatCapitalized, turnWords } from "./names.js";
import { Presence } from "./presence.js";
import { mesaScreen, moverOf, recentPlays } from "./render.js";
import { escapeChoice } from "./intents.js";
import { freshSelection } from "./selection.js";
import { TurnAlert } from "./turnalert.js";

/** The plays a (re)opened table shows: those of `events` (a welcome's) since this seat's own
 * last one, the newest three; else the view's last move. */
function recentSince(view, events) {
  const moves = events.filter((e) => e.kind === "move");
  let start = 0;
  moves.forEach((e, i) => { if (e.seat === view.seat) start = i; });
  const kept = moves.slice(start).slice(-3).map((event) => ({ event, table: view.table }));
  if (kept.length) return kept;
  return view.last_move ? [{ event: view.last_move, table: view.table }] : [];
}

export class Mesa extends LiveTable {
  /**
   * @param {HTMLElement} root where the table is drawn
   * @param {object} session {room, seat, token, since, invite_url?}
   * @param {object} app {goHome(message, leftOnPurpose), seatMoved(token, rejoined),
   *   lostSession(message), openReplay(token, match), tableUp() (optional: the first
   *   table is on screen), offline (optional: {available(), play(level)}: the computer with no
   *   server, offered while the connection is gone)}
   * @param {Function} [connect] the connection's maker (live.js)
   */
  constructor(root, session, app, connect = undefined) {
    super(root, session, {
      onMessage: (msg) => this.onMessage(msg),
      onStatus: (status, attempt) => this.onStatus(status, attempt),
      onFatal: (code, message) => this.onFatal(code, message),
    }, connect);
    this.session = session;
    this.app = app;
    this.view = null;
    this.hints = loadHints();
    this.sel = freshSelection();
    this.queue = [];
    this.pumping = false;
    this.sheet = null; // the open end-of-hand dialog
    this.status = "connecting";
    this.attempt = 0;
    this.welcomed = false;
    this.local = false; // a game with no server (local.js)
    this.animating = false;
    this.rematchSeen = null; // the last view's rematch wishes, for the final sheet
    this.watchers = 0; // how many are watching this table
    this.reactOpen = false; // the reaction picker is open
    this.recent = []; // the plays since this seat's last one: [{event, table}] (render.js recentPlays)
    this.turnAlert = new TurnAlert();
    this.presence = new Presence({
      root: () => this.root, render: () => this.render(), flash: (text) => this.flash(text),
      view: () => this.view,
    });
    this.onKey = (event) => {
      escapeChoice(this, event);
      arrowKeys(event);
    };
    this.root.addEventListener("keydown", this.onKey);
  }

  stop() {
    super.stop();
    this.root.removeEventListener("keydown", this.onKey);
    this.turnAlert.stop();
    closePushOffer(); // Web Push's offer belongs to this table (ui/push.js)
    this.presence.stop();
    setBanner(null);
    this.sheet = null;
    // the Menú, the rejoin code or a score sheet may be open: none of them belongs here now
    document.querySelectorAll("dialog[open]").forEach((dialog) => dialog.close());
  }

  // ---------------------------------------------------------------- the connection

  onStatus(status, attempt) {
    const offered = this.offersOffline();
    this.status = status;
    this.attempt = attempt;
    if (status === "reconnecting") {
      setBanner(attempt > 2
        ? t("mesa.lost_retrying") : t("mesa.lost_reconnecting"));
    } else if (status === "online") {
      setBanner(null);
    }
    if (offered !== this.offersOffline()) this.render();
    else this.updateRootState();
  }

  /** Whether la mesa offers the computer with no server now: the connection has been gone
   * a while (or the device says it is offline) and this device can play offline. */
  offersOffline() {
    return !this.local && this.status === "reconnecting" &&
      (this.attempt > 2 || navigator.onLine === false) && Boolean(this.app.offline?.available());
  }

  /** The server said this device can no longer use the seat (its message says why). */
  onFatal(code, message) {
    this.stop();
    // a page on a foreign origin: the seat is still good from the game's own address
    // nor is it when this page is older than the server (old_client: lib/connection.js
    // reloads the page once; a second time it says so here, and the seat is kept)
    if (code === "bad_origin" || code === "old_client") this.app.goHome(message);
    else this.app.lostSession(message);
  }

  onMessage(msg) {
    switch (msg.type) {
      case "welcome":
        this.onWelcome(msg);
        break;
      case "events":
        for (const event of msg.events) this.onRoomEvent(event, msg);
        this.pump();
        // the mover's copy of the frame carries its move id: that is its acknowledgement
        if (msg.id !== undefined) this.acknowledged(msg.id);
        break;
      case "state":
        if (msg.view) this.rematchSeen = msg.view.rematch;
        noteRematchWish(this, msg.view);
        this.queue.push({ event: null, view: msg.view, seq: msg.seq });
        this.pump();
        break;
      case "ack":
        this.acknowledged(msg.id);
        break;
      case "error":
        this.onError(msg);
        break;
      case "presence":
        if (!this.view || msg.seat === this.view.seat) return;
        if (this.view.presence) {
          // each seat's panel says whether its player is here (a table of four has three)
          const presence = [...this.view.presence];
          presence[msg.seat] = msg.presence;
          this.view = { ...this.view, presence };
        }
        // a presence kept per seat (branch parejas' presence.js: set(p, seat)); with one kept
        // for the opponent only, only the opponent's
        if (this.presence.setAll || msg.seat === opponentSeat(this.view)) this.presence.set(msg.presence, msg.seat);
        this.render();
        break;
      case "watchers":
        this.onWatchers(msg.count);
        break;
      case "reaction":
        if (this.view && msg.seat !== this.view.seat) {
          this.reactions.receive(msg.seat, msg.reaction, seatCapitalized(this.view, msg.seat));
        }
        break;
      case "seat_moved":
        this.stop();
        this.app.seatMoved(this.session.token, msg.rejoined === true);
        break;
      default:
        break;
    }
  }

  /** One event of an `events` frame: queued with the view after the whole change (every
   * event of a move carries it: it is shown once, last). */
  onRoomEvent(event, frame) {
    if (event.kind === "rematch") {
      this.rematchSeen = null;
      this.recent = [];
      closeSheet(this);
    }
    this.queue.push({ event, view: frame.view, seq: frame.seq });
  }

  acknowledged(id) {
    if (this.sel.pending && this.sel.pending.id === id) this.sel.pending = null;
  }

  onWelcome(msg) {
    const first = !this.welcomed;
    this.welcomed = true;
    this.session.room = msg.room;
    this.session.seat = msg.seat;
    this.persist();
    const events = (msg.events || []).map((e) => e.event);
    // moves of my own seat I did not see that the computer played for me while I was away
    // (the event says who played it: a move of mine sent before the signal dropped is mine)
    const forMe = events.filter((e) => e.kind === "move" && e.seat === msg.seat && e.by === "computer");
    const handEnd = [...events].reverse().find((e) => e.kind === "hand_end");
    const pending = this.sel.pending;
    this.queue = [];
    this.sel = freshSelection();
    this.setView(msg.view);
    this.recent = recentSince(msg.view, events);
    if (pending) {
      // a move sent before the socket dropped, never answered: sent again with its id (the
      // server plays it once: if it was played already, the answer is its ack)
      this.sel.pending = pending;
      this.conn.send({ type: "move", move: pending.move, seq: pending.seq, id: pending.id });
    }
    if (forMe.length > 0) {
      this.flash(t("mesa.back_for_me", { n: forMe.length }));
    } else if (!first) {
      announce(t("mesa.reconnected", { turn: turnWords(this.view) }));
    } else if (this.session.invited && !this.session.greeted && msg.view.names) {
      this.session.greeted = true;
      this.persist();
      this.flash(t("mesa.invited_you", { name: msg.view.names[0], turn: turnWords(this.view) }));
    } else {
      announce(turnWords(this.view));
    }
    this.render();
    if (handEnd && !this.sheet) openHandSheet(this, handEnd);
    if (first) focusHand(this);
    if (first) this.app.tableUp?.();
    if (first && !this.local) {
      offerPush(this.session, this.view); // "¿Te avisamos cuando te toque?" (ui/push.js)
      refreshPush(this.session.token);
    }
  }

  onError(msg) {
    if (msg.code === "reconnecting") {
      // the server is coming back (or the table moved to another server): the socket closes
      // and reconnects by itself; the table it gets back says whether the move was played
      setBanner(msg.message);
      return;
    }
    if (typeof msg.id === "string" && msg.id.startsWith("r-")) {
      this.showError(msg.message); // a reaction's answer
      return;
    }
    const pending = this.sel.pending;
    if (msg.id && pending && pending.id !== msg.id) return;
    if (msg.code === "stale") {
      this.sel = freshSelection(); // the table changed: choose again on the new one
    } else {
      // a refused move keeps the chosen card (and what was marked): try again from there
      this.sel.pending = null;
    }
    // a refusal ("¿Por qué no?" too) in this screen's words, from its reason and arguments:
    // the offline game's (lib/localroom.js) and the server's, which sent the same words in
    // the hello's language (a refusal with no arguments: the server's words)
    const refused = msg.code === "illegal" && msg.reason && msg.args && hasReason(msg.reason);
    this.showError(refused ? reasonText(msg.reason, msg.args) : msg.message);
    if (this.sel.selected) focusLater(this, `.hand [data-code="${this.sel.selected}"]`);
  }

  /** Shows `text` on the error line and says it at once. */
  showError(text) {
    this.sel.error = text;
    alertNow(text);
    this.render();
  }

  onWatchers(count) {
    const before = this.watchers;
    this.watchers = count;
    if (count > before) announce(t("mesa.watching_now", { n: count }));
    this.render();
  }

  setView(view) {
    this.view = view;
    if (typeof view.watchers === "number") this.watchers = view.watchers;
    if (typeof view.seq === "number") {
      this.session.since = Math.max(this.session.since ?? 0, view.seq);
    }
    if (view.status !== "waiting" && this.session.invite_url) {
      delete this.session.invite_url;
    }
    // a finished match is not "continued": opening the site again goes to Inicio
    this.session.finished = view.status === "finished";
    if (this.presence.setAll) this.presence.setAll(view); // every other seat's
    else this.presence.set(view.presence[opponentSeat(view)]);
    this.persist();
  }

  persist() {
    saveSession(this.session);
  }

  // ---------------------------------------------------------------- what happened, in order

  async pump() {
    if (this.pumping || this.stopped) return;
    this.pumping = true;
    try {
      while (this.queue.length > 0 && !this.sheet && !this.stopped) {
        await this.apply(this.queue.shift());
      }
    } finally {
      this.pumping = false;
    }
  }

  async apply({ event, view }) {
    const kind = event ? event.kind : "state";
    if (kind === "move" && this.view && event.seat !== this.view.seat) {
      await this.animateOpponentMove(event, view);
    }
    const wasWaiting = this.view && this.view.status === "waiting";
    this.setView(view);
    if (kind === "move") {
      const mine = event.seat === view.seat;
      this.remember(event, view.table);
      if (mine) this.sel = freshSelection();
      else if (!this.sel.keepError) this.sel.error = null; // what was said while it landed stays
      this.sel.keepError = false;
      this.render();
      this.lastSaid = this.playsSaid(event, view);
      announce(this.lastSaid + " " + turnWords(view));
      if (mine) focusHand(this);
      else focusHandIfLost(this);
    } else if (kind === "deal") {
      this.render();
      // at a table of four the plays just said are said again with the deal (which would
      // cut them short), and whose turn it is
      announce(isFour(view) && this.lastSaid ? `${this.lastSaid} ${dealWords()} ${turnWords(view)}` : dealWords());
    } else if (kind === "hand_end") {
      this.sel = freshSelection();
      this.render();
      openHandSheet(this, event);
    } else if (kind === "new_hand") {
      this.render();
      announce(`${newHandWords(event)} ${turnWords(view)}`);
    } else if (kind === "rematch") {
      this.sel = freshSelection();
      this.render();
      this.flash(rematchWords());
    } else {
      this.render();
      if (wasWaiting && view.status === "playing") {
        this.flash(t("mesa.arrived", { name: opponentCapitalized(view) }));
      }
    }
  }

  /** What is said of a move: its sentence; at a table of four, once it is this seat's turn
   * again, every play since its own last one (a player who looked away hears them all). */
  playsSaid(event, view) {
    if (!isFour(view) || event.seat === view.seat || !myTurn(view) || this.recent.length < 2) {
      return moveSentence(event, moverOf(this, event, view.table));
    }
    return this.recent.filter((play) => play.event.seat !== view.seat)
      .map((play) => moveSentence(play.event, moverOf(this, play.event, play.table))).join(" ");
  }

  /** A play to keep on screen until this seat plays again (the newest three). */
  remember(event, table) {
    const last = this.recent[this.recent.length - 1];
    if (last && last.event === event) return;
    if (event.seat === this.view?.seat) this.recent = [];
    this.recent = [...this.recent, { event, table }].slice(-3);
  }

  /** Another player's card lands on the table, what it takes is outlined, for a moment. */
  async animateOpponentMove(event, after) {
    const ms = loadAnimMs(reducedMotion());
    if (ms <= 0) return;
    this.animating = true;
    this.updateRootState();
    const area = this.root.querySelector(".table-cards");
    if (area) {
      for (const code of event.taken || []) {
        const hit = area.querySelector(`[data-code="${code}"]`) ||
          area.querySelector(`[data-pile-cards~="${code}"]`);
        if (hit) hit.classList.add("being-taken");
      }
      const card = cardElement(event.move.card, { interactive: false });
      card.classList.add("incoming");
      area.append(card);
      area.closest(".table-area")?.classList.remove("empty");
    }
    const mover = moverOf(this, event, after.table);
    if (this.view && isFour(this.view)) {
      this.remember(event, after.table);
      this.root.querySelector(".lastmove")?.replaceWith(recentPlays(this));
    } else {
      this.root.querySelector(".lastmove")?.replaceChildren(...moveLine(event, mover));
    }
    announce(moveSentence(event, mover));
    await wait(ms);
    this.animating = false;
  }

  flash(text) {
    this.notice.show(text);
  }

  // ---------------------------------------------------------------- the player's requests

  /** `confirmed`: in a por-turnos game, the player asked for the computer in so many words. */
  takeover(level, confirmed = false) {
    const message = confirmed ? { type: "takeover", level, confirmed: true } : { type: "takeover", level };
    if (!this.conn.send(message)) this.showError(t("mesa.no_connection_now"));
  }

  rematch() {
    this.conn.send({ type: "rematch" });
  }

  setHints(on) {
    this.hints = on;
    saveHints(on);
    announce(on ? t("mesa.hints_on") : t("mesa.hints_off"));
    this.render();
  }

  openMenu() {
    openMenu(this);
  }

  /** The phone's Back button at the table: closes what is open (a dialog, the reactions),
   * else asks before leaving (it never leaves the table by itself). */
  back() {
    const open = [...document.querySelectorAll("dialog[open]")].pop();
    if (open) {
      open.close();
    } else if (this.reactOpen) {
      this.reactOpen = false;
      this.render();
      focusLater(this, '[data-focus-key="react"]');
    } else {
      askLeave(this);
    }
  }

  // ---------------------------------------------------------------- drawing

  updateRootState() {
    const mesa = this.root.querySelector(".mesa");
    if (!mesa) return;
    mesa.dataset.busy = String(Boolean(this.animating || this.sel.pending || this.status !== "online"));
  }

  render() {
    if (this.stopped) return; // another screen owns <main> now
    const focusKey = document.activeElement?.dataset?.focusKey;
    this.root.replaceChildren(mesaScreen(this));
    this.root.dataset.screen = "mesa";
    this.updateRootState();
    if (focusKey) this.root.querySelector(`[data-focus-key="${focusKey}"]`)?.focus({ preventScroll: true });
    const v = this.view;
    if (v) {
      const last = v.last_move;
      this.turnAlert.update(v.seq, myTurn(v), last && last.seat !== v.seat
        ? moveSentence(last, moverOf(this, last, v.table), false) : t("mesa.your_turn_alert"));
    }
  }
}
