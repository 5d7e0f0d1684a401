// The end-of-hand score sheet: for each category, what each player gathered (the raw
// count), the points it gave, which of them came too late (someone had already reached 21),
// which categories could not score for a seat (the 18-points rule, as the server says in
// `eligible`) and a running total from the match score at the hand's start to the one after
// it. Everything comes from the server's hand_end result; nothing is counted here.

import { TEAMS, otherTeam, teamOf } from "../engine/seats.js";
import { cardShort } from "./cards.js";
import { h } from "../lib/dom.js";
import { plural } from "./words.js";

const SHORT_LABELS = ["Cartas", "Picas", "10♦", "2♠", "Ases", "Limpias"];

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
      return [[plural(c.cards, "carta", "cartas")], plural(c.cards, "carta", "cartas")];
    case 1:
      return [[plural(c.spades, "pica", "picas")], plural(c.spades, "pica", "picas")];
    case 2:
      return c.ten_of_diamonds ? [["Lo tiene"], "tiene el diez de diamantes"] : [["—"], "no lo tiene"];
    case 3:
      return c.two_of_spades ? [["Lo tiene"], "tiene el dos de picas"] : [["—"], "no lo tiene"];
    case 4: {
      const aces = c.aces || [];
      if (!aces.length) return [["—"], "ningún as"];
      return [[aces.map(cardShort).join(" ")], plural(aces.length, "as", "ases")];
    }
    default: {
      const mine = c.limpias;
      const cancelled = c.limpias_cancelled || 0; // the server's: both seats cancel as many
      const words = plural(mine, "limpia", "limpias");
      if (cancelled === 0) return [[words], words];
      const note = cancelled === mine
        ? (mine === 1 ? "se anula" : "se anulan")
        : `se ${cancelled === 1 ? "anula 1" : "anulan " + cancelled}`;
      return [[words, h("span", { class: "cancelled" }, ` (${note})`)], `${words}, ${note}`];
    }
  }
}

/**
 * The sheet's table, seen from seat `me`: its team's column first. Per team and category,
 * a cell with data-points (what the category gave), data-counted (what entered the match
 * score) and data-total (the running total).
 */
export function sheetTable(facts, me, oppShort, meLabel = "Tú") {
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
    const lateWords = late === 1 ? "1 punto que llegó tarde y no cuenta"
      : `${late} puntos que llegaron tarde y no cuentan`;
    const spokenPts = blocked
      ? "no cuenta por tener 18 o más"
      : plural(counted, "punto", "puntos") + (late > 0 ? `, y ${lateWords}` : "");
    return h("td", {
      "data-seat": String(i), "data-points": String(pts), "data-counted": String(counted),
      "data-total": String(running[i]), class: late > 0 ? "has-late" : null,
    },
    h("span", { class: "count", "aria-hidden": "true" }, countNodes),
    h("span", { class: "pts", "aria-hidden": "true" },
      ptsText ? h("span", { class: "got" }, ptsText) : null,
      late > 0 ? h("s", { class: "late" }, `+${late}`) : null,
      blocked ? h("span", { class: "blocked" }, "no cuenta") : h("span", { class: "run" }, `van ${running[i]}`)),
    h("span", { class: "sr-only" }, `${countSpoken ? countSpoken + ": " : ""}${spokenPts}. Van ${running[i]}.`));
  };
  const rows = SHORT_LABELS.map((label, k) =>
    h("tr", { "data-category": String(k) },
      h("th", { scope: "row" }, h("span", { "aria-hidden": "true" }, label),
        h("span", { class: "sr-only" }, facts.categories[k] || label)),
      cell(mine, k), cell(theirs, k)));
  const total = (i) => h("td", { "data-seat": String(i), "data-total": String(facts.scores[i]) },
    String(facts.scores[i]));
  const start = (i) => h("td", { "data-seat": String(i), "data-total": String(facts.before[i]) },
    String(facts.before[i]));
  return h("table", { class: "score-sheet" },
    h("caption", { class: "sr-only" }, "Puntos de esta mano, categoría por categoría"),
    h("thead", {}, h("tr", {},
      h("th", { scope: "col" }, h("span", { class: "sr-only" }, "Categoría")),
      h("th", { scope: "col" }, meLabel),
      h("th", { scope: "col" }, oppShort))),
    h("tbody", {},
      h("tr", { class: "start-total" }, h("th", { scope: "row" }, "Al empezar"), start(mine), start(theirs)),
      rows),
    h("tfoot", {},
      h("tr", { class: "match-total" }, h("th", { scope: "row" }, "Partida"), total(mine), total(theirs))));
}

/** Sentences under the table (seen from seat `me`): late points, the 18-points rule. */
export function sheetNotes(facts, me, oppName) {
  const notes = [];
  const late = TEAMS.map((i) => facts.points[i].reduce((a, b, k) => a + b - facts.counted[i][k], 0));
  if (late.some((points) => points > 0)) {
    notes.push(h("p", { class: "small late-note" },
      h("s", { class: "late" }, "+1"), " Tachado: llegó cuando alguien ya tenía 21, y no cuenta (se cuenta de arriba abajo y se para ahí)."));
  }
  const mine = teamOf(me);
  const limited = [mine, otherTeam(mine)].filter((i) => facts.limited[i]);
  if (limited.length) {
    const who = limited.length === TEAMS.length ? "Los dos empezaron"
      : limited[0] === mine ? "Empezaste" : `${oppName} empezó`;
    notes.push(h("p", { class: "small late-rule" },
      `${who} la mano con 18 o más: solo cuentan cartas, picas y el 10♦.`));
  }
  return notes;
}
