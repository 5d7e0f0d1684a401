// The replay of a finished match: step by step (Anterior / Siguiente, the slider, the arrow
// keys), every hand face up (the match is over), the table, what each one (each team, at a
// table of four) has taken, the move in words and each hand's result. Everything comes from
// GET /api/replays/<code>: the server played the stored moves again; nothing is counted here.

import { TEAMS, otherTeam, seatsOf, teamOf, teamSeats } from "../engine/seats.js";
import { t } from "../lib/i18n.js";
import { capitalize, h } from "../lib/dom.js";
import { cardElement } from "../ui/cards.js";
import { scoreBox } from "../ui/panels.js";
import { sayIn, shareButton, shareStatus } from "../ui/share.js";
import { sheetFacts, sheetTable } from "../ui/sheet.js";
import { deckLine, tableEmpty, tableItems } from "../ui/table.js";
import { levelName } from "../ui/texts.js";
import { dealWords, handEndWords, matchEndWords, moveLine, moveSentence } from "../ui/words.js";

/** A match of four (two teams of two). */
const isFour = (data) => data.names.length === 4;

/** The level of a computer's chair: the seat's own (`levels`), else the match's. */
const levelOf = (data, seat) => (data.levels && data.levels[seat]) || data.level;

/** A seat as the replay's headings name it: "Ana", "Computadora (Fácil)"; at a table of
 * four, where more than one computer may play, by the seat's number: "Computadora 3 (Fácil)". */
function displayName(data, seat) {
  if (data.kinds[seat] === "computer") {
    const level = levelOf(data, seat);
    if (isFour(data)) {
      return level ? t("replay.computer_n_level", { n: seat + 1, level: levelName(level) })
        : capitalize(t("replay.computer_n", { n: seat + 1 }));
    }
    return level ? t("replay.computer_level", { level: levelName(level) }) : t("names.computer_short");
  }
  // a seat nobody named: the catalog's words (the server stores a Spanish default)
  if (data.named?.[seat] === false) return t("watch.player", { n: seat + 1 });
  return data.names[seat] || t("watch.player", { n: seat + 1 });
}

/** A seat inside a sentence: "Ana", "la computadora" ("la computadora 3" at four). */
function sentenceName(data, seat) {
  if (data.kinds[seat] !== "computer") return displayName(data, seat);
  return isFour(data) ? t("replay.computer_n", { n: seat + 1 }) : t("games.computer");
}

/** A team as a heading says it, "Ana y la computadora 3", "La computadora 2 y la
 * computadora 4" (`sentence`: as inside a sentence, "la computadora 2 y la computadora 4"). */
function teamName(data, team, sentence = false) {
  const [a, b] = teamSeats(team, data.names.length);
  const first = sentenceName(data, a);
  return t("replay.team", { a: sentence ? first : capitalize(first), b: sentenceName(data, b) });
}

/** What the scores are said of: the seats, or at a table of four the teams. */
function scoredNames(data, sentence) {
  if (isFour(data)) return TEAMS.map((team) => teamName(data, team, sentence));
  return seatsOf(2).map((seat) => (sentence ? sentenceName(data, seat) : displayName(data, seat)));
}

/** What happened in a step: the move (said, or shown with card chips), a new deal, the end
 * of a hand or of the match. */
function stepWords(data, step, index, spoken) {
  const names = seatsOf(data.names.length).map((seat) => sentenceName(data, seat));
  const scored = scoredNames(data, true);
  if (index === 0) {
    return [t("replay.deal", { name: names[step.position.turn] })];
  }
  const words = [];
  for (const event of step.events) {
    if (event.kind === "move") {
      const mover = { who: capitalize(names[event.seat]), table: step.position.table };
      words.push(spoken ? moveSentence(event, mover) : moveLine(event, mover));
    } else if (event.kind === "deal") words.push(dealWords());
    else if (event.kind === "hand_end") words.push(handEndWords(event, scored, isFour(data)));
    else if (event.kind === "match_end") words.push(matchEndWords(event, scored, isFour(data)));
  }
  return words;
}

