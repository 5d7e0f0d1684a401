// Mirar una mesa (/v/<code>): the table of a game, read only, as it happens. The watcher
// view (docs/protocol.md, "Watching") has no hand and no deck: both hands are card backs.
// No move controls; the players' quick reactions show for a few seconds (and can be muted).

import { cardBack, cardElement, cardName, cardNameWithArticle, cardShort, isRed } from "./cards.js";
import { Connection } from "./connection.js";
import { announce, capitalize, h } from "./dom.js";
import { ReactionBubbles } from "./reactions.js";
import { levelName } from "./texts.js";

export class WatchTable {
  /**
   * @param {HTMLElement} root where the table is drawn
   * @param {string} code the watch code
   * @param {object} app {goHome(message), failed(message)}
   */
  constructor(root, code, app) {
    this.root = root;
    this.app = app;
    this.view = null;
    this.watchers = 0;
    this.status = "connecting";
    this.notice = null;
    this.noticeTimer = null;
    this.stopped = false;
    this.reactions = new ReactionBubbles(() => this.render());
    this.conn = new Connection({ watch: code, since: null }, {
      onMessage: (msg) => this.onMessage(msg),
      onStatus: (status) => {
        this.status = status;
        this.render();
      },
      onFatal: (errorCode, message) => {
        this.stop();
        this.app.failed(errorCode, message);
      },
    });
    this.onVisible = () => {
      if (document.visibilityState === "visible") this.conn.nudge();
    };
    this.onOnline = () => this.conn.nudge();
    window.addEventListener("online", this.onOnline);
    document.addEventListener("visibilitychange", this.onVisible);
  }

  start() {
    this.render();
    this.conn.open();
  }

  stop() {
    this.stopped = true;
    this.conn.close();
    this.reactions.stop();
    clearTimeout(this.noticeTimer);
    window.removeEventListener("online", this.onOnline);
    document.removeEventListener("visibilitychange", this.onVisible);
  }

  // ---------------------------------------------------------------- messages

  onMessage(msg) {
    switch (msg.type) {
      case "watching": {
        const first = !this.view;
        this.setView(msg.view);
        this.render();
        if (first) {
          announce(`Estás mirando la mesa de ${this.name(0)} y ${this.name(1)}. ${this.turnWords()}`);
          this.root.querySelector("h1")?.focus({ preventScroll: true });
        } else {
          announce("Conexión recuperada. " + this.turnWords());
        }
        break;
      }
      case "events":
        this.setView(msg.view);
        for (const event of msg.events) this.onRoomEvent(event);
        break;
      case "state":
      case "presence":
        if (msg.view) this.setView(msg.view);
        else if (this.view && msg.presence) this.view.presence[msg.seat] = msg.presence;
        this.render();
        break;
      case "watchers":
        this.watchers = msg.count;
        this.render();
        break;
      case "reaction":
        if (this.view) this.reactions.receive(msg.seat, msg.reaction, this.name(msg.seat));
        break;
      default:
        break;
    }
  }

  setView(view) {
    this.view = view;
    if (typeof view.watchers === "number") this.watchers = view.watchers;
  }

  /** One event of an `events` frame (the view is already the one after it). */
  onRoomEvent(event) {
    if (event.kind === "move") {
      this.render();
      announce(this.describe(event) + " " + this.turnWords());
    } else if (event.kind === "hand_end") {
      const r = event.result;
      const before = r.scores_before;
      this.flash(`Terminó la mano ${event.hand_number + 1}. ${this.name(0)} sumó ${r.scores[0] - before[0]}, ` +
        `${this.name(1)} ${r.scores[1] - before[1]}. En la partida: ${this.name(0)} ${r.scores[0]}, ` +
        `${this.name(1)} ${r.scores[1]}.`);
    } else if (event.kind === "match_end") {
      this.flash(event.winner === null || event.winner === undefined
        ? "La partida terminó."
        : `¡${this.name(event.winner)} ganó la partida, ${event.scores[event.winner]} a ${event.scores[1 - event.winner]}!`);
    } else if (event.kind === "rematch") {
      this.flash("¡Revancha! Empieza otra partida.");
    } else if (event.kind === "new_hand") {
      this.render();
      announce(`Empieza la mano ${event.hand_number + 1}. ${this.turnWords()}`);
    } else {
      this.render();
    }
  }

  flash(text) {
    this.notice = text;
    announce(text);
    clearTimeout(this.noticeTimer);
    this.noticeTimer = setTimeout(() => {
      this.notice = null;
      this.render();
    }, 8000);
    this.render();
  }

