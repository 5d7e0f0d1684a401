// The friends' presence at la mesa: arriving, here, away (with the grace countdown, run
// from the seconds the server said were left, never from a clock) and played by the
// computer; what is said when it changes, and the panel that offers the computer. One per
// other seat: at a table of four any person at it may hand an absent friend's chair to
// the computer once the grace time is over (the takeover names the seat).

import { duration, parts, t } from "../../lib/i18n.js";
import { announce, capitalize, h, openDialog } from "../../lib/dom.js";
import { others, rivals } from "../../engine/seats.js";
import { levelName } from "../../ui/texts.js";
import { refocus } from "./focus.js";

/** "0:25" */
function clockText(seconds) {
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}`;
}

/** The countdown as a screen reader reads it: "25 segundos". */
function spokenClock(seconds) {
  return duration(seconds, "second");
}

/** Por turnos' long wait (the server's setting) in words: "24 horas" (a test server's
 * short one: "5 segundos", "10 minutos"). */
export function waitWords(seconds) {
  if (seconds >= 3600) return duration(Math.round(seconds / 3600), "hour");
  if (seconds >= 60) return duration(Math.round(seconds / 60), "minute");
  return duration(Math.max(1, Math.round(seconds)), "second");
}

/** The seat spoken of when none is named: the opponent (a room of two). */
function defaultSeat(view) {
  return view ? rivals(view.seat, view.names.length)[0] : 1;
}

/** How many seats the table has. */
function seatCount(view) {
  return view?.seat_count || view?.names?.length || 2;
}

// the name the server gives a computer's own chair (server/rooms/views.py COMPUTER_NAME)
const COMPUTER_CHAIR = "Computadora";

/** Whether `seat` is a person's chair (a friend, away or played by the computer for now),
 * not the computer's own; `seen`: this page saw a person there. */
export function personChair(view, seat, seen = false) {
  if (!view) return false;
  const chair = view.players?.[seat]?.chair; // said outright, where the server says it
  if (chair) return chair !== "computer";
  const p = view.presence?.[seat];
  if (seen || !p || p.state !== "computer") return true;
  // the computer from the start: its own chair, unless the name is a person's
  const name = view.names?.[seat];
  return name !== COMPUTER_CHAIR && name !== t("names.computer_short");
}

/** A person's name inside a sentence: "Beto", "tu amigo" before they have one. */
function nameOf(view, seat) {
  return capitalize(view?.names?.[seat] || t("games.friend"));
}

export class Presence {
  /**
   * Every other seat's presence (`set(p, seat)`, or `setAll(view)`); `current` and the
   * calls with no seat speak of the opponent of a room of two.
   * @param {object} hooks {root() (where the countdown is drawn), render(), flash(text),
   *   view() (the view: the names, whose chairs are friends')}
   */
  constructor(hooks) {
    this.hooks = hooks;
    this.seats = new Map(); // seat -> {current, graceUntil, timer, timeout, seenHere}
  }

  entry(seat) {
    let e = this.seats.get(seat);
    if (!e) {
      // current: the seat's presence {state, grace_left, level}; graceUntil: performance.now()
      // when its grace time ends; seenHere: this page has seen the friend connected
      // wasPerson: this page saw a person's presence there (not the computer's)
      e = { current: null, graceUntil: null, timer: null, timeout: null, seenHere: false, wasPerson: false };
      this.seats.set(seat, e);
    }
    return e;
  }

  /** The opponent's presence (a room of two). */
  get current() {
    return this.of(defaultSeat(this.hooks.view()));
  }

  /** The presence of `seat`, or null before it was told. */
  of(seat) {
    return this.seats.get(seat)?.current ?? null;
  }

  /** Every other seat's presence, as a view tells it (`later`: while la mesa is being
   * drawn, what is said of a change waits until it is drawn). */
  setAll(view, later = false) {
    if (!view || !Array.isArray(view.presence)) return;
    view.presence.forEach((p, seat) => {
      if (seat !== view.seat && p) this.set(p, seat, later);
    });
  }

  /** A seat's presence changed (or was first seen): say so, start the countdown. */
  set(p, seat = defaultSeat(this.hooks.view()), later = false) {
    const e = this.entry(seat);
    // "away" without a grace time, or right after "arriving" without ever being here:
    // the friend joined and is still on the way (the server may say either)
    if (p.state === "away" && (p.grace_left === null || p.grace_left === undefined ||
        (e.current?.state === "arriving" && !e.seenHere))) {
      p = { ...p, state: "arriving" };
    }
    if (p.state === "here") e.seenHere = true;
    if (p.state !== "computer") e.wasPerson = true;
    const before = e.current;
    if (before && before.state === p.state && before.grace_left === p.grace_left) return;
    e.current = p;
    const view = this.hooks.view();
    const name = nameOf(view, seat);
    const wasAway = before && (before.state === "away" || before.state === "computer");
    if (personChair(view, seat, e.wasPerson) && before) {
      let say = null;
      if (wasAway && p.state === "here") say = () => this.hooks.flash(t("presence.back", { name }));
      else if (p.state === "away" && before.state === "here") say = () => announce(t("presence.left", { name }));
      else if (p.state === "computer" && before.state !== "computer") {
        say = () => announce(t("presence.computer_plays", { name }));
      }
      if (say && later) queueMicrotask(say);
      else if (say) say();
    }
    this.stopSeat(e);
    e.graceUntil = null;
    if (p.state === "away" && typeof p.grace_left === "number") {
      e.graceUntil = performance.now() + p.grace_left * 1000;
      // por turnos shows no countdown: drawn again once, when the long wait is over
      if (p.grace_left > 0 && view?.turns) e.timeout = setTimeout(() => this.hooks.render(), p.grace_left * 1000 + 50);
      else if (p.grace_left > 0) e.timer = setInterval(() => this.tick(seat), 250);
    }
  }

  /** Seconds before `seat` (the opponent when none is named) may be handed to the computer. */
  graceLeft(seat = defaultSeat(this.hooks.view())) {
    const until = this.seats.get(seat)?.graceUntil ?? null;
    if (until === null) return 0;
    return Math.max(0, Math.ceil((until - performance.now()) / 1000));
  }

  tick(seat) {
    const e = this.entry(seat);
    const left = this.graceLeft(seat);
    const root = this.hooks.root();
    const clock = root.querySelector(`.presence[data-seat="${seat}"] .countdown`);
    if (left <= 0 || !clock) {
      clearInterval(e.timer);
      this.hooks.render(); // time is up: offer the computer
      return;
    }
    const text = clockText(left);
    if (clock.textContent !== text) {
      clock.textContent = text;
      // what a screen reader finds there counts down too (it is not a live region: read
      // when the reader comes to it, never interrupting)
      const said = clock.nextElementSibling;
      if (said) said.textContent = spokenClock(left);
    }
  }

  stopSeat(e) {
    clearInterval(e.timer);
    clearTimeout(e.timeout);
  }

  stop() {
    for (const e of this.seats.values()) this.stopSeat(e);
  }
}

/** "Sí, en Fácil", "Sí, en Normal", "Sí, en Difícil". */
function levelButtons(choose) {
  return h("div", { class: "button-row" }, ["facil", "normal", "dificil"].map((level) =>
    h("button", { type: "button", class: "btn", "data-level": level,
      onclick: () => choose(level) }, t("presence.yes_level", { level: levelName(level) }))));
}

/** The computer asked to play `seat` for now: in a room of two, the mesa's own request
 * (the other seat); at a table of four the seat is named (any person at it may ask). */
function takeover(g, seat, level, confirmed = false) {
  if (seatCount(g.view) <= 2) {
    g.takeover(level, confirmed);
    return;
  }
  const message = confirmed ? { type: "takeover", level, seat, confirmed: true } : { type: "takeover", level, seat };
  if (!g.conn.send(message)) g.showError(t("mesa.no_connection_now"));
}

/** Por turnos, after the long wait: the computer takes the seat only when asked, at the
 * level chosen here. */
function askComputer(g, seat) {
  const name = nameOf(g.view, seat);
  const dialog = openDialog({
    title: t("presence.ask_title", { name }),
    className: "ask-computer",
    onClose: () => refocus(g),
    body: h("div", {},
      h("p", {}, t("presence.ask_turns", { name })),
      levelButtons((level) => {
        dialog.close();
        takeover(g, seat, level, true);
      }),
      h("button", { type: "button", class: "btn quiet", onclick: () => dialog.close() }, t("presence.no_wait", { name }))),
  });
}

/** The panel of a friend's seat while they are not at the table (null when they are, or
 * for the computer's own chair). `seat` not given: the opponent of a room of two, or at a
 * table of four every other seat's panel (presencePanels). */
export function presencePanel(g, seat = undefined) {
  if (seat === undefined) {
    if (seatCount(g.view) > 2) return presencePanels(g);
    seat = defaultSeat(g.view);
  }
  const p = g.presence.of(seat);
  if (g.local || !p || p.state === "here") return null; // a game with no server: no friend
  if (!personChair(g.view, seat, Boolean(g.presence.seats.get(seat)?.wasPerson))) return null;
  const name = nameOf(g.view, seat);
  const at = String(seat);
  if (p.state === "arriving") {
    return h("div", { class: "presence arriving", role: "status", "data-seat": at }, t("presence.arriving", { name }));
  }
  if (p.state === "computer") {
    return h("div", { class: "presence takeover", role: "status", "data-seat": at },
      t("presence.computer_level", { name, level: levelName(p.level) }));
  }
  const left = g.presence.graceLeft(seat);
  if (g.view.turns) {
    // waiting days is the point of por turnos: the computer is offered only after the long
    // wait (the server's), said on the offer, and never as the main action
    const wait = typeof g.view.turns_grace === "number" ? waitWords(g.view.turns_grace) : null;
    if (left > 0) {
      return h("div", { class: "presence away turns", "data-seat": at },
        h("p", { role: "status" }, t("presence.turns_away", { name })),
        wait ? h("p", { class: "small" }, t("presence.turns_after", { wait, name })) : null);
    }
    return h("div", { class: "presence away turns long", "data-seat": at },
      h("p", { role: "status" }, wait ? t("presence.turns_long", { name, wait }) : t("presence.turns_long_plain", { name })),
      h("button", { type: "button", class: "btn quiet ask-computer", "data-focus-key": `ask-${at}`,
        onclick: () => askComputer(g, seat) },
      wait ? t("presence.turns_offer", { wait, name }) : t("presence.turns_offer_plain", { name })));
  }
  if (left > 0) {
    return h("div", { class: "presence away", "data-seat": at },
      h("p", { role: "status" }, t("presence.away", { name })),
      h("p", { class: "small" }, parts("presence.countdown", { name, clock: [
        h("strong", { class: "countdown", "aria-hidden": "true" }, clockText(left)),
        h("span", { class: "sr-only" }, spokenClock(left))] })));
  }
  return h("div", { class: "presence choose", role: "group", "data-seat": at,
    "aria-label": t("presence.not_back_label", { name }) },
  h("p", {}, t("presence.not_back", { name })),
  levelButtons((level) => takeover(g, seat, level)),
  h("p", { class: "small" }, t("presence.or_wait", { name })));
}

/** Every other seat's panel (a table of four), in the order of play after mine; null when
 * everyone is at the table. Each seat's presence is read from the view drawn (the presence
 * frames update it), whichever seat la mesa itself follows. */
export function presencePanels(g) {
  const v = g.view;
  if (!v || g.local) return null;
  g.presence.setAll(v, true);
  const panels = others(v.seat, seatCount(v)).map((seat) => presencePanel(g, seat)).filter(Boolean);
  return panels.length ? h("div", { class: "presences" }, panels) : null;
}
