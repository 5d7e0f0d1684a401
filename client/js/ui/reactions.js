// Quick reactions: the fixed set (the same ids as REACTIONS in server/protocol.py; no free
// text, so nothing to moderate), the bubbles that show them for a few seconds, the switch
// that mutes them on this device, and the compact picker a player sends them with.

import { t } from "../lib/i18n.js";
import { announce, h, moveFocusByKey } from "../lib/dom.js";
import { loadMuted, saveMuted } from "../lib/device.js";

/** A reaction of words: the bubble shows them and the button is named by them. */
function words(id) {
  return { id, get text() { return t(`reaction.${id}`); }, get label() { return t(`reaction.${id}`); },
    emoji: false };
}

/** An emoji reaction: the bubble shows it, the button is named by the catalog. */
function emoji(id, text) {
  return { id, text, get label() { return t(`reaction.${id}`); }, emoji: true };
}

/** id, what the bubble shows, the button's name (the catalog's reaction.*). */
export const REACTIONS = [
  words("buena"), words("ay_no"), words("te_lo_subi"), words("piensalo"), words("que_suerte"), words("dale"),
  emoji("aplausos", "👏"), emoji("risa", "😂"), emoji("asombro", "😮"), emoji("pensando", "🤔"),
];

/** What a screen reader says of `who`'s reaction. */
function saidOf(reaction, who) {
  return reaction.emoji ? t(`reaction.said.${reaction.id}`, { who }) : t("reaction.said", { who, text: reaction.text });
}

export const SHOW_MS = 4500; // how long a bubble stays

export function reactionById(id) {
  return REACTIONS.find((r) => r.id === id) || null;
}

/** The reactions on screen (one bubble per seat at most) and the mute switch. The owner
 * draws the bubbles (`bubble(seat)`) in its own render; `onChange` asks it to redraw. */
export class ReactionBubbles {
  constructor(onChange) {
    this.onChange = onChange;
    this.shown = new Map(); // seat -> reaction
    this.timers = new Map();
    this.muted = loadMuted();
  }

  /** A reaction from `seat` (someone else's): shown and said politely, unless muted. */
  receive(seat, id, who) {
    const reaction = reactionById(id);
    if (!reaction || this.muted) return;
    this.show(seat, reaction);
    announce(saidOf(reaction, who));
  }

  /** Shows `reaction` on `seat`'s side for a few seconds (also this device's own). */
  show(seat, reaction) {
    this.shown.set(seat, reaction);
    clearTimeout(this.timers.get(seat));
    this.timers.set(seat, setTimeout(() => {
      this.shown.delete(seat);
      this.onChange();
    }, SHOW_MS));
    this.onChange();
  }

  bubble(seat) {
    const reaction = this.shown.get(seat);
    if (!reaction) return null;
    // said through the live region once; the bubble is only seen
    return h("span", { class: "reaction-bubble" + (reaction.emoji ? " emoji" : ""),
      "data-reaction": reaction.id, "data-reaction-seat": String(seat), "aria-hidden": "true" },
    reaction.text);
  }

  setMuted(on) {
    this.muted = on;
    saveMuted(on);
    if (on) {
      for (const timer of this.timers.values()) clearTimeout(timer);
      this.timers.clear();
      this.shown.clear();
    }
    announce(on ? t("reaction.muted") : t("reaction.unmuted"));
    this.onChange();
  }

  /** The "Silenciar reacciones" switch (remembered on this device). */
  muteSwitch() {
    const button = h("button", {
      type: "button", class: "btn switch mute-reactions", role: "switch",
      "aria-checked": String(this.muted), "data-focus-key": "mute-reactions",
      onclick: () => {
        this.setMuted(!this.muted);
        // in a dialog it is not redrawn with the table: it says its new state itself
        button.setAttribute("aria-checked", String(this.muted));
        button.querySelector(".state").textContent = this.muted ? t("menu.yes") : t("menu.no");
      },
    }, t("reaction.mute"), h("span", { class: "state" }, this.muted ? t("menu.yes") : t("menu.no")));
    return button;
  }

  stop() {
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
  }
}

/** The picker's toggle button (in the top bar). */
export function pickerToggle(open, onToggle) {
  return h("button", {
    type: "button", class: "btn react-button", "aria-expanded": String(open),
    "aria-controls": "reaction-panel", "aria-label": t("reaction.open"), "data-focus-key": "react",
    onclick: onToggle,
  }, h("span", { "aria-hidden": "true" }, "😊"));
}

/** The open picker: one button per reaction, arrow keys move among them, Escape closes. */
export function pickerPanel({ onPick, onClose, muteSwitch }) {
  const button = (r) => h("button", {
    type: "button", class: "btn reaction" + (r.emoji ? " emoji" : ""), "data-reaction": r.id,
    "data-focus-key": "r-" + r.id, "aria-label": r.emoji ? r.label : null,
    onclick: () => onPick(r),
  }, r.text);
  const words = REACTIONS.filter((r) => !r.emoji);
  const emoji = REACTIONS.filter((r) => r.emoji);
  const panel = h("div", { id: "reaction-panel", class: "reaction-panel", role: "group",
    "aria-label": t("reaction.panel") },
  h("div", { class: "reaction-words" }, words.map(button)),
  h("div", { class: "reaction-emoji" }, emoji.map(button)),
  muteSwitch);
  panel.addEventListener("keydown", (event) => {
    if (event.key === "Escape") {
      event.preventDefault();
      event.stopPropagation();
      onClose();
      return;
    }
    moveFocusByKey(event, [...panel.querySelectorAll("button.reaction")]);
  });
  return panel;
}