  // ---------------------------------------------------------------- words

  name(seat) {
    const v = this.view;
    const fallback = seat === 0 ? "Jugador 1" : "Jugador 2";
    if (!v) return fallback;
    if (v.players && v.players[seat].kind === "computer") return "la computadora";
    return v.names[seat] || fallback;
  }

  turnWords() {
    const v = this.view;
    if (!v) return "";
    if (v.status === "waiting") return `${capitalize(this.name(0))} espera a su amigo.`;
    if (v.status === "finished") return "La partida terminó.";
    return `Le toca a ${this.name(v.turn)}.`;
  }

  describe(event) {
    const who = capitalize(this.name(event.seat));
    const m = event.move;
    const card = cardNameWithArticle(m.card);
    if (m.kind === "capture") {
      const taken = (event.taken || []).filter((c) => c !== m.card).map(cardName).join(", ");
      return `${who} jugó ${card} y se llevó ${taken}.` + (event.limpia ? " ¡Limpia!" : "");
    }
    if (m.kind === "build") return `${who} puso ${card} e hizo un montón de ${m.value}.`;
    return `${who} echó ${card} a la mesa.`;
  }

  moveLine(event) {
    const m = event.move;
    const nodes = [h("span", { class: "who" }, capitalize(this.name(event.seat))), " "];
    if (m.kind === "capture") {
      nodes.push("jugó ", chip(m.card), " y se llevó ");
      (event.taken || []).filter((c) => c !== m.card).forEach((c, i) => {
        if (i) nodes.push(" ");
        nodes.push(chip(c));
      });
      if (event.limpia) nodes.push(h("strong", { class: "limpia" }, " ¡Limpia!"));
    } else if (m.kind === "build") {
      nodes.push("puso ", chip(m.card), `: montón de ${m.value}`);
    } else {
      nodes.push("echó ", chip(m.card), " a la mesa");
    }
    return [h("span", { class: "sr-only" }, this.describe(event)),
      h("span", { "aria-hidden": "true" }, nodes)];
  }

  // ---------------------------------------------------------------- drawing

  render() {
    if (this.stopped) return;
    const focusKey = document.activeElement?.dataset?.focusKey;
    const v = this.view;
    let content;
    if (!v) {
      content = h("section", { class: "mesa loading-mesa watching", "aria-busy": "true" },
        h("h1", { class: "sr-only" }, "Mirar una mesa"),
        h("p", { class: "loading" }, this.status === "reconnecting" ? "Reconectando…" : "Abriendo la mesa…"));
    } else {
      content = this.renderTable();
    }
    this.root.replaceChildren(content);
    this.root.dataset.screen = "mirar";
    if (focusKey) this.root.querySelector(`[data-focus-key="${focusKey}"]`)?.focus({ preventScroll: true });
  }

  renderTable() {
    const v = this.view;
    const root = h("section", { class: "mesa watching", "aria-labelledby": "watch-title",
      "data-seq": String(v.seq), "data-status": v.status,
      "data-busy": String(this.status !== "online") });
    const eyes = this.watchers === 1 ? "1 persona mirando" : `${this.watchers} personas mirando`;
    const head = h("div", { class: "watch-head" },
      h("h1", { id: "watch-title", tabindex: "-1" }, "Estás mirando"),
      h("p", { class: "watchers-count", "data-watchers": String(this.watchers) },
        h("span", { "aria-hidden": "true" }, "👀 "), eyes),
      this.reactions.muteSwitch());
    const status = h("div", { class: "status-lines" },
      h("p", { class: "lastmove" }, v.last_move ? this.moveLine(v.last_move) : ""),
      h("p", { class: "turn", "data-turn": String(v.turn) },
        v.status === "finished"
          ? (v.winner !== null && v.winner !== undefined ? `¡${capitalize(this.name(v.winner))} ganó la partida!` : "La partida terminó.")
          : v.status === "waiting" ? `${capitalize(this.name(0))} espera a su amigo…` : `Le toca a ${this.name(v.turn)}`),
      this.notice ? h("p", { class: "notice" }, this.notice) : null,
      this.status === "reconnecting" ? h("p", { class: "notice" }, "Reconectando…") : null);
    root.append(
      this.renderScores(),
      head,
      h("div", { class: "mesa-grid watch-grid" },
        h("div", { class: "opp-area" }, this.renderPlayer(1)),
        this.renderTableArea(),
        status,
        h("div", { class: "near-area" }, this.renderPlayer(0))));
    return root;
  }

