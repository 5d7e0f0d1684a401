// Mis partidas on Inicio: every seat this device holds, as the server says each game goes
// (POST /api/my-games: who plays each seat, score, whose turn, how long since the last
// move; a table of four as "con Ana, contra Beto y Caro"), the
// games that wait for me first; the one "Continuar partida" opens is not listed again. Tapping one opens it; a finished one can be watched again
// or taken off the list.

import { others, otherTeam, partner, rivals, teamOf } from "../engine/seats.js";
import { myGames } from "../lib/api.js";
import { announce, capitalize, h } from "../lib/dom.js";
import { language, t } from "../lib/i18n.js";
import { forgetSeat, loadSeats } from "../lib/device.js";
import { pushToggle } from "../ui/push.js";
import { levelName } from "../ui/texts.js";
import { listWords, shownName, whoSits } from "../ui/chairs.js";

const REFRESH_MS = 30_000; // a list request every 30 s at most (the server allows 30 a minute)

/** "hace un momento", "hace 5 minutos", "hace 3 horas", "ayer", "hace 4 días" (in the
 * language in use: Intl.RelativeTimeFormat). */
export function agoText(seconds) {
  const minutes = Math.floor(seconds / 60);
  const hours = Math.floor(seconds / 3600);
  const days = Math.floor(seconds / 86400);
  if (minutes < 1) return t("ago.now");
  const ago = new Intl.RelativeTimeFormat(language(), { numeric: days === 1 ? "auto" : "always" });
  if (hours < 1) return ago.format(-minutes, "minute");
  if (days < 1) return ago.format(-hours, "hour");
  if (days < 30) return ago.format(-days, "day");
  return ago.format(-Math.floor(days / 30), "month");
}

/** The seats of the game's table. */
function seatCountOf(game) {
  return game.seat_count || game.players?.length || 2;
}

/** Who plays `seat`, inside a sentence: "Ana", "la computadora (Normal)" ("la computadora"
 * with no `level`), or someone who has not arrived yet. */
function playerWords(game, seat, level = true) {
  const player = game.players?.[seat] || { name: game.names?.[seat] ?? null, kind: "person", level: null };
  if (!level && player.kind === "computer") return t("games.computer");
  return whoSits({ ...player, name: shownName(player.name, seat, player) });
}

/** A room of two: the other seat, in words ({title, name}). */
function opponentWords(game) {
  const other = others(game.seat, 2)[0];
  const o = game.players?.[other] || { kind: "person", name: null };
  if (o.kind === "computer") {
    return { title: t("games.vs_computer", { level: levelName(o.level) }), name: t("games.computer") };
  }
  if (!o.name) return { title: t("games.friend_not_yet"), name: t("games.friend") };
  const name = shownName(o.name, other, o);
  return { title: name, name };
}

/** A table of four, in words: {partner, rivals ("Beto y Caro"), all (everyone else: "Ana,
 * Beto y Caro")}. */
function tableWords(game) {
  const count = seatCountOf(game);
  const mate = partner(game.seat, count);
  return {
    partner: playerWords(game, mate),
    rivals: listWords(rivals(game.seat, count).map((s) => playerWords(game, s))),
    all: listWords(others(game.seat, count).map((s) => playerWords(game, s))),
  };
}

/** How the game is named: {title (its line in the list), who (inside "la partida con …"),
 * name (the other side, where the score is said)}. */
function gameWords(game) {
  if (seatCountOf(game) <= 2) {
    const { title, name } = opponentWords(game);
    return { title, who: title, name, pairs: false };
  }
  const words = tableWords(game);
  return { title: t("games.pairs_title", { partner: words.partner, rivals: words.rivals }),
    who: words.all, name: words.all, pairs: true };
}

/** A table of four: whose turn, in words. */
function pairsTurnText(game) {
  const me = game.seat;
  const count = seatCountOf(game);
  if (game.status === "waiting") {
    const missing = (game.names || []).filter((name, seat) => name === null &&
      game.players?.[seat]?.kind !== "computer").length;
    return t("games.waiting_pairs", { n: Math.max(1, missing) });
  }
  if (game.status === "finished") {
    if (game.waits_for_me) {
      const asked = others(me, count).filter((s) => game.rematch?.[s] && game.players?.[s]?.kind !== "computer");
      return t("games.wants_rematch_pairs", { n: asked.length, names: listWords(asked.map((s) => playerWords(game, s))) });
    }
    return game.winner === teamOf(me) ? t("games.finished_won_pairs")
      : t("games.finished_lost_pairs", { names: tableWords(game).rivals });
  }
  if (game.my_turn) return t("games.my_turn");
  return typeof game.turn === "number" ? t("games.their_turn", { name: playerWords(game, game.turn, false) }) : "";
}

