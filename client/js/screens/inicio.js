// Inicio: the game's front page. "Continuar partida", Mis partidas, the name, a game against
// the computer (three levels) or with a friend (por turnos or not), a table of four
// ("Jugar en parejas": pairs.js), the box for a code (a
// rejoin code from another device, or a friend's invitation), and the reading pages.

import { createRoom, rejoin, useCode } from "../lib/api.js";
import { busy, h, unbusy } from "../lib/dom.js";
import { t } from "../lib/i18n.js";
import { loadName, loadSession, markFinished, saveName, seatFrom } from "../lib/device.js";
import { localGameItems, offlineChoice } from "./localgames.js";
import { continueLine, myGamesSection } from "./mygames.js";
import { pairsSection } from "./pairs.js";
import { languageSwitch } from "../ui/language.js";

/** "¿Cómo te llamas?": the name this device remembers (the server says what it accepts). */
export function nameField(id) {
  return h("div", { class: "field" },
    h("label", { for: id }, t("inicio.name_label")),
    h("input", { id, name: "nombre", type: "text", autocomplete: "given-name",
      value: loadName(), placeholder: t("inicio.name_placeholder") }));
}

/** The name typed in field `id` (kept on this device), or "" for none. */
export function readName(id) {
  const value = (document.getElementById(id)?.value || "").trim();
  if (value) saveName(value);
  return value;
}

/** A table could not be asked for: no server (the message points to the section that is
 * moved right under it). */
const NO_SERVER = "inicio.no_server";

const LEVELS = ["facil", "normal", "dificil"];

/**
 * Inicio. `nav`: {game(session), join(invite), page(which), replay(token, match),
 * local(level) (a new game with no server), openLocal(id), opening(on) (a table was asked
 * for, or could not be had)}; `message`: an error or news to
 * show on top (said at once), or null.
 */
