// Mirar una mesa (/v/<code>): the table of a game, read only, as it happens. The watcher
// view (docs/protocol.md, "Watching") has no hand and no deck: both hands are card backs.
// No move controls; the players' quick reactions show for a few seconds (and can be muted).

import { TEAMS, teamOf, teamSeats } from "../engine/seats.js";
import { t } from "../lib/i18n.js";
import { watchRoom } from "../lib/api.js";
import { announce, capitalize, h } from "../lib/dom.js";
import { playerPanel, scoreBoxes, watchersCount } from "../ui/panels.js";
import { deckLine, tableArea } from "../ui/table.js";
import {
  handEndWords, matchEndWords, moveLine, moveSentence, newHandWords, rematchWords,
} from "../ui/words.js";
import { LiveTable } from "./live.js";
import { personChair, seatCount } from "./mesa/names.js";
import { shownName } from "../ui/chairs.js";

export class WatchTable extends LiveTable {
  /**
   * @param {HTMLElement} root where the table is drawn
   * @param {string} code the watch code
   * @param {object} app {failed(code, message)}
   */
  constructor(root, code, app) {
    super(root, { watch: code, since: null }, {
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
    this.app = app;
    this.view = null;
    this.watchers = 0;
    this.status = "connecting";
  }

  /** The room first (its socket names it), then the socket; a code that leads nowhere is
   * said at once; when the lookup cannot be made, the socket goes without the room. */
  async start() {
    this.render();
    try {
      const found = await watchRoom(this.conn.session.watch);
      this.conn.session.room = found.room;
    } catch (err) {
      const code = /** @type {{code?: string}} */ (err).code;
      if (code === "watch_unknown") {
        this.stop();
        this.app.failed(code, /** @type {Error} */ (err).message);
        return;
      }
    }
    if (!this.stopped) this.conn.open();
  }

  // ---------------------------------------------------------------- messages

  onMessage(msg) {
    switch (msg.type) {
      case "watching": {
        const first = !this.view;
        this.setView(msg.view);
        this.render();
        if (first) {
          announce(this.four()
            ? t("watch.start_four", { a: this.teamName(0), b: this.teamName(1), turn: this.turnWords() })
            : t("watch.start", { a: this.name(0), b: this.name(1), turn: this.turnWords() }));
          this.root.querySelector("h1")?.focus({ preventScroll: true });
        } else {
          announce(t("mesa.reconnected", { turn: this.turnWords() }));
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
        if (this.view) this.reactions.receive(msg.seat, msg.reaction, capitalize(this.name(msg.seat)));
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
    const four = this.four();
    // the scores are the teams' (with two seats, each seat is its team)
    const names = four ? TEAMS.map((team) => this.teamName(team)) : [this.name(0), this.name(1)];
    if (event.kind === "move") {
      this.render();
      announce(moveSentence(event, this.mover(event)) + " " + this.turnWords());
    } else if (event.kind === "hand_end") {
      this.notice.show(handEndWords(event, names, four));
    } else if (event.kind === "match_end") {
      this.notice.show(matchEndWords(event, names, four));
    } else if (event.kind === "rematch") {
      this.notice.show(rematchWords());
    } else if (event.kind === "new_hand") {
      this.render();
      announce(`${newHandWords(event)} ${this.turnWords()}`);
    } else {
      this.render();
    }
  }

  // ---------------------------------------------------------------- words

  /** A table of four is being watched. */
  four() {
    return Boolean(this.view) && seatCount(this.view) === 4;
  }

  /** A seat as a sentence says it: "Ana", "la computadora" (at a table of four, where more
   * than one may play: "la computadora 3", by the seat's number). */
  name(seat) {
    const v = this.view;
    const fallback = t("watch.player", { n: seat + 1 });
    if (!v) return fallback;
    if (this.four() && !personChair(v, seat)) return t("watch.computer_n", { n: seat + 1 });
    if (!this.four() && v.players && v.players[seat].kind === "computer") return t("games.computer");
    return shownName(v.names[seat], seat, v.players?.[seat]) || fallback;
  }

  /** A team of a table of four as a sentence starts it: "Ana y Beto". */
  teamName(team) {
    const [a, b] = teamSeats(team, 4);
    return t("watch.team", { a: capitalize(this.name(a)), b: this.name(b) });
  }

  mover(event) {
    return { who: capitalize(this.name(event.seat)), table: this.view.table };
  }

  turnWords() {
    const v = this.view;
    if (!v) return "";
    if (v.status === "waiting") return t("watch.waits", { name: capitalize(this.name(0)) });
    if (v.status === "finished") return t("turn.over");
    return t("turn.theirs", { name: this.name(v.turn) });
  }

  // ---------------------------------------------------------------- drawing

  render() {
    if (this.stopped) return;
    const focusKey = document.activeElement?.dataset?.focusKey;
    const v = this.view;
    let content;
    if (!v) {
      content = h("section", { class: "mesa loading-mesa watching", "aria-busy": "true" },
        h("h1", { class: "sr-only" }, t("watch.title")),
        h("p", { class: "loading" }, this.status === "reconnecting" ? t("mesa.reconnecting") : t("mesa.opening")));
    } else {
      content = this.renderTable();
    }
    this.root.replaceChildren(content);
    this.root.dataset.screen = "mirar";
    if (focusKey) this.root.querySelector(`[data-focus-key="${focusKey}"]`)?.focus({ preventScroll: true });
  }

  renderTable() {
    const v = this.view;
    const head = h("div", { class: "watch-head" },
      h("h1", { id: "watch-title", tabindex: "-1" }, t("watch.watching")),
      watchersCount(this.watchers),
      this.reactions.muteSwitch());
    const four = this.four();
    const won = () => (four ? t("watch.won_team", { name: this.teamName(v.winner) })
      : t("watch.won", { name: capitalize(this.name(v.winner)) }));
    const turn = v.status === "finished"
      ? (v.winner !== null && v.winner !== undefined ? won() : t("turn.over"))
      : v.status === "waiting" ? t("watch.waits_line", { name: capitalize(this.name(0)) }) : t("watch.turn", { name: this.name(v.turn) });
    const status = h("div", { class: "status-lines" },
      h("p", { class: "lastmove" }, v.last_move ? moveLine(v.last_move, this.mover(v.last_move)) : ""),
      h("p", { class: "turn", "data-turn": String(v.turn) }, turn),
      this.notice.line(),
      this.status === "reconnecting" ? h("p", { class: "notice" }, t("mesa.reconnecting")) : null);
    const playing = v.status !== "waiting";
    // at a table of four a box is a team's: "Ana y Beto"
    const box = (seat) => ({ seat, who: four ? this.teamName(teamOf(seat)) : capitalize(this.name(seat)),
      score: v.scores[teamOf(seat)], limpias: v.limpias[teamOf(seat)], tally: playing ? v.tally[teamOf(seat)] : null });
    // seat 0 near; at a table of four the other three as seat 0 would see them: the seat
    // before it on the left, its partner across, the seat after it on the right
    const far = four ? h("div", { class: "around-seats" }, [3, 2, 1].map((seat) => this.renderPlayer(seat)))
      : this.renderPlayer(1);
    return h("section", { class: "mesa watching" + (four ? " four" : ""), "aria-labelledby": "watch-title",
      "data-seq": String(v.seq), "data-status": v.status, "data-busy": String(this.status !== "online") },
    h("header", { class: "topbar" }, scoreBoxes(box(0), box(1))),
    head,
    h("div", { class: "mesa-grid watch-grid" },
      h("div", { class: "opp-area" + (four ? " around" : "") }, far),
      tableArea(v.table, { seat: null, ownerName: (seat) => this.name(seat) }),
      status,
      h("div", { class: "near-area" }, this.renderPlayer(0))));
  }

  renderPlayer(seat) {
    const v = this.view;
    const p = v.presence[seat];
    const person = personChair(v, seat);
    let state = "";
    if (person && p.state === "computer") state = t("watch.computer_for", { name: this.name(seat) });
    else if (person && p.state === "arriving") state = t("watch.arriving");
    else if (person && p.state === "away") state = t("watch.away");
    return playerPanel({
      seat,
      name: capitalize(this.name(seat)),
      person,
      away: person && p.state !== "here",
      level: v.players[seat].level,
      handSize: v.hand_sizes[seat],
      badges: [state ? h("span", { class: "level" }, state) : null,
        v.turn === seat && v.status === "playing" ? h("span", { class: "turn-mark" }, ` · ${t("four.plays_now")}`) : null],
      below: [seat === 1 ? deckLine(v.deck_size) : null, this.reactions.bubble(seat)],
    }, "opponent player");
  }
}
