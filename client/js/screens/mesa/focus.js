// Where the keyboard focus goes at la mesa: on the hand after a move and when a dialog
// closes (else the Menú), along the hand and the table with the arrow keys, and on the
// next step's button after a redraw.

import { focusLost, moveFocusByKey } from "../../lib/dom.js";
import { myTurn } from "./names.js";

/** Puts the keyboard focus on the hand (its first card, or the hand itself when empty). */
export function focusHand(g) {
  if (g.sheet || g.stopped) return;
  const target = g.root.querySelector(".hand .card") || g.root.querySelector(".hand");
  target?.focus({ preventScroll: true });
}

/** The hand, on my turn, when the focus has fallen back to the page. */
export function focusHandIfLost(g) {
  if (g.sheet || !myTurn(g.view) || !focusLost()) return;
  focusHand(g);
}

/** After a dialog closed with nowhere to put the focus: the hand on my turn, else the Menú. */
export function refocus(g) {
  if (g.stopped) return;
  focusHandIfLost(g);
  if (focusLost()) g.root.querySelector('[data-focus-key="menu"]')?.focus({ preventScroll: true });
}

/** Focuses, after the redraw, the first element found among `selectors` (in order),
 * unless the player has put the focus somewhere else meanwhile: a quick keyboard user who
 * already moved on is not pulled back (a slow phone may draw the frame late). */
export function focusLater(g, ...selectors) {
  const wanted = selectors.filter(Boolean);
  if (!wanted.length) return;
  const before = document.activeElement;
  requestAnimationFrame(() => {
    const now = document.activeElement;
    if (now !== before && now && now !== document.body && now.isConnected) return;
    for (const selector of wanted) {
      const el = g.root.querySelector(selector);
      if (el) {
        el.focus();
        return;
      }
    }
  });
}

/** Arrow keys move along the hand and along the table; Home and End go to the ends. */
export function arrowKeys(event) {
  if (event.altKey || event.ctrlKey || event.metaKey) return;
  const row = event.target.closest?.(".hand, .table-cards");
  if (!row || !event.target.matches("[data-focus-key]")) return;
  moveFocusByKey(event, [...row.querySelectorAll(":scope > [data-focus-key]")]);
}
