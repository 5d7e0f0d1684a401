// A short-lived line of news ("¡Beto volvió a la mesa!", "Fin de la mano 1. …"): shown for
// a few seconds under the table and said through the polite live region.

import { announce, h } from "../lib/dom.js";

export const NOTICE_MS = 8000; // long enough to read the longest one (a hand's summary)

export class Notice {
  /** `onChange()`: the owner redraws (the line is drawn by `line()` in its render). */
  constructor(onChange) {
    this.onChange = onChange;
    this.text = null;
    this.timer = null;
  }

  /** Shows and says `text` (the same as `flash` of the old screens). */
  show(text) {
    this.text = text;
    announce(text);
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.text = null;
      this.onChange();
    }, NOTICE_MS);
    this.onChange();
  }

  line() {
    return this.text ? h("p", { class: "notice" }, this.text) : null;
  }

  stop() {
    clearTimeout(this.timer);
  }
}
