// What the player has chosen on la mesa, before the move is sent: the hand card (raised,
// gold), the table items marked (blue, with a check), the build panel and its idea, the
// move on its way, and the error line. Plain data and the questions asked of it; the server
// says what a card can do (`view.options`), nothing here knows a rule.

/** A fresh selection: nothing chosen. */
export function freshSelection() {
  return { selected: null, picked: new Set(), mode: "choose", idea: null, pending: null, error: null, keepError: false };
}

/** A new card chosen (or the same one again: nothing chosen); the marks stay. */
export function chooseCard(sel, code) {
  const next = freshSelection();
  if (sel.selected !== code) {
    next.selected = code;
    next.picked = sel.picked;
  }
  return next;
}

/** The table item `id` marked, or unmarked. */
export function toggleMark(sel, id) {
  const picked = new Set(sel.picked);
  if (picked.has(id)) picked.delete(id);
  else picked.add(id);
  sel.picked = picked;
  sel.idea = null;
  sel.error = null;
}

/** The server's options for hand card `code`, or null. */
export function optionsFor(view, code) {
  return (view?.options || []).find((o) => o.card === code) || null;
}

/** What the chosen card can build on, per the server: [{take, values}]. */
export function buildTakes(opts) {
  return opts?.build_takes || [];
}

/** A set or list of table item ids as one comparable string (order does not matter). */
function sortedKey(items) {
  return JSON.stringify([...items].sort());
}

/** The server's entry for the table items marked now, or null (no pile comes of them). */
export function buildEntry(sel, opts) {
  const key = sortedKey(sel.picked);
  return buildTakes(opts).find((entry) => sortedKey(entry.take) === key) || null;
}

/** The server's build idea of `value` on the table items marked now, or null: it says
 * whether that pile is a double one (a pile composed by hand that is not among the ideas
 * is not said to be double: the browser knows no rules). */
export function ideaFor(sel, opts, value) {
  const key = sortedKey(sel.picked);
  return (opts?.builds || []).find((idea) => idea.value === value && sortedKey(idea.move.take) === key) || null;
}

/** The table items the chosen card's "Llevarte" would take (the dashed preview, with hints). */
export function previewSet(sel, view, hints, myTurn) {
  const preview = new Set();
  if (!hints || !myTurn || !sel.selected || sel.mode !== "choose" || sel.picked.size > 0) return preview;
  for (const id of optionsFor(view, sel.selected)?.llevarte?.take || []) preview.add(id);
  return preview;
}

/** Whether two moves are the same (the take in any order). */
export function sameMove(a, b) {
  if (!a || !b) return false;
  return a.kind === b.kind && a.card === b.card && sortedKey(a.take || []) === sortedKey(b.take || []);
}
