// What la mesa and the watcher's page have in common: a table followed live over a
// websocket (or, for a game with no server, the device's own room), with its notices and the players' reactions, drawn again on every change. A
// subclass draws (`render()`) and reads the frames (`handlers.onMessage`).

import { Connection } from "../lib/connection.js";
import { Notice } from "../ui/notice.js";
import { ReactionBubbles } from "../ui/reactions.js";

export class LiveTable {
  /**
   * @param {HTMLElement} root where the table is drawn
   * @param {object} session what the connection says hello with ({token, since} or {watch})
   * @param {object} handlers the connection's: onMessage, onStatus, onFatal
   * @param {Function} [connect] makes the connection from (session, handlers): the
   *   websocket's by default; a game with no server passes its LocalRoom (lib/localroom.js)
   */
  constructor(root, session, handlers, connect = (s, hs) => new Connection(s, hs)) {
    this.root = root;
    this.stopped = false;
    this.notice = new Notice(() => this.render());
    this.reactions = new ReactionBubbles(() => this.render());
    this.conn = connect(session, handlers);
  }

  start() {
    this.render();
    this.conn.open();
  }

  /** Another screen comes: close the socket, stop every timer. */
  stop() {
    this.stopped = true;
    this.conn.close();
    this.reactions.stop();
    this.notice.stop();
  }

  render() {}
}