function seatPanel(data, step, seat, active) {
  const p = step.position;
  const cards = p.hands[seat].length > 0;
  const hand = h("div", { class: "r-hand", "data-seat": String(seat), role: cards ? "list" : null,
    "aria-label": cards ? t("replay.hand_of", { name: displayName(data, seat) }) : null },
  p.hands[seat].map((code) => {
    const el = cardElement(code, { interactive: false });
    el.setAttribute("role", "listitem");
    return el;
  }));
  if (!cards) hand.append(h("p", { class: "small empty-hand" }, t("replay.no_cards")));
  // at a table of four the scores are the teams' (drawn once, above the board)
  const who = isFour(data) ? h("p", { class: "r-who" }, displayName(data, seat))
    : scoreBox({ seat, who: displayName(data, seat), near: seat === 0, score: p.scores[teamOf(seat)],
      limpias: p.limpias[teamOf(seat)], tally: p.tally[teamOf(seat)] });
  return h("section", { class: "r-seat" + (active ? " to-move" : ""), "data-seat": String(seat),
    "data-team": String(teamOf(seat)), "aria-label": displayName(data, seat) },
  h("div", { class: "r-name" }, who, active ? h("p", { class: "r-turn" }, t("replay.to_move")) : null),
  hand);
}

/** The two teams' score boxes of a table of four: "Ana y la computadora 3". */
function teamScores(data, step) {
  const p = step.position;
  return h("div", { class: "scores r-scores", role: "group", "aria-label": t("seats.scores") },
    TEAMS.map((team) => scoreBox({ seat: team, who: teamName(data, team), near: team === 0,
      score: p.scores[team], limpias: p.limpias[team], tally: p.tally[team], team: true })));
}

function tablePanel(data, step) {
  const p = step.position;
  const items = tableItems(p.table, { seat: null, ownerName: (seat) => sentenceName(data, seat) });
  return h("section", { class: "r-table" + (tableEmpty(p.table) ? " empty" : ""), "aria-label": t("mesa.title") },
    items.length ? h("div", { class: "table-cards" }, items) : h("p", { class: "r-empty" }, t("table.empty")),
    deckLine(p.deck_size, "deck r-deck"));
}

function handResult(data, step) {
  const end = step.events.find((e) => e.kind === "hand_end");
  if (!end) return null;
  const facts = sheetFacts({ ...end.result, categories: end.result.categories || data.categories });
  return h("section", { class: "r-result", "aria-label": t("replay.result", { n: end.hand_number + 1 }) },
    h("h2", {}, t("sheet.hand_end", { n: end.hand_number + 1 })),
    sheetTable(facts, 0, ...(isFour(data) ? [teamName(data, 1), teamName(data, 0)]
      : [displayName(data, 1), displayName(data, 0)])));
}

/**
 * The replay screen. `data`: the server's replay; `onBack()`: leave; `link`: the replay's
 * absolute address to share. Returns {element, stop}: stop() removes the key listener.
 */
