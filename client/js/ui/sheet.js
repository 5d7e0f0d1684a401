// The end-of-hand score sheet: for each category, what each player gathered (the raw
// count), the points it gave, which of them came too late (someone had already reached 21),
// which categories could not score for a seat (the 18-points rule, as the server says in
// `eligible`) and a running total from the match score at the hand's start to the one after
// it. Everything comes from the server's hand_end result; nothing is counted here.

import { TEAMS, otherTeam, teamOf } from "../engine/seats.js";
import { cardShort } from "./cards.js";
import { h } from "../lib/dom.js";
import { t } from "../lib/i18n.js";
import { plural } from "./words.js";

// the categories in the server's order (server/engine/scoring.py CATEGORIES)
const CATEGORIES = ["cards", "spades", "ten_of_diamonds", "two_of_spades", "aces", "limpias"];

/** The facts of the server's hand_end result that the sheet draws. */
export function sheetFacts(result) {
  return {
    points: result.points,
    counted: result.counted,
    before: result.scores_before,
    scores: result.scores,
    counts: result.counts,
    limited: result.limited,
    eligible: result.eligible,
    categories: result.categories,
  };
}

/** What seat `i` gathered in category `k`: [visible nodes, spoken words]. */
function countWords(facts, i, k) {
  const c = facts.counts?.[i];
  if (!c) return [[], ""];
  switch (k) {
    case 0:
      return [[plural(c.cards, "tally.cards")], plural(c.cards, "tally.cards")];
    case 1:
      return [[plural(c.spades, "tally.spades")], plural(c.spades, "tally.spades")];
    case 2:
      return c.ten_of_diamonds ? [[t("sheet.has_it")], t("tally.has_ten")] : [["—"], t("sheet.not_it")];
    case 3:
      return c.two_of_spades ? [[t("sheet.has_it")], t("tally.has_two")] : [["—"], t("sheet.not_it")];
    case 4: {
      const aces = c.aces || [];
      if (!aces.length) return [["—"], t("sheet.no_ace")];
      return [[aces.map(cardShort).join(" ")], plural(aces.length, "sheet.aces")];
    }
    default: {
      const mine = c.limpias;
      const cancelled = c.limpias_cancelled || 0; // the server's: both seats cancel as many
      const words = plural(mine, "tally.limpias");
      if (cancelled === 0) return [[words], words];
      const note = cancelled === mine ? t("sheet.cancelled_all", { n: mine }) : t("sheet.cancelled_some", { n: cancelled });
      return [[words, h("span", { class: "cancelled" }, t("sheet.cancelled_note", { note }))],
        t("sheet.count_cancelled", { count: words, note })];
    }
  }
}

/**
 * The sheet's table, seen from seat `me`: its team's column first. Per team and category,
 * a cell with data-points (what the category gave), data-counted (what entered the match
 * score) and data-total (the running total).
 */
export function sheetTable(facts, me, oppShort, meLabel = t("names.you")) {
  const mine = teamOf(me);
  const theirs = otherTeam(mine);
  const running = TEAMS.map((team) => facts.before[team]);
  const cell = (i, k) => {
    const pts = facts.points[i][k];
    const counted = facts.counted[i][k];
    const late = pts - counted;
    const blocked = facts.eligible ? !facts.eligible[i][k] : false;
    running[i] += counted;
    const [countNodes, countSpoken] = countWords(facts, i, k);
    const ptsText = counted > 0 ? `+${counted}` : (late > 0 || blocked ? "" : "0");
    const points = plural(counted, "sheet.points");
    const spokenPts = blocked ? t("sheet.blocked_said")
      : late > 0 ? t("sheet.points_late", { points, late: plural(late, "sheet.late") }) : points;
    return h("td", {
      "data-seat": String(i), "data-points": String(pts), "data-counted": String(counted),
      "data-total": String(running[i]), class: late > 0 ? "has-late" : null,
    },
    h("span", { class: "count", "aria-hidden": "true" }, countNodes),
    h("span", { class: "pts", "aria-hidden": "true" },
      ptsText ? h("span", { class: "got" }, ptsText) : null,
      late > 0 ? h("s", { class: "late" }, `+${late}`) : null,
      blocked ? h("span", { class: "blocked" }, t("sheet.blocked")) : h("span", { class: "run" }, t("sheet.running", { n: running[i] }))),
    h("span", { class: "sr-only" }, countSpoken
      ? t("sheet.cell_said", { count: countSpoken, points: spokenPts, total: running[i] })
      : t("sheet.cell_said_plain", { points: spokenPts, total: running[i] })));
  };
  const rows = CATEGORIES.map((category, k) =>
    h("tr", { "data-category": String(k) },
      h("th", { scope: "row" }, h("span", { "aria-hidden": "true" }, t(`sheet.short.${k}`)),
        h("span", { class: "sr-only" }, t(`sheet.category.${category}`))),
      cell(mine, k), cell(theirs, k)));
  const total = (i) => h("td", { "data-seat": String(i), "data-total": String(facts.scores[i]) },
    String(facts.scores[i]));
  const start = (i) => h("td", { "data-seat": String(i), "data-total": String(facts.before[i]) },
    String(facts.before[i]));
  return h("table", { class: "score-sheet" },
    h("caption", { class: "sr-only" }, t("sheet.caption")),
    h("thead", {}, h("tr", {},
      h("th", { scope: "col" }, h("span", { class: "sr-only" }, t("sheet.category"))),
      h("th", { scope: "col" }, meLabel),
      h("th", { scope: "col" }, oppShort))),
    h("tbody", {},
      h("tr", { class: "start-total" }, h("th", { scope: "row" }, t("sheet.start")), start(mine), start(theirs)),
      rows),
    h("tfoot", {},
      h("tr", { class: "match-total" }, h("th", { scope: "row" }, t("sheet.match")), total(mine), total(theirs))));
}

/** Sentences under the table (seen from seat `me`): late points, the 18-points rule
 * (`teams`: a table of four, said of "nosotros" and "ellos"). */
export function sheetNotes(facts, me, oppName, teams = false) {
  const notes = [];
  const late = TEAMS.map((i) => facts.points[i].reduce((a, b, k) => a + b - facts.counted[i][k], 0));
  if (late.some((points) => points > 0)) {
    notes.push(h("p", { class: "small late-note" },
      h("s", { class: "late" }, "+1"), t("sheet.late_note")));
  }
  const mine = teamOf(me);
  const limited = [mine, otherTeam(mine)].filter((i) => facts.limited[i]);
  if (limited.length) {
    const both = limited.length === TEAMS.length;
    const note = teams
      ? (both ? t("sheet.limited_both_teams") : limited[0] === mine ? t("sheet.limited_us") : t("sheet.limited_ellos"))
      : both ? t("sheet.limited_both") : limited[0] === mine ? t("sheet.limited_me")
        : t("sheet.limited_them", { name: oppName });
    notes.push(h("p", { class: "small late-rule" }, note));
  }
  return notes;
}
