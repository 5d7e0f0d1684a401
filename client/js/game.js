// La mesa: one game on this device. Holds the websocket, the latest view the server sent,
// the player's selection, and draws the table, the hand, the score sheets and the notices.
// The browser knows no rules: what each hand card can do comes from `view.options`.

import { newRejoinCode, qrObjectUrl } from "./api.js";
import {
  cardBack, cardElement, cardName, cardNameWithArticle, cardShort, cardValue, isRed,
  pileName, pileTitle,
} from "./cards.js";
import { Connection } from "./connection.js";
import { alertNow, announce, capitalize, focusLost, h, moveFocusByKey, openDialog, wait } from "./dom.js";
import { ReactionBubbles, pickerPanel, pickerToggle, reactionById } from "./reactions.js";
import { sheetFacts, sheetNotes, sheetTable } from "./sheet.js";
import {
  SPEEDS, loadAlerts, loadAnimMs, loadHints, saveAlerts, saveAnimMs, saveHints, saveSession,
} from "./store.js";
import { COMO_SE_JUEGA, levelName } from "./texts.js";
import { TurnAlert, askPermission } from "./turnalert.js";

/** The QR code of one of this site's paths: shown once it arrives (POST /api/qr). */
function qrImage(path, alt) {
  const img = h("img", { class: "qr", alt, width: "180", height: "180", hidden: true });
  qrObjectUrl(path).then((src) => {
    img.src = src;
    img.hidden = false;
  }).catch(() => img.remove());
  return img;
}

const reducedMotion = () => window.matchMedia("(prefers-reduced-motion: reduce)").matches;

let moveCounter = 0;
let reactCounter = 0;

export class Game {
  /**
   * @param {HTMLElement} root where the table is drawn
   * @param {object} session {room, seat, token, since, invite_url?}
   * @param {object} app {goHome(message), seatMoved(), lostSession(message), openReplay(token, match)}
   */
  constructor(root, session, app) {
    this.root = root;
    this.session = session;
    this.app = app;
    this.view = null;
    this.hints = loadHints();
    this.ui = freshUi();
    this.queue = [];
    this.pumping = false;
    this.sheet = null; // the open end-of-hand dialog
    this.presence = null; // the opponent's presence {state, grace_left, level}
    this.graceUntil = null; // performance.now() when the opponent's grace time ends
    this.lastByComputer = null; // my seat's last move, when the computer played it for me
    this.seenHere = false; // this page has seen the friend connected
    this.status = "connecting";
    this.notice = null; // a short-lived line of news ("Primo volvió a la mesa")
    this.noticeTimer = null;
    this.graceTimer = null;
    this.welcomed = false;
    this.stopped = false;
    this.animating = false;
    this.rematchSeen = null; // the last view's rematch wishes, for the final sheet
    this.turnAlert = new TurnAlert();
    this.watchers = 0; // how many are watching this table
    this.reactOpen = false; // the reaction picker is open
    this.reactions = new ReactionBubbles(() => this.render());
    this.conn = new Connection(session, {
      onMessage: (msg) => this.onMessage(msg),
      onStatus: (status, attempt) => this.onStatus(status, attempt),
      onFatal: (code, message) => this.onFatal(code, message),
    });
    this.onOnline = () => this.conn.nudge();
    this.onVisible = () => {
      if (document.visibilityState === "visible") this.conn.nudge();
    };
    this.onKey = (event) => this.arrowKeys(event);
    window.addEventListener("online", this.onOnline);
    document.addEventListener("visibilitychange", this.onVisible);
    this.root.addEventListener("keydown", this.onKey);
  }

  start() {
    this.render();
    this.conn.open();
  }

  stop() {
    this.stopped = true;
    this.conn.close();
    window.removeEventListener("online", this.onOnline);
    document.removeEventListener("visibilitychange", this.onVisible);
    this.root.removeEventListener("keydown", this.onKey);
    this.turnAlert.stop();
    this.reactions.stop();
    clearTimeout(this.noticeTimer);
    clearInterval(this.graceTimer);
    setBanner(null);
    this.sheet = null;
    // the Menú, the rejoin code or a score sheet may be open: none of them belongs here now
    document.querySelectorAll("dialog[open]").forEach((dialog) => dialog.close());
  }

  // ---------------------------------------------------------------- names and facts

  get seat() {
    return this.view ? this.view.seat : this.session.seat;
  }

  opponentName() {
    const v = this.view;
    if (!v) return "tu contrincante";
    if (v.opponent && v.opponent.kind === "computer") return "la computadora";
    return v.names[1 - v.seat] || "tu amigo";
  }

  /** For narrow labels (score boxes, table headers). */
  shortOpponentName() {
    const v = this.view;
    if (v && v.opponent && v.opponent.kind === "computer") return "Computadora";
    return capitalize(this.opponentName());
  }

  isFriendGame() {
    return Boolean(this.view && this.view.opponent && this.view.opponent.kind === "person");
  }

  myTurn() {
    const v = this.view;
    return Boolean(v && v.status === "playing" && v.turn === v.seat && v.options.length > 0);
  }

  optionsFor(code) {
    return (this.view?.options || []).find((o) => o.card === code) || null;
  }

  persist() {
    saveSession(this.session);
  }

  // ---------------------------------------------------------------- messages

  onStatus(status, attempt) {
    this.status = status;
    if (status === "reconnecting") {
      setBanner(attempt > 2
        ? "Se perdió la conexión con el servidor. Seguimos intentando…"
        : "Se perdió la conexión con el servidor. Reconectando…");
    } else if (status === "online") {
      setBanner(null);
    }
    this.updateRootState();
  }

