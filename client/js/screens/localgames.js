// Jugar sin conexión on Inicio: the computer at Fácil or Normal with no server, and the
// offline games of this device as Mis partidas lists them (what the device itself kept:
// lib/offlinedb.js).

import { announce, busy, capitalize, h, unbusy } from "../lib/dom.js";
import { t } from "../lib/i18n.js";
import { forgetLocalGame, listLocalGames } from "../lib/offlinedb.js";
import { levelName } from "../ui/texts.js";
import { agoText } from "./mygames.js";

/** Said on Inicio when an offline game could not start because this device does not keep
 * what it needs yet (and there is no network to fetch it). */
export const NO_KIT = "local.no_kit";
export const NO_LOCAL_STORAGE = "local.no_storage";

export const OFFLINE_LEVELS = ["facil", "normal"];

/** "Jugar sin conexión": `play(level, seats)` starts a new game on this device (a promise:
 * it may first fetch what offline play needs): one against the computer, or in pairs (a
 * computer partner against two computers, all three at the level chosen). */
export function offlineChoice(play) {
  const levelButton = (level, seats) => {
    const attrs = { type: "button", class: "btn big offline-level", "data-offline-level": level };
    if (seats === 4) attrs["data-offline-seats"] = "4";
    // in pairs the button's name starts with the game, not the level: "Fácil" alone is the
    // game against one computer
    const button = h("button", attrs,
      seats === 4 ? h("span", { class: "sub pre" }, t("local.pairs_title")) : null, t(`level.${level}`),
      h("span", { class: "sub" }, t(`inicio.level.${level}`)));
    button.addEventListener("click", async () => {
      if (button.getAttribute("aria-disabled")) return;
      busy(button, t("inicio.preparing"));
      try {
        await play(level, seats);
      } finally {
        unbusy(button);
      }
    });
    return button;
  };
  return h("section", { class: "choice sin-conexion", "aria-labelledby": "t-sin-conexion" },
    h("h2", { id: "t-sin-conexion" }, t("local.title")),
    h("p", { class: "small" }, t("local.line")),
    h("div", { class: "button-row two" }, OFFLINE_LEVELS.map((level) => levelButton(level, 2))),
    h("p", { class: "small offline-pairs", id: "t-sin-conexion-parejas" }, t("local.pairs_line")),
    h("div", { class: "button-row two", role: "group", "aria-labelledby": "t-sin-conexion-parejas" },
      OFFLINE_LEVELS.map((level) => levelButton(level, 4))));
}

function turnLine(game) {
  const pairs = game.seats === 4;
  if (game.status === "finished") {
    if (pairs) return t(game.winner === 0 ? "local.won_pairs" : "local.lost_pairs");
    return t(game.winner === 0 ? "local.won" : "local.lost");
  }
  return t(game.myTurn ? "games.my_turn" : "local.their_turn");
}

/** One offline game in Mis partidas. `hooks`: {openLocal(id)}; `redraw()` after "Quitar". */
function localItem(game, hooks, redraw) {
  const pairs = game.seats === 4;
  const title = t(pairs ? "local.title_pairs" : "local.title_vs", { level: levelName(game.level) });
  const finished = game.status === "finished";
  const open = h("button", { type: "button", class: "btn game-open", "data-local": game.id,
    onclick: () => hooks.openLocal(game.id) },
  h("span", { class: "g-line" },
    h("span", { class: "g-name" }, title),
    h("span", { class: "turns-badge offline-badge" }, t("local.badge"))),
  h("span", { class: "g-line" },
    h("span", { class: "g-score" }, pairs
      ? t("local.score_pairs", { mine: game.scores[0], theirs: game.scores[1] })
      : t("games.score", { mine: game.scores[0], them: capitalize(t("games.computer")), theirs: game.scores[1] })),
    h("span", { class: "g-turn" + (game.myTurn && !finished ? " mine" : "") }, turnLine(game))),
  h("span", { class: "g-ago small" }, t("games.last_move", { ago: agoText((Date.now() - game.updated) / 1000) })));
  const forget = finished ? h("button", { type: "button", class: "btn quiet g-forget",
    "aria-label": t("local.forget_label", { who: title.toLowerCase() }),
    onclick: async () => {
      await forgetLocalGame(game.id);
      announce(t("local.forgotten"));
      redraw();
    } }, t("games.forget")) : null;
  return h("li", { class: "game local", "data-room": game.id, "data-status": game.status,
    "data-waits": String(Boolean(game.myTurn && !finished)) },
  open, forget ? h("div", { class: "g-actions" }, forget) : null);
}

/** The offline games of this device as Mis partidas items, those being played first. */
export async function localGameItems(hooks, redraw) {
  const games = await listLocalGames();
  const rank = (g) => (g.status === "finished" ? 1 : 0);
  return [...games].sort((a, b) => rank(a) - rank(b) || b.updated - a.updated)
    .map((game) => localItem(game, hooks, redraw));
}