/** Whose turn, in words: "Te toca", "Le toca a Ana", "Ana quiere la revancha", … */
export function turnText(game) {
  if (seatCountOf(game) > 2) return pairsTurnText(game);
  const { name } = opponentWords(game);
  const me = game.seat;
  if (game.status === "waiting") return t("games.waiting");
  if (game.status === "finished") {
    if (game.waits_for_me) return t("games.wants_rematch", { name: capitalize(name) });
    // the server's word
    return game.winner === teamOf(me) ? t("games.finished_won") : t("games.finished_lost", { name });
  }
  if (game.my_turn) return t("games.my_turn");
  return t("games.their_turn", { name });
}

/** The games that wait for me first, then the ones being played, waiting for a friend,
 * finished; the most recent first within each. */
function rank(game) {
  if (game.waits_for_me) return 0;
  return { playing: 1, waiting: 2, finished: 3 }[game.status] ?? 4;
}

export function sortGames(entries) {
  return [...entries].sort((a, b) => rank(a.game) - rank(b.game) ||
    a.game.last_move_ago - b.game.last_move_ago);
}

/** What "Continuar partida" says of the game it continues: "con la computadora (Fácil) ·
 * Te toca", "con Ana · Le toca a Ana", "Esperando a que llegue tu amigo". */
export function continueLine(game) {
  if (game.status === "waiting") return turnText(game);
  if (seatCountOf(game) > 2) {
    const { partner: mate, rivals: them } = tableWords(game);
    return t("games.continue_line_pairs", { partner: mate, rivals: them, turn: turnText(game) });
  }
  return t("games.continue_line", { who: opponentWords(game).title, turn: turnText(game) });
}

/** A game's own buttons under it: its replay, and "Quitar" once finished. */
function gameActions(seat, game, hooks, redraw) {
  const { who } = gameWords(game);
  const extra = [];
  const lastFinished = game.status === "finished" ? game.match : game.match - 1;
  if (game.finished_matches > 0 && lastFinished > 0) {
    extra.push(h("button", { type: "button", class: "btn quiet g-replay",
      onclick: () => hooks.replay(seat, lastFinished) },
    game.status === "finished" ? t("games.replay") : t("games.replay_last")));
  }
  const push = pushToggle(seat, game, gameWords(game).name); // ui/push.js
  if (push) extra.push(push);
  if (game.status === "finished") {
    extra.push(h("button", { type: "button", class: "btn quiet g-forget",
      "aria-label": t("games.forget_label", { who }),
      onclick: () => {
        forgetSeat(seat.token);
        announce(t("games.forgotten", { who }));
        redraw();
      } }, t("games.forget")));
  }
  return extra;
}

function gameItem(seat, game, hooks, redraw) {
  const words = gameWords(game);
  const title = words.title;
  const mine = teamOf(game.seat); // the scores are a team's (RULES.md 9.4)
  const theirs = otherTeam(mine);
  const turn = turnText(game);
  const when = t(game.moved ? "games.last_move" : "games.started", { ago: agoText(game.last_move_ago) });
  const score = words.pairs
    ? t("games.score_pairs", { mine: game.scores[mine], theirs: game.scores[theirs] })
    : t("games.score", { mine: game.scores[mine], them: capitalize(words.name), theirs: game.scores[theirs] });
  // no aria-label: what the button shows is what it is called (voice control)
  const open = h("button", { type: "button", class: "btn game-open", "data-room": game.room },
  h("span", { class: "g-line" },
    h("span", { class: "g-name" }, capitalize(title)),
    game.turns ? h("span", { class: "turns-badge" }, t("games.turns_badge")) : null),
  h("span", { class: "g-line" },
    h("span", { class: "g-score" }, score),
    h("span", { class: "g-turn" + (game.waits_for_me ? " mine" : "") }, turn)),
  h("span", { class: "g-ago small" }, when));
  open.addEventListener("click", () => hooks.open(seat));
  const extra = gameActions(seat, game, hooks, redraw);
  return h("li", { class: "game", "data-room": game.room, "data-status": game.status,
    "data-seats": String(seatCountOf(game)),
    "data-waits": String(Boolean(game.waits_for_me)), "data-turns": String(Boolean(game.turns)) },
  open, extra.length ? h("div", { class: "g-actions" }, extra) : null);
}