  /** The server said this device can no longer use the seat (its message says why). */
  onFatal(code, message) {
    this.stop();
    // a page on a foreign origin: the seat is still good from the game's own address
    if (code === "bad_origin") this.app.goHome(message);
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
        this.noteRematchWish(msg.view);
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
        this.onPresence(msg);
        break;
      case "watchers":
        this.onWatchers(msg.count);
        break;
      case "reaction":
        if (this.view && msg.seat !== this.view.seat) {
          this.reactions.receive(msg.seat, msg.reaction, capitalize(this.opponentName()));
        }
        break;
      case "seat_moved":
        this.stop();
        this.app.seatMoved(this.session.token);
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
      this.closeSheet();
    }
    this.queue.push({ event, view: frame.view, seq: frame.seq });
  }

  acknowledged(id) {
    if (this.ui.pending && this.ui.pending.id === id) this.ui.pending = null;
  }

  noteRematchWish(view) {
    const note = this.sheet?.querySelector(".rematch-note");
    if (!note || !view || !view.rematch || !this.isFriendGame()) return;
    if (view.rematch[1 - view.seat] && !view.rematch[view.seat]) {
      note.textContent = `${capitalize(this.opponentName())} quiere la revancha. ¿Le das?`;
    }
  }

  onWelcome(msg) {
    const first = !this.welcomed;
    this.welcomed = true;
    this.session.room = msg.room;
    this.session.seat = msg.seat;
    this.persist();
    const events = (msg.events || []).map((e) => e.event);
    // in a friend game, moves of my own seat I did not see were the computer's, playing
    // for me while I was away
    const friendGame = msg.view.opponent && msg.view.opponent.kind === "person";
    const forMe = friendGame ? events.filter((e) => e.kind === "move" && e.seat === msg.seat) : [];
    const byComputerForMe = forMe.length;
    const handEnd = [...events].reverse().find((e) => e.kind === "hand_end");
    this.queue = [];
    this.ui = freshUi();
    this.setView(msg.view);
    const last = msg.view.last_move;
    this.lastByComputer = forMe.length && last && sameEvent(forMe[forMe.length - 1], last) ? last : null;
    if (byComputerForMe > 0) {
      this.flash(`Volviste a tu asiento. Mientras no estabas, la computadora jugó ${
        byComputerForMe === 1 ? "una jugada" : byComputerForMe + " jugadas"} por ti.`);
    } else if (!first) {
      announce("Conexión recuperada. " + this.turnWords());
    } else if (this.session.invited && !this.session.greeted && msg.view.names) {
      this.session.greeted = true;
      this.persist();
      this.flash(`${msg.view.names[0]} te invitó a su mesa. ¡Buena suerte! ${this.turnWords()}`);
    } else {
      announce(this.turnWords());
    }
    this.render();
    if (handEnd && !this.sheet) this.openHandSheet(handEnd);
    if (first) this.focusHand();
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
    const pending = this.ui.pending;
    if (msg.id && pending && pending.id !== msg.id) return;
    if (msg.code === "stale") {
      this.ui = freshUi(); // the table changed: choose again on the new one
    } else {
      // a refused move keeps the chosen card (and what was marked): try again from there
      this.ui.pending = null;
    }
    this.showError(msg.message);
    if (this.ui.selected) this.focusLater(`.hand [data-code="${this.ui.selected}"]`);
  }

  /** Shows `text` on the error line and says it at once. */
  showError(text) {
    this.ui.error = text;
    alertNow(text);
    this.render();
  }

  onPresence(msg) {
    if (!this.view || msg.seat === this.view.seat) return;
    this.setPresence(msg.presence);
    this.render();
  }

  /** The opponent's presence changed (or was first seen): say so, start the countdown. */
  setPresence(p) {
    // "away" without a grace time, or right after "arriving" without ever being here:
    // the friend joined and is still on the way (the server may say either)
    if (p.state === "away" && (p.grace_left === null || p.grace_left === undefined ||
        (this.presence?.state === "arriving" && !this.seenHere))) {
      p = { ...p, state: "arriving" };
    }
    if (p.state === "here") this.seenHere = true;
    const before = this.presence;
    if (before && before.state === p.state && before.grace_left === p.grace_left) return;
    this.presence = p;
    const name = capitalize(this.opponentName());
    const wasAway = before && (before.state === "away" || before.state === "computer");
    if (this.isFriendGame() && before) {
      if (wasAway && p.state === "here") this.flash(`¡${name} volvió a la mesa!`);
      else if (p.state === "away" && before.state === "here") announce(`${name} se fue de la mesa. Lo esperamos un momento.`);
      else if (p.state === "computer" && before.state !== "computer") announce(`La computadora juega por ${name} hasta que vuelva.`);
    }
    // the countdown runs from the seconds the server said were left, not from any clock
    clearInterval(this.graceTimer);
    this.graceUntil = null;
    if (p.state === "away" && typeof p.grace_left === "number") {
      this.graceUntil = performance.now() + p.grace_left * 1000;
      if (p.grace_left > 0) this.graceTimer = setInterval(() => this.tickGrace(), 250);
    }
  }

  graceLeft() {
    if (this.graceUntil === null) return 0;
    return Math.max(0, Math.ceil((this.graceUntil - performance.now()) / 1000));
  }

  tickGrace() {
    const left = this.graceLeft();
    const clock = this.root.querySelector(".presence .countdown");
    if (left <= 0 || !clock) {
      clearInterval(this.graceTimer);
      this.render(); // time is up: offer the computer
      return;
    }
    const text = clockText(left);
    if (clock.textContent !== text) clock.textContent = text;
  }

  onWatchers(count) {
    const before = this.watchers;
    this.watchers = count;
    if (count > before) announce(count === 1 ? "Alguien está mirando la partida." : `${count} personas están mirando la partida.`);
    this.render();
  }

  /** Reactions are for a friend game, or for whoever is watching a game with the computer. */
  canReact() {
    return this.isFriendGame() || this.watchers > 0;
  }

  toggleReactions() {
    this.reactOpen = !this.reactOpen;
    this.render();
    this.focusLater(this.reactOpen ? ".reaction-panel button.reaction" : '[data-focus-key="react"]');
  }

  closeReactions() {
    this.reactOpen = false;
    this.render();
    this.focusLater('[data-focus-key="react"]');
  }

  sendReaction(reaction) {
    const id = `r-${Date.now().toString(36)}-${++reactCounter}`;
    if (!this.conn.send({ type: "react", reaction: reaction.id, id })) {
      this.showError("No hay conexión ahora mismo.");
      return;
    }
    this.reactOpen = false;
    this.reactions.show(this.view.seat, reactionById(reaction.id));
    announce(`Mandaste: ${reaction.label}.`);
    this.focusLater('[data-focus-key="react"]');
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
    this.setPresence(view.presence[1 - view.seat]);
    this.persist();
  }

  async pump() {
    if (this.pumping || this.stopped) return;
    this.pumping = true;
    try {
      while (this.queue.length > 0 && !this.sheet && !this.stopped) {
        const item = this.queue.shift();
        await this.apply(item);
      }
    } finally {
      this.pumping = false;
    }
  }

  focusHandIfLost() {
    if (this.sheet || !this.myTurn() || !focusLost()) return;
    this.focusHand();
  }

  /** Puts the keyboard focus on the hand (its first card, or the hand itself when empty). */
  focusHand() {
    if (this.sheet || this.stopped) return;
    const target = this.root.querySelector(".hand .card") || this.root.querySelector(".hand");
    target?.focus({ preventScroll: true });
  }

  /** Arrow keys move along the hand and along the table; Home and End go to the ends. */
  arrowKeys(event) {
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    const row = event.target.closest?.(".hand, .table-cards");
    if (!row || !event.target.matches("[data-focus-key]")) return;
    moveFocusByKey(event, [...row.querySelectorAll(":scope > [data-focus-key]")]);
  }

  /** After a dialog closed with nowhere to put the focus: the hand on my turn, else the Menú. */
  refocus() {
    if (this.stopped) return;
    this.focusHandIfLost();
    if (focusLost()) this.root.querySelector('[data-focus-key="menu"]')?.focus({ preventScroll: true });
  }

  async apply({ event, view }) {
    const kind = event ? event.kind : "state";
    if (kind === "move" && this.view && event.seat !== this.view.seat) {
      await this.animateOpponentMove(event);
    }
    const wasWaiting = this.view && this.view.status === "waiting";
    this.setView(view);
    if (kind === "move") {
      this.lastByComputer = null;
      const mine = event.seat === view.seat;
      if (mine) this.ui = freshUi();
      else this.ui.error = null;
      this.render();
      announce(this.describeMove(event, true) + " " + this.turnWords());
      if (mine) this.focusHand();
      else this.focusHandIfLost();
    } else if (kind === "deal") {
      this.render();
      announce("Se repartieron 4 cartas más a cada uno.");
    } else if (kind === "hand_end") {
      this.ui = freshUi();
      this.render();
      this.openHandSheet(event);
    } else if (kind === "new_hand") {
      this.render();
      announce(`Empieza la mano ${event.hand_number + 1}. ${this.turnWords()}`);
    } else if (kind === "rematch") {
      this.ui = freshUi();
      this.render();
      this.flash("¡Revancha! Empieza otra partida.");
    } else {
      this.render();
      if (wasWaiting && view.status === "playing") {
        this.flash(`¡${capitalize(this.opponentName())} llegó! Empieza la partida.`);
      }
    }
  }

  async animateOpponentMove(event) {
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
    const line = this.root.querySelector(".lastmove");
    if (line) line.replaceChildren(...this.moveLine(event));
    announce(this.describeMove(event, true));
    await wait(ms);
    this.animating = false;
  }

  // ---------------------------------------------------------------- words

  who(seat, sentenceStart = true) {
    if (seat === this.seat) return sentenceStart ? "Tú" : "tú";
    const name = this.opponentName();
    return sentenceStart ? capitalize(name) : name;
  }

  /** A sentence for the live region or the last-move line. */
  describeMove(event, spoken) {
    if (event === this.lastByComputer) return this.describeComputerForMe(event, spoken);
    const mine = event.seat === this.seat;
    const card = spoken ? cardNameWithArticle(event.move.card) : cardShort(event.move.card);
    const list = (codes) =>
      codes.map((c) => (spoken ? cardName(c) : cardShort(c))).join(", ");
    const who = mine ? "" : this.who(event.seat) + " ";
    const m = event.move;
    let text;
    if (m.kind === "capture") {
      const taken = (event.taken || []).filter((c) => c !== m.card);
      text = mine
        ? `Jugaste ${card} y te llevaste ${list(taken)}.`
        : `${who}jugó ${card} y se llevó ${list(taken)}.`;
      if (event.limpia) text += " ¡Limpia!";
    } else if (m.kind === "build") {
      const pile = this.view?.table.piles.find((p) => p.cards.includes(m.card));
      const doble = pile && pile.double ? " doble" : "";
      text = mine
        ? `Pusiste ${card} e hiciste un montón${doble} de ${m.value}.`
        : `${who}puso ${card} e hizo un montón${doble} de ${m.value}.`;
    } else {
      text = mine ? `Echaste ${card} a la mesa.` : `${who}echó ${card} a la mesa.`;
    }
    return text;
  }

  /** "La computadora echó el 5 de diamantes por ti." (it played my seat while I was away) */
  describeComputerForMe(event, spoken) {
    const m = event.move;
    const card = spoken ? cardNameWithArticle(m.card) : cardShort(m.card);
    const taken = (event.taken || []).filter((c) => c !== m.card)
      .map((c) => (spoken ? cardName(c) : cardShort(c))).join(", ");
    if (m.kind === "capture") return `La computadora jugó ${card} por ti y se llevó ${taken}.`;
    if (m.kind === "build") return `La computadora puso ${card} por ti: montón de ${m.value}.`;
    return `La computadora echó ${card} por ti.`;
  }

  moveLine(event) {
    if (event === this.lastByComputer) {
      return [h("span", { class: "sr-only" }, this.describeComputerForMe(event, true)),
        h("span", { "aria-hidden": "true" }, this.describeComputerForMe(event, false))];
    }
    const mine = event.seat === this.seat;
    const m = event.move;
    const who = mine ? null : h("span", { class: "who" }, capitalize(this.opponentName()));
    const nodes = [];
    const say = (ours, theirs) => (mine ? ours : [who, " ", theirs]);
    if (m.kind === "capture") {
      const taken = (event.taken || []).filter((c) => c !== m.card);
      nodes.push(say("Jugaste ", "jugó "), chip(m.card), mine ? " y te llevaste " : " y se llevó ");
      taken.forEach((c, i) => {
        if (i) nodes.push(" ");
        nodes.push(chip(c));
      });
      if (event.limpia) nodes.push(h("strong", { class: "limpia" }, " ¡Limpia!"));
    } else if (m.kind === "build") {
      nodes.push(say("Pusiste ", "puso "), chip(m.card), `: montón de ${m.value}`);
    } else {
      nodes.push(say("Echaste ", "echó "), chip(m.card), " a la mesa");
    }
    return [h("span", { class: "sr-only" }, this.describeMove(event, true)),
      h("span", { "aria-hidden": "true" }, nodes)];
  }

  turnWords() {
    const v = this.view;
    if (!v) return "";
    if (v.status === "waiting") return "Esperando a que llegue tu amigo.";
    if (v.status === "finished") return "La partida terminó.";
    return v.turn === v.seat ? "Te toca." : `Le toca a ${this.opponentName()}.`;
  }

  // ---------------------------------------------------------------- notices

  flash(text) {
    this.notice = text;
    announce(text);
    clearTimeout(this.noticeTimer);
    this.noticeTimer = setTimeout(() => {
      this.notice = null;
      this.render();
    }, 6000);
    this.render();
  }

  // ---------------------------------------------------------------- actions

  selectCard(code) {
    if (this.ui.pending || this.animating) return;
    if (!this.myTurn()) {
      this.notMyTurn();
      return;
    }
    if (this.ui.selected === code) {
      this.ui = freshUi();
    } else {
      const keepPicks = this.ui.picked;
      this.ui = freshUi();
      this.ui.selected = code;
      this.ui.picked = keepPicks;
    }
    this.render();
    this.focusLater(this.ui.selected ? ".actions button:not([aria-disabled])" : null);
  }

  /** A tap on a card while it is not my turn: say whose turn it is (nothing once it is over). */
  notMyTurn() {
    if (this.view?.status === "playing") {
      this.showError(`Todavía no te toca: le toca a ${this.opponentName()}.`);
    } else {
      this.ui.error = null;
      this.render();
    }
  }

  toggleTableItem(id) {
    if (this.ui.pending || this.animating) return;
    if (!this.myTurn()) {
      this.notMyTurn();
      return;
    }
    if (!this.ui.selected) {
      this.showError("Primero toca una carta de tu mano; después, lo que quieres de la mesa.");
      return;
    }
    this.ui.error = null;
    const picked = new Set(this.ui.picked);
    if (picked.has(id)) picked.delete(id);
    else picked.add(id);
    this.ui.picked = picked;
    this.ui.idea = null;
    this.render();
    this.focusLater(`.table-area [data-id="${id}"]`);
  }

  /** What the chosen card can build on, per the server: [{take, values}]. */
  buildTakes(opts) {
    if (!opts) return [];
    if (opts.build_takes) return opts.build_takes;
    return (opts.builds || []).map((b) => ({ take: b.move.take, values: [b.value] }));
  }

  /** The server's entry for the table items marked now, or null (no pile comes of them). */
  buildEntry(opts) {
    const key = sortedKey(this.ui.picked);
    return this.buildTakes(opts).find((entry) => sortedKey(entry.take) === key) || null;
  }

  /** The value a build of the marked items would have if they were just added up (for
   * "¿Por qué no?": the move as the player composed it, so the server says what is wrong,
   * a value out of range included). */
  plainSum() {
    let sum = cardValue(this.ui.selected);
    for (const id of this.ui.picked) {
      const pile = this.view.table.piles.find((p) => p.id === id);
      sum += pile ? pile.value : cardValue(id);
    }
    return sum;
  }

  sendMove(move) {
    if (!this.view || this.ui.pending) return;
    const id = `m${Date.now().toString(36)}-${++moveCounter}`;
    const ok = this.conn.send({ type: "move", move, seq: this.view.seq ?? this.session.since, id });
    if (!ok) {
      this.showError("No hay conexión ahora mismo. Espera a que vuelva la señal y juega otra vez.");
      return;
    }
    this.ui.pending = { id, move };
    this.ui.error = null;
    this.render();
  }

  doCapture(which) {
    const opts = this.optionsFor(this.ui.selected);
    if (!opts) return;
    if (which === "picked") {
      this.sendMove({ kind: "capture", card: opts.card, take: [...this.ui.picked] });
      return;
    }
    const move = which === "solo" ? opts.llevarte_solo : opts.llevarte;
    if (!move) {
      this.showError(`Con ${cardNameWithArticle(opts.card)} no hay nada que llevarte.`);
      return;
    }
    this.sendMove(move);
  }

  doTrail() {
    const code = this.ui.selected;
    if (!code) return;
    // even when the options say no, the server explains why in its own words
    this.sendMove({ kind: "trail", card: code });
  }

  startBuild() {
    if (!this.ui.selected) return;
    this.ui.mode = "build";
    this.ui.error = null;
    this.render();
    // the first idea, else the first table item to mark, else the way back
    this.focusLater(".build-panel .idea", ".table-area [data-id]", ".build-panel button");
  }

  chooseIdea(index) {
    const opts = this.optionsFor(this.ui.selected);
    const idea = opts?.builds[index];
    if (!idea) return;
    this.ui.picked = new Set(idea.move.take);
    this.ui.buildValue = idea.value;
    this.ui.idea = index;
    this.render();
    this.focusLater(`.build-confirm[data-value="${idea.value}"]`);
  }

  confirmBuild(value) {
    const code = this.ui.selected;
    if (!code || this.ui.picked.size === 0) return;
    this.sendMove({ kind: "build", card: code, take: [...this.ui.picked], value });
  }

  cancel() {
    this.ui = freshUi();
    this.render();
  }

  setHints(on) {
    this.hints = on;
    saveHints(on);
    announce(on ? "Ayudas puestas." : "Ayudas quitadas.");
    this.render();
  }

  /** `confirmed`: in a por-turnos game, the player asked for the computer in so many words. */
  takeover(level, confirmed = false) {
    const message = confirmed ? { type: "takeover", level, confirmed: true } : { type: "takeover", level };
    if (!this.conn.send(message)) this.showError("No hay conexión ahora mismo.");
  }

  /** Por turnos: the friend plays when they can; the computer takes the seat only when asked. */
  askComputer() {
    const name = capitalize(this.opponentName());
    const choose = (level) => {
      dialog.close();
      this.takeover(level, true);
    };
    const dialog = openDialog({
      title: `¿Que la computadora juegue por ${name}?`,
      className: "ask-computer",
      onClose: () => this.refocus(),
      body: h("div", {},
        h("p", {}, `Es una partida por turnos: ${name} juega cuando pueda. Si no quieres esperar, la computadora juega por ${name} hasta que vuelva a la mesa.`),
        h("div", { class: "button-row" },
          h("button", { type: "button", class: "btn", "data-level": "facil", onclick: () => choose("facil") }, "Sí, en Fácil"),
          h("button", { type: "button", class: "btn", "data-level": "normal", onclick: () => choose("normal") }, "Sí, en Normal"),
          h("button", { type: "button", class: "btn", "data-level": "dificil", onclick: () => choose("dificil") }, "Sí, en Difícil")),
        h("button", { type: "button", class: "btn quiet", onclick: () => dialog.close() }, `No, espero a ${name}`)),
    });
  }

  rematch() {
    this.conn.send({ type: "rematch" });
  }

  /** Focuses, after the redraw, the first element found among `selectors` (in order). */
  focusLater(...selectors) {
    const wanted = selectors.filter(Boolean);
    if (!wanted.length) return;
    requestAnimationFrame(() => {
      for (const selector of wanted) {
        const el = this.root.querySelector(selector);
        if (el) {
          el.focus();
          return;
        }
      }
    });
  }

  // ---------------------------------------------------------------- drawing

  updateRootState() {
    const mesa = this.root.querySelector(".mesa");
    if (!mesa) return;
    mesa.dataset.busy = String(Boolean(this.animating || this.ui.pending || this.status !== "online"));
  }

  render() {
    if (this.stopped) return; // another screen owns <main> now
    const focusKey = document.activeElement?.dataset?.focusKey;
    const v = this.view;
    let content;
    if (!v) {
      content = h("section", { class: "mesa loading-mesa", "aria-busy": "true" },
        h("h1", { class: "sr-only" }, "La mesa"),
        h("p", { class: "loading" }, this.status === "reconnecting" ? "Reconectando…" : "Abriendo la mesa…"));
    } else if (v.status === "waiting") {
      content = this.renderWaiting();
    } else {
      content = this.renderMesa();
    }
    this.root.replaceChildren(content);
    this.root.dataset.screen = "mesa";
    this.updateRootState();
    if (focusKey) this.root.querySelector(`[data-focus-key="${focusKey}"]`)?.focus({ preventScroll: true });
    if (v) {
      const last = v.last_move;
      this.turnAlert.update(v.seq, this.myTurn(),
        last && last.seat !== v.seat ? this.describeMove(last, false) : "Es tu turno en el casino.");
    }
  }

  renderWaiting() {
    const v = this.view;
    const code = v.invite;
    const path = this.session.invite_url || (code ? `/j/${code}` : null);
    const url = path ? new URL(path, window.location.origin).href : null;
    const text = `¡Vamos a jugar casino! Entra a mi mesa: ${url}`;
    const copy = async () => {
      try {
        await navigator.clipboard.writeText(url);
        this.flash("Enlace copiado. Pégalo en un mensaje a tu amigo.");
      } catch {
        this.flash("No se pudo copiar. Mantén el dedo sobre el enlace para copiarlo.");
      }
    };
    const share = async () => {
      try {
        await navigator.share({ title: "Casino dominicano", text: "¡Vamos a jugar casino!", url });
      } catch {
        // the player closed the share sheet
      }
    };
    return h("section", { class: "mesa waiting", "aria-labelledby": "wait-title" },
      this.renderTopbar(),
      h("div", { class: "invite-card" },
        h("h1", { id: "wait-title" }, "Invita a tu amigo"),
        h("p", {}, "Mándale este enlace. Cuando lo abra, se sienta contigo a la mesa."),
        v.turns ? h("p", { class: "turns-note" }, h("strong", {}, "Por turnos: "),
          "cada uno juega cuando pueda, aunque pasen días. La partida te espera en «Mis partidas», en el inicio.") : null,
        url ? h("p", { class: "invite-link" }, h("a", { href: url, "data-invite-link": "" }, url)) : null,
        code ? h("p", { class: "invite-code" }, "Código de invitación: ",
          h("strong", { "data-invite-code": "" }, code)) : null,
        h("div", { class: "button-row" },
          url ? h("button", { type: "button", class: "btn", onclick: copy }, "Copiar enlace") : null,
          url && navigator.share
            ? h("button", { type: "button", class: "btn", onclick: share }, "Compartir") : null,
          url ? h("a", { class: "btn whatsapp", href: "https://wa.me/?text=" + encodeURIComponent(text),
            target: "_blank", rel: "noopener" }, "Enviar por WhatsApp") : null,
        ),
        url ? qrImage(path, "Código QR del enlace de invitación") : null,
        h("p", { class: "waiting-line", role: "status" },
          h("span", { class: "dot-pulse", "aria-hidden": "true" }), " Esperando a que entre tu amigo…"),
      ),
      this.renderNotice(),
    );
  }

  /** What a seat has captured so far in this hand: "14 cartas · 5♠ · 10♦". */
  renderTally(seat) {
    const t = this.view.tally ? this.view.tally[seat] : null;
    const mine = seat === this.view.seat;
    if (!t) {
      const n = this.view.captured_counts ? this.view.captured_counts[seat] : 0;
      return h("span", { class: "tally", "data-tally-seat": String(seat) }, `${n} cartas`);
    }
    const has = (name) => (mine ? `tienes ${name}` : `tiene ${name}`);
    const spoken = [`${t.cards} ${t.cards === 1 ? "carta" : "cartas"}`,
      `${t.spades} ${t.spades === 1 ? "pica" : "picas"}`,
      t.ten_of_diamonds ? has("el diez de diamantes") : null,
      t.two_of_spades ? has("el dos de picas") : null].filter(Boolean).join(", ");
    return h("span", { class: "tally", "data-tally-seat": String(seat), "data-cards": String(t.cards),
      "data-spades": String(t.spades), "data-ten": String(Boolean(t.ten_of_diamonds)),
      "data-two": String(Boolean(t.two_of_spades)) },
    h("span", { class: "sr-only" }, `Llevadas: ${spoken}.`),
    h("span", { class: "t-cards", "aria-hidden": "true" }, `${t.cards} cartas`),
    h("span", { class: "t-spades", "aria-hidden": "true" }, `${t.spades} ${t.spades === 1 ? "pica" : "picas"}`),
    t.ten_of_diamonds ? h("span", { class: "t-key red", "aria-hidden": "true" }, "10♦") : null,
    t.two_of_spades ? h("span", { class: "t-key", "aria-hidden": "true" }, "2♠") : null);
  }

  renderTopbar() {
    const v = this.view;
    const me = v.seat;
    const them = 1 - me;
    const oppName = this.shortOpponentName();
    const limpias = (n) => (n === 1 ? "1 limpia" : `${n} limpias`);
    const playing = v.status !== "waiting";
    const box = (seat, who, cls) => h("div", { class: `score ${cls}`, "data-score-seat": String(seat) },
      h("span", { class: "who" }, who),
      h("span", { class: "pts" }, String(v.scores[seat]), h("span", { class: "sr-only" }, " puntos")),
      playing ? h("span", { class: "limpias" }, limpias(v.limpias[seat])) : null,
      playing ? this.renderTally(seat) : null,
      seat === me ? this.reactions.bubble(me) : null);
    const react = playing && this.canReact();
    if (!react) this.reactOpen = false;
    return h("header", { class: "topbar" },
      h("div", { class: "scores", role: "group", "aria-label": "Puntos de la partida y lo llevado en esta mano" },
        box(me, "Tú", "me"), box(them, oppName, "them")),
      react ? pickerToggle(this.reactOpen, () => this.toggleReactions()) : null,
      h("button", { type: "button", class: "btn menu-button", "aria-haspopup": "dialog",
        "data-focus-key": "menu", onclick: () => this.openMenu() }, "Menú"),
      react && this.reactOpen ? pickerPanel({
        onPick: (r) => this.sendReaction(r),
        onClose: () => this.closeReactions(),
        muteSwitch: this.reactions.muteSwitch(),
      }) : null,
    );
  }

  /** The table items the chosen card's "Llevarte" would take (the dashed preview). */
  previewSet(my) {
    const preview = new Set();
    if (!this.hints || !my || !this.ui.selected || this.ui.mode !== "choose" || this.ui.picked.size > 0) {
      return preview;
    }
    const opts = this.optionsFor(this.ui.selected);
    for (const id of opts?.llevarte?.take || []) preview.add(id);
    return preview;
  }

  renderMesa() {
    const v = this.view;
    const my = this.myTurn();
    const oppName = this.opponentName();
    const root = h("section", {
      class: "mesa" + (this.hints ? " hints-on" : "") + (this.ui.selected ? " choosing" : ""),
      "aria-labelledby": "mesa-title",
      "data-my-turn": String(my),
      "data-hand-number": String(v.hand_number),
      "data-seq": String(v.seq),
    });
    // opponent
    const backs = h("div", { class: "opp-cards", "aria-hidden": "true" });
    for (let i = 0; i < v.opponent_hand_size; i++) backs.append(cardBack());
    const p = this.presence;
    const away = this.isFriendGame() && p && p.state !== "here";
    const opp = h("section", { class: "opponent", "aria-label": capitalize(oppName) },
      h("p", { class: "opp-name" },
        this.isFriendGame()
          ? h("span", { class: "conn-dot" + (away ? " off" : ""), "aria-hidden": "true" }) : null,
        capitalize(oppName),
        v.opponent.kind === "computer" && v.opponent.level
          ? h("span", { class: "level" }, ` (${levelName(v.opponent.level)})`) : null,
        h("span", { class: "count" },
          ` · ${v.opponent_hand_size === 1 ? "1 carta" : v.opponent_hand_size + " cartas"}`),
        v.turns ? h("span", { class: "turns-badge" }, "Por turnos") : null),
      backs,
      h("p", { class: "deck" },
        h("span", { class: "deck-icon", "aria-hidden": "true" }),
        h("span", { "aria-hidden": "true" }, `Mazo: ${v.deck_size}`),
        h("span", { class: "sr-only" }, `Quedan ${v.deck_size} cartas en el mazo`)),
      this.watchers > 0 ? h("p", { class: "watchers-count", "data-watchers": String(this.watchers) },
        h("span", { "aria-hidden": "true" }, "👀 "),
        this.watchers === 1 ? "1 mirando" : `${this.watchers} mirando`) : null,
      this.reactions.bubble(1 - v.seat),
    );
    // table
    const tableCards = h("div", { class: "table-cards" });
    const preview = this.previewSet(my);
    for (const code of v.table.cards) {
      const picked = this.ui.picked.has(code);
      const el = cardElement(code, {
        extraLabel: picked ? "marcada" : preview.has(code) ? "te la llevarías" : "" });
      el.dataset.id = code;
      el.dataset.focusKey = "t-" + code;
      el.classList.add("table-card");
      if (picked) el.classList.add("picked");
      if (preview.has(code)) el.classList.add("would-take");
      if (picked) el.append(h("span", { class: "mark-badge", "aria-hidden": "true" }, "✓"));
      el.setAttribute("aria-pressed", String(picked));
      el.addEventListener("click", () => this.toggleTableItem(code));
      tableCards.append(el);
    }
    for (const pile of v.table.piles) {
      tableCards.append(this.renderPile(pile, preview));
    }
    const empty = v.table.cards.length === 0 && v.table.piles.length === 0;
    const table = h("section", { class: "table-area" + (empty ? " empty" : ""), "aria-label": "Cartas en la mesa" },
      empty ? h("p", { class: "table-empty" }, "La mesa está vacía") : null,
      tableCards);
    // last move and turn
    const last = h("p", { class: "lastmove" }, v.last_move ? this.moveLine(v.last_move) : "");
    const turn = h("p", { class: "turn" + (my ? " mine" : ""), "data-turn": my ? "me" : "them" },
      v.status === "finished"
        ? (v.winner === v.seat ? "¡Ganaste la partida!" : `${capitalize(oppName)} ganó la partida.`)
        : my ? "Te toca jugar" : `Le toca a ${oppName}…`);
    // hand
    const hand = h("section", { class: "hand", "aria-label": "Tu mano", tabindex: "-1" });
    for (const code of v.hand) {
      const opts = this.optionsFor(code);
      const canTake = Boolean(opts && opts.llevarte);
      const hinted = this.hints && my && canTake;
      const selected = this.ui.selected === code;
      const extra = [selected ? "escogida" : "", hinted ? "se puede llevar algo" : ""]
        .filter(Boolean).join(", ");
      const el = cardElement(code, { extraLabel: extra });
      el.classList.add("hand-card");
      el.dataset.focusKey = "h-" + code;
      if (hinted) el.classList.add("can-capture");
      if (selected) el.classList.add("selected");
      el.setAttribute("aria-pressed", String(selected));
      el.addEventListener("click", () => this.selectCard(code));
      if (hinted) el.append(h("span", { class: "hint-badge", "aria-hidden": "true" }, "✓"));
      hand.append(el);
    }
    const status = h("div", { class: "status-lines" }, last, turn,
      this.ui.error ? h("p", { class: "error-line" }, this.ui.error) : null,
      this.renderNotice());
    root.append(
      h("h1", { id: "mesa-title", class: "sr-only" }, "La mesa"),
      this.renderTopbar(),
      h("div", { class: "mesa-grid" },
        h("div", { class: "opp-area" }, opp, this.renderPresence()),
        table, status, hand, this.renderActions()));
    return root;
  }

  renderPile(pile, preview) {
    const v = this.view;
    const oppName = this.opponentName();
    const picked = this.ui.picked.has(pile.id);
    const title = pileTitle(pile, v.seat, oppName);
    // the name starts with the words on the pile ("Tu montón de 8"), then says its cards
    const label = `${title}: ${pile.cards.map(cardShort).join(" ")}, ${pile.cards.map(cardName).join(", ")}` +
      (picked ? ", marcado" : preview.has(pile.id) ? ", te lo llevarías" : "");
    const fan = h("span", { class: "pile-cards", "aria-hidden": "true" },
      pile.cards.map((c) => h("span", { class: "mini " + (isRed(c) ? "red" : "black") }, cardShort(c))));
    const el = h("button", {
      type: "button",
      class: "pile" + (pile.owner === v.seat ? " mine" : " theirs") + (pile.double ? " double" : "") +
        (picked ? " picked" : "") + (preview.has(pile.id) ? " would-take" : ""),
      "aria-label": label,
      "aria-pressed": String(picked),
      "data-id": pile.id,
      "data-focus-key": "p-" + pile.id,
      "data-pile-cards": pile.cards.join(" "),
      onclick: () => this.toggleTableItem(pile.id),
    },
    h("span", { class: "pile-title", "aria-hidden": "true" }, title),
    h("span", { class: "pile-value", "aria-hidden": "true" }, String(pile.value)),
    fan,
    picked ? h("span", { class: "mark-badge", "aria-hidden": "true" }, "✓") : null);
    return el;
  }

  renderPresence() {
    if (!this.isFriendGame() || !this.presence) return null;
    const p = this.presence;
    const name = capitalize(this.opponentName());
    if (p.state === "arriving") {
      return h("div", { class: "presence arriving", role: "status" }, `${name} está llegando a la mesa…`);
    }
    if (p.state === "here") return null;
    if (p.state === "computer") {
      return h("div", { class: "presence takeover", role: "status" },
        `${name} no está. La computadora (${levelName(p.level)}) juega por ${name} hasta que vuelva.`);
    }
    const left = this.graceLeft();
    if (this.view.turns && left > 0) {
      return h("div", { class: "presence away turns" },
        h("p", { role: "status" }, `${name} no está en la mesa ahora. Es por turnos: juega cuando pueda, y aquí lo verás.`),
        h("button", { type: "button", class: "btn ask-computer", onclick: () => this.askComputer() },
          `Que la computadora juegue por ${name}`));
    }
    if (left > 0) {
      return h("div", { class: "presence away" },
        h("p", { role: "status" }, `${name} se fue de la mesa. Lo esperamos un momento, a ver si vuelve.`),
        h("p", { class: "small" }, "Si no vuelve, en ",
          h("strong", { class: "countdown", "aria-hidden": "true" }, clockText(left)),
          h("span", { class: "sr-only" }, `${left} segundos`),
          ` podrás dejar que la computadora juegue por ${name}.`));
    }
    return h("div", { class: "presence choose", role: "group", "aria-label": `${name} no ha vuelto` },
      h("p", {}, `${name} no ha vuelto. ¿Quieres que la computadora juegue por ${name}?`),
      h("div", { class: "button-row" },
        h("button", { type: "button", class: "btn", onclick: () => this.takeover("facil") }, "Sí, en Fácil"),
        h("button", { type: "button", class: "btn", onclick: () => this.takeover("normal") }, "Sí, en Normal"),
        h("button", { type: "button", class: "btn", onclick: () => this.takeover("dificil") }, "Sí, en Difícil")),
      h("p", { class: "small" }, `Si prefieres, espera: cuando ${name} vuelva, sigue jugando.`));
  }

  renderNotice() {
    if (!this.notice) return null;
    return h("p", { class: "notice" }, this.notice);
  }

  renderActions() {
    const v = this.view;
    const bar = h("div", { class: "actions", role: "group", "aria-label": "Jugadas" });
    if (v.status === "finished") {
      const asked = v.rematch && v.rematch[v.seat];
      const wanted = v.rematch && v.rematch[1 - v.seat];
      if (wanted && !asked) {
        bar.append(h("p", { class: "hint-line" }, `${capitalize(this.opponentName())} quiere la revancha.`));
      }
      bar.append(h("button", { type: "button", class: "btn primary rematch",
        "aria-disabled": asked ? "true" : null, onclick: () => { if (!asked) this.rematch(); } },
      asked ? `Esperando a ${this.opponentName()}…` : "Revancha"),
      h("button", { type: "button", class: "btn replay", onclick: () => this.app.openReplay(this.session.token, v.match) },
        "Ver la repetición"));
      return bar;
    }
    if (!this.myTurn()) {
      bar.append(h("p", { class: "hint-line" }, "Espera tu turno."));
      return bar;
    }
    if (this.ui.pending) {
      bar.append(h("p", { class: "hint-line" }, "Jugando…"));
      return bar;
    }
    const code = this.ui.selected;
    if (!code) {
      bar.append(h("p", { class: "hint-line" }, "Toca una carta de tu mano para jugarla."));
      return bar;
    }
    const opts = this.optionsFor(code) ||
      { llevarte: null, llevarte_solo: null, builds: [], build_takes: [], trail: false };
    if (this.ui.mode === "build") {
      bar.append(this.renderBuildPanel(opts));
      return bar;
    }
    const btn = (label, onclick, extra = "") =>
      h("button", { type: "button", class: "btn action " + extra, onclick }, label);
    const row = h("div", { class: "button-row" });
    // only what the server says this card can do (a marked set may still be refused:
    // then the server says why)
    if (this.ui.picked.size > 0) {
      row.append(btn(`Llevarte lo marcado (${this.ui.picked.size})`, () => this.doCapture("picked"), "primary take-picked"));
      if (this.buildEntry(opts)) row.append(btn("Construir", () => this.startBuild(), "build"));
      row.append(btn("Quitar marcas", () => { this.ui.picked = new Set(); this.render(); }, "quiet"));
    } else {
      if (opts.llevarte) row.append(btn("Llevarte", () => this.doCapture("most"), "primary take"));
      if (opts.llevarte_solo && !sameMove(opts.llevarte_solo, opts.llevarte)) {
        const items = opts.llevarte_solo.take.map((id) => this.itemShort(id)).join(" ");
        row.append(btn(`Llevarte solo ${items}`, () => this.doCapture("solo"), "take-solo"));
      }
      if (this.buildTakes(opts).length > 0) row.append(btn("Construir", () => this.startBuild(), "build"));
      if (opts.trail) row.append(btn("Echar", () => this.doTrail(), "trail"));
    }
    const offered = row.childElementCount;
    row.append(btn("Cancelar", () => this.cancel(), "quiet cancel"));
    const title = offered > 0 || this.ui.picked.size > 0
      ? h("p", { class: "hint-line" }, "Con ", chip(code), " puedes:")
      : h("p", { class: "hint-line no-move" }, "Con ", chip(code), " no hay jugada ahora. Escoge otra carta.");
    bar.append(title, row);
    if (this.ui.picked.size === 0 && offered > 0) {
      bar.append(h("p", { class: "small" }, "También puedes tocar en la mesa lo que te quieres llevar."));
    }
    return bar;
  }

  renderBuildPanel(opts) {
    const code = this.ui.selected;
    const panel = h("div", { class: "build-panel", role: "group", "aria-label": "Construir un montón" });
    panel.append(h("div", { class: "panel-head" },
      h("p", { class: "hint-line" }, "Construir con ", chip(code)),
      h("button", { type: "button", class: "btn quiet back", onclick: () => {
        this.ui.mode = "choose";
        this.ui.picked = new Set();
        this.ui.idea = null;
        this.render();
      } }, "Volver")));
    const body = h("div", { class: "panel-body" });
    if (this.hints && opts.builds.length > 0) {
      const list = h("ul", { class: "ideas", "aria-label": "Montones que puedes hacer" });
      opts.builds.forEach((idea, i) => {
        const items = idea.move.take.map((id) => this.itemShort(id));
        const takers = idea.takers.map(cardShort).join(" o ");
        const label = `${idea.double ? "Montón doble" : "Montón"} de ${idea.value}: ` +
          `${[cardShort(code), ...items].join(" + ")}` + (takers ? ` · te lo llevas con ${takers}` : "");
        list.append(h("li", {}, h("button", {
          type: "button", class: "btn idea" + (this.ui.idea === i ? " chosen" : ""),
          "aria-pressed": String(this.ui.idea === i), onclick: () => this.chooseIdea(i),
        }, label)));
      });
      body.append(h("p", { class: "small" }, "Ideas:"), list);
    }
    const confirm = h("div", { class: "button-row confirm-row" });
    if (this.ui.picked.size === 0) {
      body.append(h("p", { class: "small pick-line" }, this.hints && opts.builds.length > 0
        ? "O toca tú en la mesa las cartas o montones que quieres juntar con esta carta."
        : "Toca en la mesa las cartas o montones que quieres juntar con esta carta."));
    } else {
      const entry = this.buildEntry(opts);
      const items = [cardShort(code), ...[...this.ui.picked].map((id) => this.itemShort(id))].join(" + ");
      if (entry) {
        body.append(h("p", { class: "small pick-line" }, `Con ${items} puedes hacer:`));
        for (const value of entry.values) {
          confirm.append(h("button", { type: "button", class: "btn primary build-confirm",
            "data-value": String(value), "data-focus-key": "b-" + value,
            onclick: () => this.confirmBuild(value) }, `Construir montón de ${value}`));
        }
      } else {
        body.append(h("p", { class: "small pick-line no-build" }, `Con ${items} no sale un montón.`));
        confirm.append(h("button", { type: "button", class: "btn why-not",
          onclick: () => this.confirmBuild(this.plainSum()) }, "¿Por qué no?"));
      }
    }
    panel.append(body);
    if (confirm.childElementCount) panel.append(confirm);
    return panel;
  }

  itemShort(id) {
    const pile = this.view.table.piles.find((p) => p.id === id);
    if (pile) return `montón de ${pile.value}`;
    return cardShort(id);
  }

  // ---------------------------------------------------------------- dialogs

  openMenu() {
    const v0 = this.view || {};
    const hintsButton = h("button", {
      type: "button", class: "btn switch", role: "switch", "aria-checked": String(this.hints),
      onclick: () => {
        this.setHints(!this.hints);
        hintsButton.setAttribute("aria-checked", String(this.hints));
        hintsButton.querySelector(".state").textContent = this.hints ? "Sí" : "No";
      },
    }, "Ayudas: ", h("span", { class: "state" }, this.hints ? "Sí" : "No"));
    const alertsLine = h("p", { class: "small", "aria-live": "polite" },
      "Cuando estés en otra pestaña o aplicación, te avisamos con una notificación.");
    const alertsButton = h("button", {
      type: "button", class: "btn switch alerts", role: "switch", "aria-checked": String(loadAlerts()),
      onclick: async () => {
        let on = !loadAlerts();
        if (on && !(await askPermission())) {
          on = false;
          alertsLine.textContent = "El navegador no dejó mostrar avisos. Puedes permitirlos en sus ajustes.";
        }
        saveAlerts(on);
        alertsButton.setAttribute("aria-checked", String(on));
        alertsButton.querySelector(".state").textContent = on ? "Sí" : "No";
      },
    }, "Avisarme cuando me toque: ", h("span", { class: "state" }, loadAlerts() ? "Sí" : "No"));
    const current = loadAnimMs(reducedMotion());
    const speedNames = { despacio: "Despacio", normal: "Normal", rapido: "Rápido" };
    const speedRow = h("div", { class: "button-row speed", role: "group", "aria-labelledby": "speed-label" });
    for (const [key, ms] of Object.entries(SPEEDS)) {
      const button = h("button", { type: "button", class: "btn", "aria-pressed": String(current === ms),
        onclick: () => {
          saveAnimMs(ms);
          speedRow.querySelectorAll("button").forEach((b) => b.setAttribute("aria-pressed", String(b === button)));
          announce(`Velocidad: ${speedNames[key]}.`);
        } }, speedNames[key]);
      speedRow.append(button);
    }
    const dialog = openDialog({
      title: "Menú",
      className: "menu",
      onClose: () => this.refocus(),
      body: h("div", { class: "menu-list" },
        hintsButton,
        h("p", { class: "small" }, "Con las ayudas, las cartas que se pueden llevar algo tienen borde verde."),
        h("p", { id: "speed-label", class: "menu-label" }, "Velocidad de las jugadas de tu contrario:"),
        speedRow,
        "Notification" in window ? alertsButton : null,
        "Notification" in window ? alertsLine : null,
        this.reactions.muteSwitch(),
        v0.watch_url ? h("button", { type: "button", class: "btn watch-invite",
          onclick: () => { dialog.close(); this.openWatchInvite(); } }, "Invitar a mirar la partida") : null,
        h("button", { type: "button", class: "btn", onclick: () => { dialog.close(); this.openMoveDevice(); } },
          "Seguir en otro dispositivo"),
        h("button", { type: "button", class: "btn", onclick: () => { dialog.close(); this.openHelp(); } },
          "Cómo se juega"),
        h("button", { type: "button", class: "btn quiet", onclick: () => { dialog.close(); this.app.goHome(null, true); } },
          "Salir al inicio"),
        h("p", { class: "small" }, "Tu partida queda guardada en este dispositivo: la puedes continuar desde el inicio."),
      ),
    });
  }

  /** The watch link: family and friends follow the table without seeing a hand. */
  openWatchInvite() {
    const path = this.view?.watch_url;
    if (!path) return;
    const url = new URL(path, window.location.origin).href;
    const text = `¡Mira nuestra partida de casino! ${url}`;
    const line = h("p", { class: "small", role: "status" });
    openDialog({
      title: "Invitar a mirar", className: "watch-dialog", onClose: () => this.refocus(),
      body: h("div", { class: "move-device" },
        h("p", {}, "Con este enlace, quien quieras mira la mesa mientras juegan: ve las jugadas y los puntos, nunca las cartas de la mano."),
        h("p", { class: "invite-link" }, h("a", { href: url, "data-watch-link": "", target: "_blank", rel: "noopener" }, url)),
        h("div", { class: "button-row" },
          h("button", { type: "button", class: "btn", onclick: async () => {
            try {
              await navigator.clipboard.writeText(url);
              line.textContent = "Enlace copiado.";
            } catch {
              line.textContent = "No se pudo copiar. Mantén el dedo sobre el enlace para copiarlo.";
            }
          } }, "Copiar enlace"),
          h("a", { class: "btn whatsapp", href: "https://wa.me/?text=" + encodeURIComponent(text),
            target: "_blank", rel: "noopener" }, "Enviar por WhatsApp")),
        line,
        qrImage(path, "Código QR del enlace para mirar")),
    });
  }

  openHelp() {
    openDialog({ title: "Cómo se juega", className: "help", body: h("div", { class: "prose", html: COMO_SE_JUEGA }),
      onClose: () => this.refocus() });
  }

  async openMoveDevice() {
    const body = h("div", { class: "move-device" }, h("p", {}, "Pidiendo un código…"));
    openDialog({ title: "Seguir en otro dispositivo", className: "move", body, onClose: () => this.refocus() });
    try {
      const data = await newRejoinCode(this.session.token);
      const url = new URL(data.url, window.location.origin).href;
      const minutes = Math.max(1, Math.round(data.expires_in / 60));
      body.replaceChildren(
        h("p", {}, "En el otro dispositivo, abre este enlace o escanea el código QR:"),
        h("p", { class: "invite-link" }, h("a", { href: url, "data-rejoin-link": "" }, url)),
        qrImage(data.url, "Código QR para seguir la partida"),
        h("p", {}, "O, en el inicio del juego, escribe este código:"),
        h("p", { class: "big-code" }, h("span", { "data-rejoin-code": "", "aria-hidden": "true" }, data.code),
          h("span", { class: "sr-only" }, "Código: " + data.code.split("").join(" "))),
        h("p", { class: "small" }, `Sirve una sola vez, por ${minutes} minutos. Cuando entres en el otro dispositivo, aquí se cierra la partida.`),
        h("button", { type: "button", class: "btn", onclick: async () => {
          try {
            await navigator.clipboard.writeText(url);
            announce("Enlace copiado.");
          } catch {
            announce("No se pudo copiar.");
          }
        } }, "Copiar enlace"),
      );
    } catch (error) {
      body.replaceChildren(h("p", { class: "error-line", role: "alert" }, error.message));
    }
  }

  closeSheet() {
    if (this.sheet) {
      const sheet = this.sheet;
      this.sheet = null;
      sheet.close();
    }
  }

  openHandSheet(event) {
    const v = this.view;
    const me = v.seat;
    const them = 1 - me;
    const r = event.result;
    const oppName = capitalize(this.opponentName());
    const facts = sheetFacts(r);
    const gained = (i) => r.scores[i] - facts.before[i];
    const parts = [sheetTable(facts, me, this.shortOpponentName()), ...sheetNotes(facts, me, oppName)];
    if (r.swept && r.swept.length) {
      parts.push(h("p", { class: "small" },
        `Lo que quedó en la mesa (${r.swept.length === 1 ? "1 carta" : r.swept.length + " cartas"}) fue para ${
          r.sweeper === me ? "ti, porque fuiste" : this.opponentName() + ", porque fue"} quien se llevó algo de último.`));
    }
    const handNumber = event.hand_number ?? v.hand_number;
    const finished = r.winner !== null && r.winner !== undefined;
    let title = `Fin de la mano ${handNumber + 1}`;
    if (finished) {
      title = r.winner === me ? "¡Ganaste la partida!" : `${oppName} ganó la partida`;
      parts.push(h("p", { class: "winner", "data-winner": String(r.winner) },
        r.winner === me ? "¡Llegaste a 21! Felicidades." : `${oppName} llegó a 21.`));
      parts.push(h("p", { class: "small" },
        "Los puntos se cuentan en orden, de arriba abajo, y se deja de contar cuando alguien llega a 21."));
    } else {
      parts.push(h("p", { class: "small" }, "Nadie ha llegado a 21: seguimos con otra mano."));
    }
    const buttons = h("div", { class: "button-row" });
    if (finished) {
      const rematchBtn = h("button", { type: "button", class: "btn primary rematch" }, "Revancha");
      rematchBtn.addEventListener("click", () => {
        this.rematch();
        if (this.isFriendGame()) {
          rematchBtn.textContent = `Esperando a ${this.opponentName()}…`;
          rematchBtn.setAttribute("aria-disabled", "true");
        }
      });
      parts.push(h("p", { class: "rematch-note", role: "status" }));
      const match = v.match;
      buttons.append(rematchBtn,
        h("button", { type: "button", class: "btn replay", onclick: () => { this.closeSheet(); this.app.openReplay(this.session.token, match); } },
          "Ver la repetición"),
        h("button", { type: "button", class: "btn quiet", onclick: () => { this.closeSheet(); this.app.goHome(null, true); } },
          "Volver al inicio"));
    } else {
      buttons.append(h("button", { type: "button", class: "btn primary next-hand", onclick: () => this.closeSheet() },
        "Seguir jugando"));
    }
    parts.push(buttons);
    announce(`${title}. Tú sumaste ${gained(me)}, ${oppName} ${gained(them)}. En la partida: tú ${r.scores[me]}, ${oppName} ${r.scores[them]}.`);
    this.sheet = openDialog({
      title, body: h("div", {}, parts), className: "sheet" + (finished ? " final" : ""),
      closeLabel: finished ? "Cerrar" : "Seguir jugando",
      onClose: () => {
        this.sheet = null;
        this.render();
        this.refocus();
        this.pump();
      },
    });
    this.sheet.dataset.handNumber = String(handNumber);
    if (finished && this.rematchSeen) this.noteRematchWish({ seat: v.seat, rematch: this.rematchSeen });
  }
}

function freshUi() {
  return { selected: null, picked: new Set(), mode: "choose", buildValue: null, idea: null,
    pending: null, error: null };
}

function sameMove(a, b) {
  if (!a || !b) return false;
  return a.kind === b.kind && a.card === b.card &&
    JSON.stringify([...(a.take || [])].sort()) === JSON.stringify([...(b.take || [])].sort());
}

function chip(code) {
  return h("span", { class: "chip " + (isRed(code) ? "red" : "black") }, cardShort(code));
}

function setBanner(text) {
  const banner = document.getElementById("banner");
  if (!banner) return;
  if (text) {
    banner.textContent = text;
    banner.hidden = false;
  } else {
    banner.hidden = true;
    banner.textContent = "";
  }
}

/** A set or list of table item ids as one comparable string (order does not matter). */
function sortedKey(items) {
  return JSON.stringify([...items].sort());
}

function sameEvent(a, b) {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** "0:25" */
function clockText(seconds) {
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}`;
}