  renderScores() {
    const v = this.view;
    const limpias = (n) => (n === 1 ? "1 limpia" : `${n} limpias`);
    const box = (seat) => {
      const t = v.tally ? v.tally[seat] : null;
      return h("div", { class: `score ${seat === 0 ? "me" : "them"}`, "data-score-seat": String(seat) },
        h("span", { class: "who" }, capitalize(this.name(seat))),
        h("span", { class: "pts" }, String(v.scores[seat]), h("span", { class: "sr-only" }, " puntos")),
        h("span", { class: "limpias" }, limpias(v.limpias[seat])),
        t ? h("span", { class: "tally", "data-tally-seat": String(seat), "data-cards": String(t.cards) },
          `${t.cards} cartas · ${t.spades} ${t.spades === 1 ? "pica" : "picas"}`,
          t.ten_of_diamonds ? h("span", { class: "t-key red" }, " 10♦") : null,
          t.two_of_spades ? h("span", { class: "t-key" }, " 2♠") : null) : null);
    };
    return h("header", { class: "topbar" },
      h("div", { class: "scores", role: "group", "aria-label": "Puntos de la partida" }, box(0), box(1)));
  }

  renderPlayer(seat) {
    const v = this.view;
    const n = v.hand_sizes[seat];
    const p = v.presence[seat];
    const person = v.players[seat].kind === "person";
    const away = person && p.state !== "here";
    const backs = h("div", { class: "opp-cards", "aria-hidden": "true" });
    for (let i = 0; i < n; i++) backs.append(cardBack());
    const level = v.players[seat].level;
    let state = "";
    if (person && p.state === "computer") state = ` (la computadora juega por ${this.name(seat)})`;
    else if (person && p.state === "arriving") state = " (llegando)";
    else if (person && p.state === "away") state = " (no está)";
    return h("section", { class: "opponent player", "data-seat": String(seat),
      "aria-label": capitalize(this.name(seat)) },
    h("p", { class: "opp-name" },
      person ? h("span", { class: "conn-dot" + (away ? " off" : ""), "aria-hidden": "true" }) : null,
      capitalize(this.name(seat)),
      !person && level ? h("span", { class: "level" }, ` (${levelName(level)})`) : null,
      h("span", { class: "count", "data-hand-size": String(n) }, ` · ${n === 1 ? "1 carta" : n + " cartas"}`),
      state ? h("span", { class: "level" }, state) : null,
      v.turn === seat && v.status === "playing" ? h("span", { class: "turn-mark" }, " · le toca") : null),
    backs,
    seat === 1 ? h("p", { class: "deck" },
      h("span", { class: "deck-icon", "aria-hidden": "true" }),
      h("span", { "aria-hidden": "true" }, `Mazo: ${v.deck_size}`),
      h("span", { class: "sr-only" }, `Quedan ${v.deck_size} cartas en el mazo`)) : null,
    this.reactions.bubble(seat));
  }

  renderTableArea() {
    const v = this.view;
    const cards = h("div", { class: "table-cards" });
    for (const code of v.table.cards) {
      const el = cardElement(code, { interactive: false });
      el.classList.add("table-card");
      cards.append(el);
    }
    for (const pile of v.table.piles) {
      const owner = capitalize(this.name(pile.owner));
      const kind = pile.double ? "Montón doble" : "Montón";
      const title = `${kind} de ${pile.value} de ${owner}`;
      cards.append(h("div", {
        class: "pile" + (pile.owner === 0 ? " mine" : " theirs") + (pile.double ? " double" : ""),
        role: "img", "data-id": pile.id, "data-pile-cards": pile.cards.join(" "),
        "aria-label": `${title}: ${pile.cards.map(cardName).join(", ")}`,
      },
      h("span", { class: "pile-title", "aria-hidden": "true" }, `${kind} de ${owner}`),
      h("span", { class: "pile-value", "aria-hidden": "true" }, String(pile.value)),
      h("span", { class: "pile-cards", "aria-hidden": "true" },
        pile.cards.map((c) => h("span", { class: "mini " + (isRed(c) ? "red" : "black") }, cardShort(c))))));
    }
    const empty = v.table.cards.length === 0 && v.table.piles.length === 0;
    return h("section", { class: "table-area" + (empty ? " empty" : ""), "aria-label": "Cartas en la mesa" },
      empty ? h("p", { class: "table-empty" }, "La mesa está vacía") : null, cards);
  }
}

function chip(code) {
  return h("span", { class: "chip " + (isRed(code) ? "red" : "black") }, cardShort(code));
}
