// The panels around the table: the score boxes (match points, limpias and what each one
// has taken in this hand), a player's panel (name, whether they are here, their hand as
// card backs) and how many are watching. One copy for la mesa, the watcher's page and the
// replay; the numbers are the server's (`view.tally`, `scores`, `limpias`). (Not to be
// confused with engine/seats.js: how many seats, the next one, a seat's team.)

import { h } from "../lib/dom.js";
import { t } from "../lib/i18n.js";
import { cardBack } from "./cards.js";
import { levelName } from "./texts.js";
import { plural } from "./words.js";

/** What a seat has captured so far in this hand: "14 cartas · 5 picas · 10♦ · 2♠" (the
 * server's tally), said "Se llevó 14 cartas, …" (`mine`: to its own player, "Te llevaste
 * 14 cartas, …, tienes el diez de diamantes"; `team`: a team's at a table of four, "Nos
 * llevamos…", "Se llevaron…"). */
export function tally(c, seat, mine, team = false) {
  const ten = team ? (mine ? "tally.we_have_ten" : "tally.they_have_ten") : mine ? "tally.have_ten" : "tally.has_ten";
  const two = team ? (mine ? "tally.we_have_two" : "tally.they_have_two") : mine ? "tally.have_two" : "tally.has_two";
  const said = team ? (mine ? "tally.ours" : "tally.theirs_team") : mine ? "tally.mine" : "tally.theirs";
  const spoken = [plural(c.cards, "tally.cards"), plural(c.spades, "tally.spades"),
    c.ten_of_diamonds ? t(ten) : null, c.two_of_spades ? t(two) : null].filter(Boolean).join(", ");
  return h("span", { class: "tally", "data-tally-seat": String(seat), "data-cards": String(c.cards),
    "data-spades": String(c.spades), "data-ten": String(Boolean(c.ten_of_diamonds)),
    "data-two": String(Boolean(c.two_of_spades)) },
  h("span", { class: "sr-only" }, t(said, { list: spoken })),
  h("span", { class: "t-cards", "aria-hidden": "true" }, plural(c.cards, "tally.cards")),
  h("span", { class: "t-spades", "aria-hidden": "true" }, plural(c.spades, "tally.spades")),
  c.ten_of_diamonds ? h("span", { class: "t-key red", "aria-hidden": "true" }, "10♦") : null,
  c.two_of_spades ? h("span", { class: "t-key", "aria-hidden": "true" }, "2♠") : null);
}

/**
 * One seat's score box. `box`: {seat, who (the name shown), near (the box on the player's
 * side), score, limpias, tally (null: the hand has not started), mine, team (a team's, at a
 * table of four), bubble (a reaction)}.
 */
export function scoreBox(box) {
  const started = box.tally !== null && box.tally !== undefined;
  return h("div", { class: `score ${box.near ? "me" : "them"}`, "data-score-seat": String(box.seat) },
    h("span", { class: "who" }, box.who),
    h("span", { class: "pts" }, String(box.score), h("span", { class: "sr-only" }, t("seats.points", { n: box.score }))),
    started ? h("span", { class: "limpias" }, plural(box.limpias, "tally.limpias")) : null,
    started ? tally(box.tally, box.seat, Boolean(box.mine), Boolean(box.team)) : null,
    box.bubble || null);
}

/** Both score boxes, the near one first. */
export function scoreBoxes(near, far) {
  return h("div", { class: "scores", role: "group", "aria-label": t("seats.scores") },
    scoreBox({ ...near, near: true }), scoreBox({ ...far, near: false }));
}

/** "👀 3 personas mirando". */
export function watchersCount(count) {
  return h("p", { class: "watchers-count", "data-watchers": String(count) },
    h("span", { "aria-hidden": "true" }, "👀 "), t("seats.watching", { n: count }));
}

/**
 * A player's side of the table: the name line, their hand as card backs, then `below`.
 * `player`: {seat, name, person (a person, not the computer: a dot says whether they are
 * here), away, level (the computer's), handSize, badges (more of the name line), below}.
 */
export function playerPanel(player, className = "opponent") {
  const n = player.handSize;
  const backs = h("div", { class: "opp-cards", "aria-hidden": "true" });
  for (let i = 0; i < n; i++) backs.append(cardBack());
  return h("section", { class: className, "data-seat": String(player.seat), "aria-label": player.name },
    h("p", { class: "opp-name" },
      player.person ? h("span", { class: "conn-dot" + (player.away ? " off" : ""), "aria-hidden": "true" }) : null,
      player.name,
      !player.person && player.level ? h("span", { class: "level" }, t("seats.level", { level: levelName(player.level) })) : null,
      h("span", { class: "count", "data-hand-size": String(n) }, t("seats.hand_size", { n })),
      player.badges || null),
    backs,
    player.below || null);
}