export function inicioScreen(nav, message = null) {
  const session = loadSession();
  const offline = navigator.onLine === false;
  if (offline && !message) message = t("inicio.offline_now");
  const status = h("p", { class: "error-line", role: "alert", id: "inicio-error" }, message || "");
  if (!message) status.hidden = true;
  const offlineSection = offlineChoice(nav.local);
  const fail = (error) => {
    status.hidden = false;
    if (error.code !== "network") {
      status.textContent = error.message;
      return;
    }
    // no server to start a table on: the computer with no server, right below the message
    status.textContent = t(NO_SERVER);
    status.after(offlineSection);
    status.scrollIntoView({ block: "nearest" });
  };

  // a finished match is not continued (it is in Mis partidas, with its rematch); the one
  // continued here is not listed again in Mis partidas: this button says how it goes
  let continuing = session && !session.finished ? session.token : null;
  const continueSub = h("span", { class: "sub" }, t("inicio.continue_sub"));
  const continueActions = h("div", { class: "g-actions" });
  continueActions.hidden = true;
  const continueBlock = continuing ? h("div", { class: "continue" },
    h("button", { type: "button", class: "btn big primary continue-game",
      onclick: () => nav.game(session) }, t("inicio.continue"), continueSub),
    continueActions) : null;

  const play = async (button, busyText, body) => {
    if (button.getAttribute("aria-disabled")) return;
    busy(button, busyText);
    nav.opening?.(); // a table is on its way: nothing else is fetched meanwhile
    try {
      const name = readName("nombre");
      const data = await createRoom({ ...body, name: name || undefined });
      nav.game(seatFrom(data, { mode: body.mode, invite_url: data.invite_url, invite: data.invite }));
    } catch (error) {
      nav.opening?.(false);
      unbusy(button);
      fail(error);
    }
  };

  // the code box's own answer line, under the box: seen where the code was typed
  const codeError = h("p", { class: "error-line", role: "alert", id: "codigo-error" });
  codeError.hidden = true;
  const failCode = (text) => {
    codeError.textContent = text;
    codeError.hidden = false;
    codeError.scrollIntoView({ block: "nearest" });
  };

  const submitCode = async (event) => {
    event.preventDefault();
    const input = document.getElementById("codigo");
    const button = event.target.querySelector("button");
    if (button.getAttribute("aria-disabled")) return;
    const raw = (input.value || "").trim();
    codeError.hidden = true;
    if (!raw) {
      failCode(t("inicio.code_empty"));
      input.focus();
      return;
    }
    // a link of this site pasted whole goes where the link goes; a code is the server's
    // to tell apart (an invitation, or a seat on another device)
    const link = raw.match(/\/(j|r)\/([A-Za-z0-9_-]+)\/?$/);
    if (link && link[1] === "j") {
      nav.join(link[2]);
      return;
    }
    busy(button, t("inicio.searching"));
    try {
      if (link) {
        nav.game(seatFrom(await rejoin(link[2])));
        return;
      }
      const answer = await useCode(raw);
      if (answer.kind === "invite") nav.join(answer.invite);
      else nav.game(seatFrom(answer));
    } catch (error) {
      unbusy(button);
      failCode(error.message);
    }
  };

  const computerButtons = LEVELS.map((level) => {
    const button = h("button", { type: "button", class: "btn big", "data-level": level },
      t(`level.${level}`), h("span", { class: "sub" }, t(`inicio.level.${level}`)));
    button.addEventListener("click", () =>
      play(button, t("inicio.preparing"), { mode: "computer", level }));
    return button;
  });
  const friendButton = h("button", { type: "button", class: "btn big friend" }, t("inicio.friend"),
    h("span", { class: "sub" }, t("inicio.friend_sub")));
  const turns = h("input", { type: "checkbox", id: "por-turnos", name: "por-turnos" });
  friendButton.addEventListener("click", () =>
    play(friendButton, t("inicio.preparing_invite"), { mode: "friend", turns: turns.checked }));

  return h("section", { class: "page inicio" },
    h("header", { class: "hero" },
      h("div", { class: "hero-cards", "aria-hidden": "true" },
        h("span", { class: "hero-card black" }, "A♠"), h("span", { class: "hero-card red" }, "10♦"),
        h("span", { class: "hero-card black" }, "2♠")),
      h("h1", {}, t("inicio.title")),
      h("p", { class: "tagline" }, t("inicio.tagline"))),
    status,
    continueBlock,
    offline ? offlineSection : null,
    myGamesSection({ open: (seat) => nav.game(seat), replay: (seat, match) => nav.replay(seat.token, match),
      local: (redraw) => localGameItems({ openLocal: nav.openLocal }, redraw),
      listed: (entries) => {
        // the server says the game left on this device is over: nothing to continue
        const mine = session && entries.find((e) => e.seat.token === session.token);
        if (mine && mine.game.status === "finished") {
          markFinished(session.token);
          continueBlock?.remove();
          continuing = null; // listed in Mis partidas instead
        }
      },
      apart: () => continuing,
      shown: (game, actions) => {
        continueSub.textContent = continueLine(game);
        continueActions.replaceChildren(...actions);
        continueActions.hidden = actions.length === 0;
      } }),
    nameField("nombre"),
    h("section", { class: "choice", "aria-labelledby": "t-computadora" },
      h("h2", { id: "t-computadora" }, t("inicio.computer")),
      h("div", { class: "button-row two" }, computerButtons)),
    offline ? null : offlineSection,
    h("section", { class: "choice", "aria-labelledby": "t-amigo" },
      h("h2", { id: "t-amigo" }, t("inicio.friend")),
      h("div", { class: "check" }, turns,
        h("label", { for: "por-turnos" }, h("strong", {}, t("inicio.turns")),
          t("inicio.turns_line"))),
      friendButton),
    pairsSection(play),
    h("form", { class: "choice code-form", onsubmit: submitCode, "aria-labelledby": "t-codigo" },
      h("h2", { id: "t-codigo" }, t("inicio.code_title")),
      h("label", { for: "codigo" }, t("inicio.code_label")),
      h("div", { class: "inline" },
        h("input", { id: "codigo", name: "codigo", type: "text", inputmode: "text", autocomplete: "off",
          autocapitalize: "characters", spellcheck: "false", maxlength: "80", placeholder: t("inicio.code_placeholder"),
          "aria-describedby": "codigo-error" }),
        h("button", { type: "submit", class: "btn" }, t("inicio.code_go"))),
      codeError),
    h("nav", { class: "links", "aria-label": t("inicio.reading") },
      h("button", { type: "button", class: "btn quiet", onclick: () => nav.page("ayuda") }, t("pages.how_to_play")),
      h("button", { type: "button", class: "btn quiet", onclick: () => nav.page("sobre") }, t("pages.about"))),
    languageSwitch(),
    h("p", { class: "small foot" }, t("inicio.foot")));
}
