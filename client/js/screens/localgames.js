// Jugar sin conexión on Inicio: the computer at Fácil or Normal with no server, and the
// offline games of this device as Mis partidas lists them (what the device itself kept:
// lib/offlinedb.js).

import { announce, busy, capitalize, h, unbusy } from "../lib/dom.js";
import { forgetLocalGame, listLocalGames } from "../lib/offlinedb.js";
import { levelName } from "../ui/texts.js";
import { agoText } from "./mygames.js";

/** Said on Inicio when an offline game could not start because this device does not keep
 * what it needs yet (and there is no network to fetch it). */
export const NO_KIT = "Todavía no se puede jugar sin conexión en este dispositivo: primero tiene que guardar el juego. " +
  "Cuando tengas internet, abre el casino y espera un momento en el inicio; desde entonces se juega también sin señal.";
export const NO_LOCAL_STORAGE = "Este navegador no deja guardar partidas en el dispositivo (¿una ventana privada?). Prueba en una ventana normal.";

export const OFFLINE_LEVELS = {
  facil: ["Fácil", "para aprender"],
  normal: ["Normal", "un buen reto"],
};

/** "Jugar sin conexión": `play(level)` starts a new game on this device (a promise: it may
 * first fetch what offline play needs). */
export function offlineChoice(play) {
  const buttons = Object.entries(OFFLINE_LEVELS).map(([level, [label, line]]) => {
    const button = h("button", { type: "button", class: "btn big offline-level", "data-offline-level": level },
      label, h("span", { class: "sub" }, line));
    button.addEventListener("click", async () => {
      if (button.getAttribute("aria-disabled")) return;
      busy(button, "Preparando la mesa…");
      try {
        await play(level);
      } finally {
        unbusy(button);
      }
    });
    return button;
  });
  return h("section", { class: "choice sin-conexion", "aria-labelledby": "t-sin-conexion" },
    h("h2", { id: "t-sin-conexion" }, "Jugar sin conexión"),
    h("p", { class: "small" }, "Contra la computadora, aunque no tengas internet. La partida se guarda en este dispositivo mientras juegas."),
    h("div", { class: "button-row two" }, buttons));
}

function turnLine(game) {
  if (game.status === "finished") return game.winner === 0 ? "Terminó: Ganaste" : "Terminó: Ganó la computadora";
  return game.myTurn ? "Te toca" : "Le toca a la computadora";
}

/** One offline game in Mis partidas. `hooks`: {openLocal(id)}; `redraw()` after "Quitar". */
function localItem(game, hooks, redraw) {
  const title = `La computadora (${levelName(game.level)})`;
  const finished = game.status === "finished";
  const open = h("button", { type: "button", class: "btn game-open", "data-local": game.id,
    onclick: () => hooks.openLocal(game.id) },
  h("span", { class: "g-line" },
    h("span", { class: "g-name" }, title),
    h("span", { class: "turns-badge offline-badge" }, "Sin conexión")),
  h("span", { class: "g-line" },
    h("span", { class: "g-score" }, `Tú ${game.scores[0]} · ${capitalize("la computadora")} ${game.scores[1]}`),
    h("span", { class: "g-turn" + (game.myTurn && !finished ? " mine" : "") }, turnLine(game))),
  h("span", { class: "g-ago small" }, `Última jugada ${agoText((Date.now() - game.updated) / 1000)}`));
  const forget = finished ? h("button", { type: "button", class: "btn quiet g-forget",
    "aria-label": `Quitar de la lista la partida sin conexión con ${title.toLowerCase()}`,
    onclick: async () => {
      await forgetLocalGame(game.id);
      announce("Quitamos de la lista la partida sin conexión.");
      redraw();
    } }, "Quitar") : null;
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
