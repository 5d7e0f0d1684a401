// The whole client: reads the address (/, /j/<invite>, /r/<code>, /p/<replay>,
// /v/<watch code>), shows Inicio (with Mis partidas), the reading pages, the invitation,
// la mesa, replays and the table a watcher looks at, and remembers this device's seats.

import { createRoom, invitation, joinRoom, rejoin, replay, replayLink } from "./api.js";
import { announce, h } from "./dom.js";
import { Game } from "./game.js";
import { myGamesSection } from "./mygames.js";
import { replayScreen } from "./replay.js";
import { clearSession, loadName, loadSession, saveName, saveSession } from "./store.js";
import { COMO_SE_JUEGA, SOBRE_EL_CASINO } from "./texts.js";
import { WatchTable } from "./watch.js";

const main = document.getElementById("main");
let game = null;
let leaveScreen = null; // what the current screen must undo when another one comes
let watching = null;

function show(screen, ...children) {
  if (game && screen !== "mesa") {
    game.stop();
    game = null;
  }
  if (leaveScreen) {
    leaveScreen();
    leaveScreen = null;
  }
  if (watching && screen !== "mirar") {
    watching.stop();
    watching = null;
  }
  main.dataset.screen = screen;
  main.replaceChildren(...children);
}

function focusMain() {
  const heading = main.querySelector("h1, h2");
  if (heading) {
    heading.setAttribute("tabindex", "-1");
    heading.focus();
  }
}

// ------------------------------------------------------------------ the game itself

const appHooks = {
  goHome(message, leftOnPurpose = false) {
    const session = loadSession();
    if (leftOnPurpose && session) {
      session.active = false;
      saveSession(session);
    }
    showInicio(message);
  },
  seatMoved(token) {
    // another tab of this same device may hold the same seat: keep it, just stop here
    const stored = loadSession();
    if (stored && stored.token === token) {
      stored.active = false;
      saveSession(stored);
    } else {
      clearSession();
    }
    show("movido",
      h("section", { class: "page narrow" },
        h("h1", {}, "Seguiste en otro dispositivo"),
        h("p", {}, "Tu partida sigue en el otro dispositivo (o en otra pestaña de este navegador). Aquí ya no se puede jugar."),
        h("p", {}, "Si quieres volver a este dispositivo, en el otro abre el Menú, toca «Seguir en otro dispositivo» y escribe aquí el código."),
        h("button", { type: "button", class: "btn primary", onclick: () => showInicio() }, "Ir al inicio")));
    announce("Seguiste la partida en otro dispositivo. Aquí ya no se puede jugar.");
    focusMain();
  },
  lostSession(message) {
    clearSession();
    showInicio(message);
  },
  openReplay(token, match) {
    openReplay(token, match);
  },
};

/** The session to keep from a create/join/rejoin answer; `extra` adds mode, invite_url. */
function seatFrom(data, extra = {}) {
  return { room: data.room, seat: data.seat, token: data.token, since: null, ...extra };
}

function startGame(session) {
  session.active = true;
  saveSession(session);
  if (window.location.pathname !== "/") window.history.replaceState(null, "", "/");
  if (game) {
    game.stop();
    game = null;
  }
  show("mesa");
  game = new Game(main, session, appHooks);
  game.start();
}

// ------------------------------------------------------------------ Inicio

function nameField(id) {
  return h("div", { class: "field" },
    h("label", { for: id }, "¿Cómo te llamas?"),
    h("input", { id, name: "nombre", type: "text", autocomplete: "given-name",
      value: loadName(), placeholder: "Tu nombre" }));
}

function readName(id) {
  const value = (document.getElementById(id)?.value || "").trim(); // the server says what it takes
  if (value) saveName(value);
  return value;
}

function busy(button, text) {
  button.setAttribute("aria-disabled", "true");
  button.dataset.label = button.textContent;
  button.textContent = text;
}

function unbusy(button) {
  button.removeAttribute("aria-disabled");
  if (button.dataset.label) button.textContent = button.dataset.label;
}

