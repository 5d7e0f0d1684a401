// The view a socket holds (docs/protocol.md, "View V"; issue 31, the delta frame): a move's
// `events` frame brings only the view's move part, so the client keeps the last whole view
// and lays each frame's keys over it. A welcome (`welcome`, `watching`) or a `state` replaces
// it whole; `presence` and `watchers` patch the keys they tell. Every frame reaches the screen
// as it would with the whole view in it (lib/connection.js); a game with no server
// (lib/localroom.js) sends whole views, which merge to themselves.

/**
 * @typedef {Record<string, unknown>} View
 * @typedef {{type?: unknown, view?: unknown, seat?: unknown, presence?: unknown,
 *   count?: unknown}} Frame
 */

/**
 * @param {unknown} value
 * @returns {value is View}
 */
function isView(value) {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export class HeldView {
  constructor() {
    /** @type {View | null} the whole view after the last frame (null: none yet) */
    this.view = null;
  }

  /** A new socket: nothing held until its welcome. */
  reset() {
    this.view = null;
  }

  /**
   * Takes in one frame; returns it with its view whole (an `events` frame's keys laid over
   * the view held), or as it came when it carries no view.
   * @template {Frame} T
   * @param {T} msg
   * @returns {T}
   */
  receive(msg) {
    switch (msg.type) {
      case "welcome":
      case "watching":
      case "state":
        if (isView(msg.view)) this.view = msg.view;
        return msg;
      case "events": {
        if (!isView(msg.view)) return msg;
        this.view = this.view ? { ...this.view, ...msg.view } : msg.view;
        return { ...msg, view: this.view };
      }
      case "presence": {
        const seat = msg.seat;
        const held = this.view;
        if (held && Array.isArray(held.presence) && typeof seat === "number" &&
            seat >= 0 && seat < held.presence.length) {
          const presence = [...held.presence];
          presence[seat] = msg.presence;
          this.view = { ...held, presence };
        }
        return msg;
      }
      case "watchers":
        if (this.view && typeof msg.count === "number") this.view = { ...this.view, watchers: msg.count };
        return msg;
      default:
        return msg;
    }
  }
}
