// The table: its loose cards and its piles, and the deck beside it. One copy for la mesa
// (where the player taps cards and piles to mark them), the watcher's page and the replay
// (read only). A pile's accessible name starts with the words shown on it ("Tu montón de
// 8"), then says its value and its cards, so voice control and screen readers agree.

import { h } from "../lib/dom.js";
import { t } from "../lib/i18n.js";
import { teamOf } from "../engine/seats.js";
import { cardElement, cardName, cardShort, isRed, pileTitle } from "./cards.js";

/**
 * How the table is drawn:
 * - `seat`: whose "Tu montón" it is (null: a watcher or a replay, no pile is "yours");
 * - `ownerName(seat)`: a pile owner as said inside a sentence ("la computadora", "Ana");
 * - `onItem(id)`: the table is played on (cards and piles are buttons); else read only;
 * - `picked`, `wouldTake`: the ids marked by the player, and those "Llevarte" would take.
 * @typedef {{seat?: number|null, ownerName: (seat: number) => string,
 *   onItem?: ((id: string) => void)|null, picked?: Set<string>, wouldTake?: Set<string>}} TableLook
 */

const NONE = new Set();

/** One loose card of the table. */
function looseCard(code, look) {
  const picked = (look.picked || NONE).has(code);
  const preview = (look.wouldTake || NONE).has(code);
  const el = cardElement(code, {
    interactive: Boolean(look.onItem),
    extraLabel: picked ? t("card.picked") : preview ? t("card.would_take") : "",
  });
  el.dataset.id = code;
  el.classList.add("table-card");
  if (look.onItem) {
    el.dataset.focusKey = "t-" + code;
    el.setAttribute("aria-pressed", String(picked));
    el.addEventListener("click", () => look.onItem(code));
  }
  if (picked) el.classList.add("picked");
  if (preview) el.classList.add("would-take");
  if (picked) el.append(h("span", { class: "mark-badge", "aria-hidden": "true" }, "✓"));
  return el;
}

/** One pile: its title, its value, its cards in small. */
function pileElement(pile, look) {
  const seat = look.seat ?? null;
  const picked = (look.picked || NONE).has(pile.id);
  const preview = (look.wouldTake || NONE).has(pile.id);
  const title = pileTitle(pile, seat, look.ownerName(pile.owner));
  const named = pile.owner === seat ? title : t("pile.label_value", { title, value: pile.value });
  const plain = t("pile.label", { title: named, shown: pile.cards.map(cardShort).join(" "),
    said: pile.cards.map(cardName).join(", ") });
  const label = picked ? t("pile.picked", { label: plain }) : preview ? t("pile.would_take", { label: plain }) : plain;
  // the near team's piles in green (at a table of four the partner's too), the other
  // team's in red (seat 0 is near for a watcher)
  const near = seat ?? 0;
  const attrs = {
    class: "pile" + (teamOf(pile.owner) === teamOf(near) ? " mine" : " theirs") + (pile.double ? " double" : "") +
      (picked ? " picked" : "") + (preview ? " would-take" : ""),
    "aria-label": label,
    "data-id": pile.id,
    "data-pile-cards": pile.cards.join(" "),
  };
  if (look.onItem) {
    Object.assign(attrs, { type: "button", "aria-pressed": String(picked),
      "data-focus-key": "p-" + pile.id, onclick: () => look.onItem(pile.id) });
  } else {
    attrs.role = "img";
  }
  return h(look.onItem ? "button" : "div", attrs,
    h("span", { class: "pile-title", "aria-hidden": "true" }, title),
    h("span", { class: "pile-value", "aria-hidden": "true" }, String(pile.value)),
    h("span", { class: "pile-cards", "aria-hidden": "true" },
      pile.cards.map((c) => h("span", { class: "mini " + (isRed(c) ? "red" : "black") }, cardShort(c)))),
    picked ? h("span", { class: "mark-badge", "aria-hidden": "true" }, "✓") : null);
}

/** The table's items: loose cards first, then piles. */
export function tableItems(table, look) {
  return [...table.cards.map((code) => looseCard(code, look)),
    ...table.piles.map((pile) => pileElement(pile, look))];
}

export function tableEmpty(table) {
  return table.cards.length === 0 && table.piles.length === 0;
}

/** The table as la mesa and the watcher's page show it, "La mesa está vacía" when it is. */
export function tableArea(table, look) {
  const empty = tableEmpty(table);
  return h("section", { class: "table-area" + (empty ? " empty" : ""), "aria-label": t("table.label") },
    empty ? h("p", { class: "table-empty" }, t("table.empty")) : null,
    h("div", { class: "table-cards" }, tableItems(table, look)));
}

/** "Mazo: 32", said "Quedan 32 cartas en el mazo". */
export function deckLine(deckSize, className = "deck") {
  return h("p", { class: className },
    h("span", { class: "deck-icon", "aria-hidden": "true" }),
    h("span", { "aria-hidden": "true" }, t("table.deck", { n: deckSize })),
    h("span", { class: "sr-only" }, t("table.deck_said", { n: deckSize })));
}
