// The end of a hand at la mesa: the score sheet in a dialog (ui/sheet.js draws the table),
// what was left on the table and who got it, and, at the end of the match, the winner, the
// rematch (with the friend's wish, when they asked first) and the replay.

import { otherTeam, teamOf } from "../../engine/seats.js";
import { t } from "../../lib/i18n.js";
import { announce, h, openDialog } from "../../lib/dom.js";
import { sheetFacts, sheetNotes, sheetTable } from "../../ui/sheet.js";
import { refocus } from "./focus.js";
import {
  isFour, isFriendGame, opponentCapitalized, opponentName, opponentSeat, personChair, seatCapitalized, seatsAround,
  shortMyName,
  shortOpponentName,
} from "./names.js";

/** "Primo quiere la revancha. ¿Le das?" on the final sheet, once the friend asked. */
export function noteRematchWish(g, view) {
  const note = g.sheet?.querySelector(".rematch-note");
  if (!note || !view || !view.rematch || !isFriendGame(g.view)) return;
  const asker = askedRematch(g.view, view.rematch);
  if (asker !== null && !view.rematch[view.seat]) {
    note.textContent = t("sheet.rematch_asked", { name: seatCapitalized(g.view, asker) });
  }
}

/** The first other seat whose player asked for a rematch (a person: computers always want
 * one), or null. */
export function askedRematch(view, rematch) {
  if (!rematch) return null;
  if (!isFour(view)) return rematch[opponentSeat(view)] ? opponentSeat(view) : null;
  const { left, partner, right } = seatsAround(view);
  const asked = [partner, left, right].find((seat) => rematch[seat] && personChair(view, seat));
  return asked === undefined ? null : asked;
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
      rematch.textContent = isFour(g.view) ? t("mesa.waiting_others") : t("mesa.waiting_for", { name: opponentName(g.view) });
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
  const four = isFour(v); // the sheet by team: "Nosotros" and "Ellos"
  const oppName = opponentCapitalized(v);
  const facts = sheetFacts(r);
  const gained = (i) => r.scores[i] - facts.before[i];
  // the table, and beside it (a phone held sideways) or under it what it means
  const parts = [...sheetNotes(facts, me, oppName, four)];
  if (r.swept && r.swept.length) {
    const n = r.swept.length;
    const ours = r.sweeper !== null && r.sweeper !== undefined && teamOf(r.sweeper) === mine;
    parts.push(h("p", { class: "small" }, four
      ? (ours ? t("sheet.swept_us", { n }) : t("sheet.swept_ellos", { n }))
      : r.sweeper === me ? t("sheet.swept_mine", { n })
        : t("sheet.swept_theirs", { n, name: opponentName(v) })));
  }
  const handNumber = event.hand_number ?? v.hand_number;
  const finished = r.winner !== null && r.winner !== undefined;
  let title = t("sheet.hand_end", { n: handNumber + 1 });
  const buttons = h("div", { class: "button-row" });
  if (finished) {
    const won = r.winner === mine;
    if (four) title = won ? t("four.we_won") : t("four.they_won");
    else title = won ? t("sheet.you_won") : t("sheet.they_won", { name: oppName });
    parts.push(h("p", { class: "winner", "data-winner": String(r.winner) }, four
      ? (won ? t("sheet.we_reached") : t("sheet.ellos_reached"))
      : won ? t("sheet.you_reached") : t("sheet.they_reached", { name: oppName })));
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
  const said = { title, mine: gained(mine), name: inside, theirs: gained(theirs),
    score: r.scores[mine], their_score: r.scores[theirs] };
  announce(four ? t("sheet.said_teams", said) : t("sheet.said", said));
  g.sheet = openDialog({
    title, className: "sheet" + (finished ? " final" : ""),
    body: h("div", { class: "sheet-body" },
      h("div", { class: "sheet-table" }, sheetTable(facts, me, shortOpponentName(v), shortMyName(v))),
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
