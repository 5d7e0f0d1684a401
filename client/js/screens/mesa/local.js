// La mesa of a game with no server (Jugar sin conexión): the same Mesa, fed by the device's
// own room (lib/localroom.js: the engine's Web Worker, the game kept in IndexedDB) instead
// of the websocket. Only what belongs to the server is left out: the replay, carrying the
// game to another device, watchers.

import { t } from "../../lib/i18n.js";
import { LocalRoom } from "../../lib/localroom.js";
import { saveCurrentLocal } from "../../lib/offlinedb.js";
import { loadSession } from "../../lib/device.js";
import { Mesa } from "./mesa.js";

export class LocalMesa extends Mesa {
  /**
   * @param {HTMLElement} root
   * @param {object} session {local: the game's id}
   * @param {object} app as Mesa's
   */
  constructor(root, session, app) {
    super(root, session, app, (s, handlers) => new LocalRoom(s, handlers));
    this.local = true;
    // an online game left for this one: say when the signal is back
    this.onOnline = () => {
      const online = loadSession();
      if (online && !online.finished) this.flash(t("local.online_back"));
    };
    window.addEventListener("online", this.onOnline);
  }

  stop() {
    super.stop();
    window.removeEventListener("online", this.onOnline);
  }

  /** The game itself is in IndexedDB (kept by the room at each move); here, that it is the
   * one being played. */
  persist() {
    saveCurrentLocal({ id: this.session.local, active: true });
  }

  takeover() {
    // the computer already plays the other seat
  }

  /** The game cannot be played here: a game made just now whose table never came up is
   * said so (it is let go: never listed as a game nobody can open). */
  onFatal(code, message) {
    this.stop();
    this.app.lostSession(message, Boolean(this.session.fresh) && !this.welcomed);
  }
}