function showInicio(message = null) {
  const session = loadSession();
  const status = h("p", { class: "error-line", role: "alert", id: "inicio-error" }, message || "");
  if (!message) status.hidden = true;
  const fail = (error) => {
    status.textContent = error.message;
    status.hidden = false;
  };

  const play = async (button, busyText, body) => {
    if (button.getAttribute("aria-disabled")) return;
    busy(button, busyText);
    try {
      const name = readName("nombre");
      const data = await createRoom({ ...body, name: name || undefined });
      startGame(seatFrom(data, { mode: body.mode, invite_url: data.invite_url }));
    } catch (error) {
      unbusy(button);
      fail(error);
    }
  };

  const useCode = async (event) => {
    event.preventDefault();
    const input = document.getElementById("codigo");
    const button = event.target.querySelector("button");
    if (button.getAttribute("aria-disabled")) return;
    const raw = (input.value || "").trim();
    if (!raw) {
      fail({ message: "Escribe el código que te salió en el otro dispositivo." });
      input.focus();
      return;
    }
    const invite = raw.match(/(?:\/j\/)?([A-Za-z0-9]{8})$/);
    const compact = raw.replace(/[\s-]/g, "");
    if (/\/j\//.test(raw) || (invite && compact.length === 8)) {
      showJoin((invite ? invite[1] : compact).toUpperCase());
      return;
    }
    const code = raw.replace(/^.*\/r\//, "");
    busy(button, "Buscando…");
    try {
      startGame(seatFrom(await rejoin(code)));
    } catch (error) {
      unbusy(button);
      fail(error);
    }
  };

  const levels = {
    facil: ["Fácil", "para aprender"],
    normal: ["Normal", "un buen reto"],
    dificil: ["Difícil", "juega como el mejor de la familia"],
  };
  const computerButtons = Object.entries(levels).map(([level, [label, line]]) => {
    const button = h("button", { type: "button", class: "btn big", "data-level": level },
      label, h("span", { class: "sub" }, line));
    button.addEventListener("click", () =>
      play(button, "Preparando la mesa…", { mode: "computer", level }));
    return button;
  });
  const friendButton = h("button", { type: "button", class: "btn big friend" }, "Jugar con un amigo",
    h("span", { class: "sub" }, "te damos un enlace para mandarle"));
  const turns = h("input", { type: "checkbox", id: "por-turnos", name: "por-turnos" });
  friendButton.addEventListener("click", () =>
    play(friendButton, "Preparando la invitación…", { mode: "friend", turns: turns.checked }));

  show("inicio",
    h("section", { class: "page inicio" },
      h("header", { class: "hero" },
        h("div", { class: "hero-cards", "aria-hidden": "true" },
          h("span", { class: "hero-card black" }, "A♠"), h("span", { class: "hero-card red" }, "10♦"),
          h("span", { class: "hero-card black" }, "2♠")),
        h("h1", {}, "Casino dominicano"),
        h("p", { class: "tagline" }, "El juego de cartas de la familia, ahora en tu celular.")),
      status,
      session ? h("div", { class: "continue" },
        h("button", { type: "button", class: "btn big primary continue-game",
          onclick: () => startGame(session) }, "Continuar partida",
          h("span", { class: "sub" }, "la que dejaste en este dispositivo"))) : null,
      myGamesSection({ open: (seat) => startGame(seat), replay: (seat, match) => openReplay(seat.token, match) }),
      nameField("nombre"),
      h("section", { class: "choice", "aria-labelledby": "t-computadora" },
        h("h2", { id: "t-computadora" }, "Jugar contra la computadora"),
        h("div", { class: "button-row two" }, computerButtons)),
      h("section", { class: "choice", "aria-labelledby": "t-amigo" },
        h("h2", { id: "t-amigo" }, "Jugar con un amigo"),
        h("div", { class: "check" }, turns,
          h("label", { for: "por-turnos" }, h("strong", {}, "Por turnos"),
            ": cada uno juega cuando pueda, aunque pasen días. Nadie tiene que esperar conectado.")),
        friendButton),
      h("form", { class: "choice code-form", onsubmit: useCode, "aria-labelledby": "t-codigo" },
        h("h2", { id: "t-codigo" }, "¿Tienes un código?"),
        h("label", { for: "codigo" }, "Escribe el código para seguir tu partida desde otro dispositivo, o el de la invitación de un amigo:"),
        h("div", { class: "inline" },
          h("input", { id: "codigo", name: "codigo", type: "text", inputmode: "text", autocomplete: "off",
            autocapitalize: "characters", spellcheck: "false", maxlength: "80", placeholder: "Ej.: K7M2QX9PA" }),
          h("button", { type: "submit", class: "btn" }, "Seguir"))),
      h("nav", { class: "links", "aria-label": "Para leer" },
        h("button", { type: "button", class: "btn quiet", onclick: () => showPage("ayuda") }, "Cómo se juega"),
        h("button", { type: "button", class: "btn quiet", onclick: () => showPage("sobre") }, "Sobre el casino")),
      h("p", { class: "small foot" }, "Solo para divertirse: aquí no se apuesta dinero.")));
  if (message) announce(message);
}

// ------------------------------------------------------------------ reading pages

function showPage(which) {
  const html = which === "ayuda" ? COMO_SE_JUEGA : SOBRE_EL_CASINO;
  const back = h("button", { type: "button", class: "btn", onclick: () => showInicio() }, "← Volver al inicio");
  const prose = h("article", { class: "prose", html });
  // the page's one h1 is the reading's title (the same text is an h2 inside dialogs)
  const title = prose.querySelector("h2");
  if (title) title.replaceWith(h("h1", {}, title.textContent));
  prose.querySelectorAll("[data-go]").forEach((link) => {
    link.addEventListener("click", (event) => {
      event.preventDefault();
      showPage(link.dataset.go);
    });
  });
  show(which, h("section", { class: "page reading" }, back, prose,
    h("button", { type: "button", class: "btn", onclick: () => showInicio() }, "Volver al inicio")));
  focusMain();
}

// ------------------------------------------------------------------ invitations and codes

/** Who invites, as the server stored it (not what a link says): {host, turns}; host null
 * for a default name (it says nothing) or when the server cannot say. */
async function inviterOf(invite) {
  try {
    const answer = await invitation(invite);
    return { host: /^Jugador \d$/.test(answer.host) ? null : answer.host, turns: Boolean(answer.turns) };
  } catch {
    return { host: null, turns: false };
  }
}

async function showJoin(invite) {
  const { host, turns } = await inviterOf(invite);
  const status = h("p", { class: "error-line", role: "alert" });
  status.hidden = true;
  const button = h("button", { type: "submit", class: "btn big primary" }, "Sentarme a la mesa");
  const onsubmit = async (event) => {
    event.preventDefault();
    if (button.getAttribute("aria-disabled")) return;
    busy(button, "Entrando…");
    try {
      const name = readName("nombre-invitado");
      startGame(seatFrom(await joinRoom(invite, name || undefined), { mode: "friend", invited: true }));
    } catch (error) {
      unbusy(button);
      status.textContent = error.message;
      status.hidden = false;
    }
  };
  show("unirse",
    h("section", { class: "page narrow" },
      h("h1", {}, host ? `¡${host} te invitó a jugar casino!` : "¡Te invitaron a jugar casino!"),
      h("p", {}, host
        ? `Escribe tu nombre para que ${host} sepa quién eres, y siéntate a la mesa.`
        : "Escribe tu nombre para que tu familia sepa quién eres, y siéntate a la mesa."),
      turns ? h("p", { class: "turns-note" }, h("strong", {}, "Es una partida por turnos: "),
        "cada uno juega cuando pueda, aunque pasen días. La encuentras luego en «Mis partidas».") : null,
      h("form", { onsubmit }, nameField("nombre-invitado"), status, button),
      h("p", { class: "small" },
        h("a", { href: "/", onclick: (e) => { e.preventDefault(); window.history.replaceState(null, "", "/"); showInicio(); } },
          "Ir al inicio"))));
  focusMain();
}

async function useRejoinLink(code) {
  show("rejoin", h("section", { class: "page narrow" }, h("h1", {}, "Buscando tu partida…")));
  try {
    startGame(seatFrom(await rejoin(code)));
  } catch (error) {
    window.history.replaceState(null, "", "/");
    showInicio(error.message);
  }
}

// ------------------------------------------------------------------ replays

/** A finished match of this seat's room: its shareable code first, then the replay. */
async function openReplay(token, match) {
  show("repeticion", h("section", { class: "page narrow" }, h("h1", {}, "Buscando la repetición…")));
  try {
    const link = await replayLink(token, match);
    window.history.pushState(null, "", link.url);
    await showReplay(link.code);
  } catch (error) {
    showInicio(error.message);
  }
}

async function showReplay(code) {
  if (main.dataset.screen !== "repeticion") {
    show("repeticion", h("section", { class: "page narrow" }, h("h1", {}, "Buscando la repetición…")));
  }
  const back = () => {
    if (window.location.pathname !== "/") window.history.replaceState(null, "", "/");
    showInicio();
  };
  let data;
  try {
    data = await replay(code);
  } catch (error) {
    show("repeticion", h("section", { class: "page narrow" },
      h("h1", {}, "No se pudo abrir la repetición"),
      h("p", { class: "error-line", role: "alert" }, error.message),
      h("button", { type: "button", class: "btn primary", onclick: back }, "Ir al inicio")));
    focusMain();
    return;
  }
  const link = new URL(`/p/${code}`, window.location.origin).href;
  const screen = replayScreen(data, { onBack: back, link });
  show("repeticion", screen.element);
  leaveScreen = screen.stop;
  focusMain();
}

window.addEventListener("popstate", () => {
  const replayPath = window.location.pathname.match(/^\/p\/([A-Za-z0-9_-]{1,32})\/?$/);
  if (replayPath) showReplay(replayPath[1]);
  else if (main.dataset.screen === "repeticion") showInicio();
});

// ------------------------------------------------------------------ watching

function showWatch(code) {
  show("mirar");
  watching = new WatchTable(main, code, {
    failed(errorCode, message) {
      watching = null;
      const again = errorCode === "watchers_full";
      show("mirar-error",
        h("section", { class: "page narrow" },
          h("h1", {}, again ? "La mesa está llena de gente mirando" : "No se puede mirar esa mesa"),
          h("p", { role: "alert" }, message),
          h("div", { class: "button-row" },
            again ? h("button", { type: "button", class: "btn primary", onclick: () => showWatch(code) },
              "Probar otra vez") : null,
            h("button", { type: "button", class: "btn", onclick: () => {
              window.history.replaceState(null, "", "/");
              showInicio();
            } }, "Ir al inicio"))));
      focusMain();
    },
  });
  watching.start();
}

// ------------------------------------------------------------------ boot

function boot() {
  const path = window.location.pathname;
  const join = path.match(/^\/j\/([A-Za-z0-9_-]{1,64})\/?$/);
  const moved = path.match(/^\/r\/([A-Za-z0-9_-]{1,128})\/?$/);
  const replayPath = path.match(/^\/p\/([A-Za-z0-9_-]{1,32})\/?$/);
  if (replayPath) {
    showReplay(replayPath[1]);
    return;
  }
  const watch = path.match(/^\/v\/([A-Za-z0-9_-]{1,32})\/?$/);
  if (watch) {
    showWatch(watch[1]);
    return;
  }
  if (join) {
    const session = loadSession();
    showJoin(join[1]);
    if (session && session.active) {
      // a seat is already open on this device: offer it too, without losing the invitation
      main.querySelector("form")?.after(h("p", { class: "small" },
        h("button", { type: "button", class: "btn quiet", onclick: () => startGame(session) },
          "Mejor sigo mi partida de antes")));
    }
    return;
  }
  if (moved) {
    useRejoinLink(moved[1]);
    return;
  }
  const session = loadSession();
  if (session && session.active) {
    startGame(session);
    return;
  }
  showInicio();
}

boot();

// the service worker keeps the client's files for a quick start and an offline page
if ("serviceWorker" in navigator && window.isSecureContext) {
  window.addEventListener("load", () => {
    navigator.serviceWorker.register("/sw.js").catch(() => {
      // not available (private mode, old browser): the game works the same without it
    });
  });
}