/** The offline form of an item: what the device itself knows. */
function plainItem(seat, hooks) {
  const label = t(seat.mode === "computer" ? "games.plain_computer" : "games.plain_friend");
  return h("li", { class: "game", "data-room": seat.room },
    h("button", { type: "button", class: "btn game-open", "data-room": seat.room, onclick: () => hooks.open(seat) }, label));
}

/** The section (empty and hidden when the device holds no seat). `hooks`: {open(seat),
 * replay(seat, match), listed(entries) (optional: each time the server said how they go,
 * [{seat, game}]), local(redraw) (optional: the items of this device's offline games),
 * apart() (optional: the token of the game Inicio shows apart, as "Continuar partida": it
 * is not listed twice) and shown(game, actions) (optional: how that game goes, and its own
 * buttons)}. */
export function myGamesSection(hooks) {
  const list = h("ul", { class: "games", "aria-labelledby": "t-partidas" });
  const status = h("p", { class: "small games-status", role: "status" });
  const section = h("section", { class: "choice mis-partidas", "aria-labelledby": "t-partidas" },
    h("h2", { id: "t-partidas" }, t("games.title")), status, list);
  // a refresh says nothing new to a screen reader and keeps the keyboard focus where it was
  const say = (text) => {
    if (status.textContent !== text) status.textContent = text;
  };
  const redraw = (items) => {
    const active = document.activeElement;
    const item = list.contains(active) ? active.closest(".game") : null;
    const kept = item ? [item.dataset.room, [...active.classList].find((c) => c.startsWith("g") && c !== "game")] : null;
    list.replaceChildren(...items);
    if (kept) list.querySelector(`.game[data-room="${kept[0]}"] .${kept[1] || "game-open"}`)?.focus();
  };
  let first = true;
  const draw = async () => {
    // this device's games with no server (Jugar sin conexión), ahead of the server's
    const locals = hooks.local ? await hooks.local(draw) : [];
    const all = loadSeats();
    const apart = hooks.apart?.() ?? null;
    const seats = all.filter((s) => s.token !== apart); // those listed here
    section.hidden = seats.length === 0 && locals.length === 0;
    if (!all.length) {
      redraw(locals);
      return;
    }
    if (first) say(t("games.looking"));
    first = false;
    let games;
    try {
      games = (await myGames(all.map((s) => s.token))).games;
    } catch (error) {
      say(t("games.failed", { error: error.message }));
      redraw([...locals, ...seats.map((seat) => plainItem(seat, hooks))]);
      return;
    }
    const entries = [];
    let gone = 0;
    all.forEach((seat, i) => {
      if (games[i]) entries.push({ seat, game: games[i] });
      else {
        forgetSeat(seat.token); // the server no longer knows it: moved away, or forgotten
        gone += 1;
      }
    });
    hooks.listed?.(entries); // may end the game shown apart (it is over): then it is listed
    const shownApart = hooks.apart?.() ?? null;
    const apartEntry = entries.find((e) => e.seat.token === shownApart);
    if (apartEntry) hooks.shown?.(apartEntry.game, gameActions(apartEntry.seat, apartEntry.game, hooks, draw));
    const listed = entries.filter((e) => e !== apartEntry);
    section.hidden = listed.length === 0 && gone === 0 && locals.length === 0;
    const waiting = entries.filter((e) => e.game.waits_for_me).length; // the one apart too
    const lines = [waiting ? t("games.waiting_count", { n: waiting }) : entries.length ? t("games.none_waiting") : "",
      gone ? t("games.gone", { n: gone }) : ""];
    say(lines.filter(Boolean).join(" "));
    redraw([...locals, ...sortGames(listed).map(({ seat, game }) => gameItem(seat, game, hooks, draw))]);
  };
  section.hidden = loadSeats().filter((s) => s.token !== (hooks.apart?.() ?? null)).length === 0;
  draw();
  // while Inicio is on screen, the list follows the games (another screen drops it)
  const timer = setInterval(() => {
    if (!section.isConnected) clearInterval(timer);
    else if (document.visibilityState === "visible") draw();
  }, REFRESH_MS);
  return section;
}
