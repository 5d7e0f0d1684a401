// Quick reactions at la mesa: who may send them (a friend game, or a game with the computer
// somebody is watching), the picker in the top bar opened and closed, a reaction sent.

import { t } from "../../lib/i18n.js";
import { announce } from "../../lib/dom.js";
import { pickerPanel, pickerToggle, reactionById } from "../../ui/reactions.js";
import { focusLater } from "./focus.js";
import { isFriendGame } from "./names.js";

let reactCounter = 0;

function canReact(g) {
  return g.view.status !== "waiting" && (isFriendGame(g.view) || g.watchers > 0);
}

function toggle(g) {
  g.reactOpen = !g.reactOpen;
  g.render();
  focusLater(g, g.reactOpen ? ".reaction-panel button.reaction" : '[data-focus-key="react"]');
}

function close(g) {
  g.reactOpen = false;
  g.render();
  focusLater(g, '[data-focus-key="react"]');
}

function send(g, reaction) {
  const id = `r-${Date.now().toString(36)}-${++reactCounter}`;
  if (!g.conn.send({ type: "react", reaction: reaction.id, id })) {
    g.showError(t("mesa.no_connection_now"));
    return;
  }
  g.reactOpen = false;
  g.reactions.show(g.view.seat, reactionById(reaction.id));
  announce(`Mandaste: ${reaction.label}.`);
  focusLater(g, '[data-focus-key="react"]');
}

/** The top bar's reaction button (null where reactions are not for this game). */
export function reactButton(g) {
  if (!canReact(g)) {
    g.reactOpen = false;
    return null;
  }
  return pickerToggle(g.reactOpen, () => toggle(g));
}

/** The open picker under the top bar, or null. */
export function reactPanel(g) {
  if (!canReact(g) || !g.reactOpen) return null;
  return pickerPanel({
    onPick: (r) => send(g, r),
    onClose: () => close(g),
    // only a friend's reactions come to this seat: nothing to mute against the computer
    muteSwitch: isFriendGame(g.view) ? g.reactions.muteSwitch() : null,
  });
}
