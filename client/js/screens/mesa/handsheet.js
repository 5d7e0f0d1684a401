// The end of a hand at la mesa: the score sheet in a dialog (ui/sheet.js draws the table),
// what was left on the table and who got it, and, at the end of the match, the winner, the
// rematch (with the friend's wish, when they asked first) and the replay.

import { otherTeam, teamOf } from "../../engine/seats.js";
import { t } from "../../lib/i18n.js";
import { announce, h, openDialog } from "../../lib/dom.js";
import { sheetFacts, sheetNotes, sheetTable } from "../../ui/sheet.js";
import { refocus } from "./focus.js";
import { isFriendGame, opponentCapitalized, opponentName, opponentSeat, shortOpponentName } from "./names.js";

/** "Primo quiere la revancha. ¿Le das?" on the final sheet, once the friend asked. */
export function noteRematchWish(g, view) {
  const note = g.sheet?.querySelector(".rematch-note");
  if (!note || !view || !view.rematch || !isFriendGame(g.view)) return;
  if (view.rematch[opponentSeat(view)] && !view.rematch[view.seat]) {
    note.textContent = t("sheet.rematch_asked", { name: opponentCapitalized(g.view) });
  }
}

export function closeSheet(g) {
  if (g.sheet) {
    const sheet = g.sheet;
    g.sheet = null;
    sheet.close();
  }
}

function finalButtons(g, match) {
  const rematch = h("button", { type: "button", class: "btn primary rematch" }, t("mesa.rematch"));
  rematch.addEventListener("click", () => {
    g.rematch();
    if (isFriendGame(g.view)) {
      rematch.textContent = t("mesa.waiting_for", { name: opponentName(g.view) });
      rematch.setAttribute("aria-disabled", "true");
    }
  });
  return [rematch,
    g.local ? null : h("button", { type: "button", class: "btn replay", onclick: () => {
      closeSheet(g);
      g.app.openReplay(g.session.token, match);
    } }, t("games.replay")),
    h("button", { type: "button", class: "btn quiet", onclick: () => {
      closeSheet(g);
      g.app.goHome(null, true);
    } }, t("sheet.back_home"))];
}

/** Opens the sheet of the hand `event` (a hand_end) ended; the mesa waits while it is open. */
export function openHandSheet(g, event) {
  const v = g.view;
  const me = v.seat;
  const mine = teamOf(me); // the scores and the winner are a team's (RULES.md 9.4)
  const theirs = otherTeam(mine);
  const r = event.result;
  const oppName = opponentCapitalized(v);
  const facts = sheetFacts(r);
  const gained = (i) => r.scores[i] - facts.before[i];
  // the table, and beside it (a phone held sideways) or under it what it means
  const parts = [...sheetNotes(facts, me, oppName)];
  if (r.swept && r.swept.length) {
    parts.push(h("p", { class: "small" },
      r.sweeper === me ? t("sheet.swept_mine", { n: r.swept.length })
        : t("sheet.swept_theirs", { n: r.swept.length, name: opponentName(v) })));
  }
  const handNumber = event.hand_number ?? v.hand_number;
  const finished = r.winner !== null && r.winner !== undefined;
  let title = t("sheet.hand_end", { n: handNumber + 1 });
  const buttons = h("div", { class: "button-row" });
  if (finished) {
    title = r.winner === mine ? t("sheet.you_won") : t("sheet.they_won", { name: oppName });
    parts.push(h("p", { class: "winner", "data-winner": String(r.winner) },
      r.winner === mine ? t("sheet.you_reached") : t("sheet.they_reached", { name: oppName })));
    parts.push(h("p", { class: "rematch-note", role: "status" }));
    buttons.append(...finalButtons(g, v.match).filter(Boolean));
  } else {
    parts.push(h("p", { class: "small" }, t("sheet.nobody")));
    buttons.append(h("button", { type: "button", class: "btn primary next-hand", onclick: () => closeSheet(g) },
      t("sheet.keep_playing")));
  }
  parts.push(buttons);
  // the opponent inside the sentence: "la computadora", never "La computadora"
  const inside = opponentName(v);
  announce(t("sheet.said", { title, mine: gained(mine), name: inside, theirs: gained(theirs),
    score: r.scores[mine], their_score: r.scores[theirs] }));
  g.sheet = openDialog({
    title, className: "sheet" + (finished ? " final" : ""),
    body: h("div", { class: "sheet-body" },
      h("div", { class: "sheet-table" }, sheetTable(facts, me, shortOpponentName(v))),
      h("div", { class: "sheet-side" }, parts)),
    closeLabel: finished ? t("sheet.close") : t("sheet.keep_playing"),
    onClose: () => {
      g.sheet = null;
      g.render();
      refocus(g);
      g.pump();
    },
  });
  g.sheet.dataset.handNumber = String(handNumber);
  if (finished && g.rematchSeen) noteRematchWish(g, { seat: v.seat, names: v.names, rematch: g.rematchSeen });
}