export function replayScreen(data, { onBack, link }) {
  const last = data.steps.length - 1;
  let index = 0;
  const four = isFour(data);
  const names = scoredNames(data, false);
  const said = scoredNames(data, true);
  const board = h("div", { class: "r-board" + (four ? " four" : ""), "data-seats": String(data.names.length) });
  const counter = h("p", { class: "r-counter", "aria-hidden": "true" });
  const words = h("p", { class: "r-words" });
  const spoken = h("p", { class: "sr-only", "aria-live": "polite" });
  const result = h("div", { class: "r-result-box" });
  const slider = h("input", { type: "range", min: "0", max: String(last), value: "0", step: "1",
    class: "r-slider", "aria-label": t("replay.slider") });
  const prev = h("button", { type: "button", class: "btn r-prev" }, t("replay.prev"));
  const next = h("button", { type: "button", class: "btn r-next" }, t("replay.next"));
  const root = h("section", { class: "page replay", "aria-labelledby": "replay-title",
    "data-steps": String(data.steps.length) });

  const draw = () => {
    const step = data.steps[index];
    const p = step.position;
    const playing = index < last;
    const seat = (s) => seatPanel(data, step, s, playing && p.turn === s);
    // at four, as seat 0 would see them: its partner across, the seat before it on the
    // left, the seat after it on the right (the CSS places them by data-seat)
    if (four) board.replaceChildren(teamScores(data, step), seat(2), seat(3), seat(1), tablePanel(data, step), seat(0));
    else board.replaceChildren(seat(1), tablePanel(data, step), seat(0));
    const hand = t("replay.hand", { n: p.hand_number + 1 });
    counter.textContent = index === 0 ? t("replay.step_deal", { hand }) : t("replay.step", { hand, n: index, last });
    words.replaceChildren(...stepWords(data, step, index, false).map((shown) => h("span", {}, shown, " ")));
    spoken.textContent = [index === 0 ? t("replay.deal_said") : t("replay.move_said", { n: index, last }),
      ...stepWords(data, step, index, true)].join(" ");
    const ended = handResult(data, step);
    result.replaceChildren(ended || "");
    // a hand's end: its result brought into sight inside the board (the page never scrolls)
    if (ended && root.isConnected) ended.scrollIntoView({ block: "nearest" });
    slider.value = String(index);
    slider.setAttribute("aria-valuetext", index === 0 ? t("replay.the_deal") : t("replay.move_of", { n: index, last }));
    prev.setAttribute("aria-disabled", String(index === 0));
    next.setAttribute("aria-disabled", String(index === last));
    root.dataset.step = String(index);
  };
  const go = (to) => {
    const target = Math.max(0, Math.min(last, to));
    if (target === index) return;
    index = target;
    draw();
  };
  prev.addEventListener("click", () => go(index - 1));
  next.addEventListener("click", () => go(index + 1));
  slider.addEventListener("input", () => go(Number(slider.value)));
  const onKey = (event) => {
    if (event.target === slider || event.altKey || event.ctrlKey || event.metaKey) return; // the slider moves itself
    if (document.querySelector("dialog[open]")) return;
    const moves = { ArrowLeft: -1, ArrowRight: 1, PageUp: -10, PageDown: 10 };
    if (event.key in moves) go(index + moves[event.key]);
    else if (event.key === "Home") go(0);
    else if (event.key === "End") go(last);
    else return;
    event.preventDefault();
  };
  document.addEventListener("keydown", onKey);

  const shared = shareStatus();
  const say = sayIn(shared);
  const winner = data.winner;
  // the replay fits the screen as la mesa does: the head, the board (with the hand's result
  // and the share link, scrolled inside when they do not fit) and, at the foot, what
  // happened with its controls: stepping never means scrolling, and nothing covers a hand
  root.append(
    h("div", { class: "r-head" },
      h("button", { type: "button", class: "btn quiet r-back", onclick: onBack }, t("pages.back_arrow")),
      h("h1", { id: "replay-title" }, t("replay.title", { a: names[0], b: four ? said[1] : names[1] })),
      h("p", { class: "r-final" }, t("replay.of_match", { n: data.match }),
        h("strong", { "data-winner": String(winner) }, capitalize(t(four ? "replay.won_team" : "replay.won",
          { name: (four ? said : names)[winner], won: data.scores[winner], lost: data.scores[otherTeam(winner)] }))))),
    h("div", { class: "r-scroll" },
      board,
      result,
      h("p", { class: "small r-keys" }, t("replay.keys")),
      h("div", { class: "r-share-row" },
        shareButton(t("replay.share"), { text: t("replay.share_text"), url: link }, say, "btn r-share"),
        shared,
        h("p", { class: "small" }, t(four ? "replay.public_four" : "replay.public")),
        h("p", { class: "small invite-link" }, h("a", { href: link, "data-replay-link": "" }, link)))),
    h("div", { class: "r-dock" },
      h("div", { class: "r-status" }, counter, words, spoken),
      h("div", { class: "r-controls", role: "group", "aria-label": t("replay.controls") }, prev, slider, next)),
  );
  draw();
  return { element: root, stop: () => document.removeEventListener("keydown", onKey) };
}
