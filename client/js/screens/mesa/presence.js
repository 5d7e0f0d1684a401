// The friend's presence at la mesa: arriving, here, away (with the grace countdown, run
// from the seconds the server said were left, never from a clock) and played by the
// computer; what is said when it changes, and the panel that offers the computer.

import { duration, parts, t } from "../../lib/i18n.js";
import { announce, h, openDialog } from "../../lib/dom.js";
import { levelName } from "../../ui/texts.js";
import { refocus } from "./focus.js";
import { isFriendGame, opponentCapitalized } from "./names.js";

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

export class Presence {
  /**
   * @param {object} hooks {root() (where the countdown is drawn), render(), flash(text),
   *   view() (the view: the opponent's name, whether it is a friend game)}
   */
  constructor(hooks) {
    this.hooks = hooks;
    this.current = null; // the opponent's presence {state, grace_left, level}
    this.graceUntil = null; // performance.now() when the opponent's grace time ends
    this.timer = null;
    this.timeout = null;
    this.seenHere = false; // this page has seen the friend connected
  }

  /** The opponent's presence changed (or was first seen): say so, start the countdown. */
  set(p) {
    // "away" without a grace time, or right after "arriving" without ever being here:
    // the friend joined and is still on the way (the server may say either)
    if (p.state === "away" && (p.grace_left === null || p.grace_left === undefined ||
        (this.current?.state === "arriving" && !this.seenHere))) {
      p = { ...p, state: "arriving" };
    }
    if (p.state === "here") this.seenHere = true;
    const before = this.current;
    if (before && before.state === p.state && before.grace_left === p.grace_left) return;
    this.current = p;
    const view = this.hooks.view();
    const name = opponentCapitalized(view);
    const wasAway = before && (before.state === "away" || before.state === "computer");
    if (isFriendGame(view) && before) {
      if (wasAway && p.state === "here") this.hooks.flash(t("presence.back", { name }));
      else if (p.state === "away" && before.state === "here") announce(t("presence.left", { name }));
      else if (p.state === "computer" && before.state !== "computer") announce(t("presence.computer_plays", { name }));
    }
    this.stop();
    this.graceUntil = null;
    if (p.state === "away" && typeof p.grace_left === "number") {
      this.graceUntil = performance.now() + p.grace_left * 1000;
      // por turnos shows no countdown: drawn again once, when the long wait is over
      if (p.grace_left > 0 && view?.turns) this.timeout = setTimeout(() => this.hooks.render(), p.grace_left * 1000 + 50);
      else if (p.grace_left > 0) this.timer = setInterval(() => this.tick(), 250);
    }
  }

  graceLeft() {
    if (this.graceUntil === null) return 0;
    return Math.max(0, Math.ceil((this.graceUntil - performance.now()) / 1000));
  }

  tick() {
    const left = this.graceLeft();
    const clock = this.hooks.root().querySelector(".presence .countdown");
    if (left <= 0 || !clock) {
      clearInterval(this.timer);
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

  stop() {
    clearInterval(this.timer);
    clearTimeout(this.timeout);
  }
}

/** "Sí, en Fácil", "Sí, en Normal", "Sí, en Difícil". */
function levelButtons(choose) {
  return h("div", { class: "button-row" }, ["facil", "normal", "dificil"].map((level) =>
    h("button", { type: "button", class: "btn", "data-level": level,
      onclick: () => choose(level) }, t("presence.yes_level", { level: levelName(level) }))));
}

/** Por turnos, after the long wait: the computer takes the seat only when asked, at the
 * level chosen here. */
function askComputer(g) {
  const name = opponentCapitalized(g.view);
  const dialog = openDialog({
    title: t("presence.ask_title", { name }),
    className: "ask-computer",
    onClose: () => refocus(g),
    body: h("div", {},
      h("p", {}, t("presence.ask_turns", { name })),
      levelButtons((level) => {
        dialog.close();
        g.takeover(level, true);
      }),
      h("button", { type: "button", class: "btn quiet", onclick: () => dialog.close() }, t("presence.no_wait", { name }))),
  });
}

/** The panel under the opponent while a friend is not at the table (null when they are). */
export function presencePanel(g) {
  const p = g.presence.current;
  if (!isFriendGame(g.view) || !p || p.state === "here") return null;
  const name = opponentCapitalized(g.view);
  if (p.state === "arriving") {
    return h("div", { class: "presence arriving", role: "status" }, t("presence.arriving", { name }));
  }
  if (p.state === "computer") {
    return h("div", { class: "presence takeover", role: "status" },
      t("presence.computer_level", { name, level: levelName(p.level) }));
  }
  const left = g.presence.graceLeft();
  if (g.view.turns) {
    // waiting days is the point of por turnos: the computer is offered only after the long
    // wait (the server's), said on the offer, and never as the main action
    const wait = typeof g.view.turns_grace === "number" ? waitWords(g.view.turns_grace) : null;
    if (left > 0) {
      return h("div", { class: "presence away turns" },
        h("p", { role: "status" }, t("presence.turns_away", { name })),
        wait ? h("p", { class: "small" }, t("presence.turns_after", { wait, name })) : null);
    }
    return h("div", { class: "presence away turns long" },
      h("p", { role: "status" }, wait ? t("presence.turns_long", { name, wait }) : t("presence.turns_long_plain", { name })),
      h("button", { type: "button", class: "btn quiet ask-computer", onclick: () => askComputer(g) },
        wait ? t("presence.turns_offer", { wait, name }) : t("presence.turns_offer_plain", { name })));
  }
  if (left > 0) {
    return h("div", { class: "presence away" },
      h("p", { role: "status" }, t("presence.away", { name })),
      h("p", { class: "small" }, parts("presence.countdown", { name, clock: [
        h("strong", { class: "countdown", "aria-hidden": "true" }, clockText(left)),
        h("span", { class: "sr-only" }, spokenClock(left))] })));
  }
  return h("div", { class: "presence choose", role: "group", "aria-label": t("presence.not_back_label", { name }) },
    h("p", {}, t("presence.not_back", { name })),
    levelButtons((level) => g.takeover(level)),
    h("p", { class: "small" }, t("presence.or_wait", { name })));
}
