// The client's entry point: reads the address (/, /j/<invite>, /r/<code>, /p/<replay>,
// /v/<watch code>), puts one screen at a time in <main> (screens/), remembers which seat is
// being played, and registers the service worker. The screens lead to each other through
// `nav` below, so that none of them imports another's page.

import { rejoin, replay, replayLink } from "./lib/api.js";
import { loadReading, loadWords, t, wordsUrl } from "./lib/i18n.js";
import { announce, h } from "./lib/dom.js";
import {
  clearSession, forgetSeat, loadSeats, loadSession, saveSession, seatForInvite, seatFrom,
} from "./lib/device.js";
import {
  forgetLocalGame, loadCurrentLocal, newLocalGame, saveCurrentLocal, saveLocalGame,
} from "./lib/offlinedb.js";
import { inicioScreen } from "./screens/inicio.js";
import { invitationScreen } from "./screens/invitation.js";
import { NO_KIT, NO_LOCAL_STORAGE } from "./screens/localgames.js";
import { LocalMesa } from "./screens/mesa/local.js";
import { Mesa } from "./screens/mesa/mesa.js";
import { messagePage, readingScreen } from "./screens/pages.js";
import { replayScreen } from "./screens/replay.js";
import { WatchTable } from "./screens/watch.js";

const main = document.getElementById("main");
let running = null; // la mesa or the watched table: it holds a websocket
let leaveScreen = null; // what the current screen must undo when another one comes

function show(screen, ...children) {
  // la mesa left for another screen (the replay takes its entry over: openReplay): its
  // history entry is given back, so that Back from there goes where the player was before
  if (screen !== "mesa" && screen !== "repeticion" && window.history.state?.casino === MESA_ENTRY) {
    window.history.back();
  }
  if (running) {
    running.stop();
    running = null;
  }
  if (leaveScreen) {
    leaveScreen();
    leaveScreen = null;
  }
  main.dataset.screen = screen;
  main.replaceChildren(...children);
  if (screen !== "mesa" && tableOpening) {
    // the table was not opened after all (a failed start): the kit may come when idle
    tableOpening = false;
    if (kitWaiting) whenIdle(kitWhenIdle);
    kitWaiting = false;
  }
}

function focusMain() {
  const heading = main.querySelector("h1, h2");
  if (heading) {
    heading.setAttribute("tabindex", "-1");
    heading.focus();
  }
}

function toInicio() {
  if (window.location.pathname !== "/") window.history.replaceState(null, "", "/");
  showInicio();
}

// ------------------------------------------------------------------ the phone's Back button

// The reading pages opened on Inicio are history entries ({casino: "ayuda" | "sobre", depth}),
// and so is la mesa ({casino: "mesa"}): Back closes a reading page, and at the table closes
// what is open or asks before leaving it (Mesa.back): it never leaves the table by itself.
const MESA_ENTRY = "mesa";
const READING = ["ayuda", "sobre"];

/** A reading page, as a history entry of its own. */
function openPage(which) {
  const state = window.history.state;
  const depth = READING.includes(state?.casino) ? (state.depth || 1) + 1 : 1;
  window.history.pushState({ casino: which, depth }, "", window.location.pathname);
  showPage(which);
}

/** "Volver al inicio" on a reading page: back past the reading pages opened from Inicio. */
function leaveReading() {
  const state = window.history.state;
  if (READING.includes(state?.casino)) window.history.go(-(state.depth || 1));
  else showInicio();
}

/** La mesa is on screen: its history entry, for Back to come to it first. */
function holdMesaEntry() {
  if (window.history.state?.casino !== MESA_ENTRY) window.history.pushState({ casino: MESA_ENTRY }, "", "/");
}

window.addEventListener("popstate", (event) => {
  const state = event.state;
  const replayPath = window.location.pathname.match(/^\/p\/([A-Za-z0-9_-]{1,32})\/?$/);
  if (replayPath) {
    showReplay(replayPath[1]);
  } else if (main.dataset.screen === "mesa" && running) {
    if (state?.casino !== MESA_ENTRY) {
      // Back at the table: it closes what is open, or asks; the table keeps its entry
      window.history.pushState({ casino: MESA_ENTRY }, "", "/");
      running.back();
    }
  } else if (READING.includes(state?.casino)) {
    showPage(state.casino);
  } else if (main.dataset.screen === "repeticion" || READING.includes(main.dataset.screen)) {
    showInicio();
  }
});

const nav = {
  inicio: (message) => showInicio(message),
  /** A table was asked for (`on`), or could not be had after all (`on` false). */
  opening: (on = true) => {
    tableOpening = on;
    if (!on && kitWaiting) {
      kitWaiting = false;
      whenIdle(kitWhenIdle);
    }
  },
  game: (session) => startGame(session),
  join: (invite) => showJoin(invite),
  page: (which) => openPage(which),
  replay: (token, match) => openReplay(token, match),
  local: (level, seats) => startNewLocal(level, seats),
  openLocal: (id) => startLocal(id),
};

// ------------------------------------------------------------------ what offline play needs

// the engine, the players and the page itself, kept by the service worker: asked for when
// the first screen is up and the page is idle (never before Inicio, never while a table is
// being opened: then once it is up), or when the player taps "Jugar sin conexión"
let kitReady = false;
let tableOpening = false; // a table was asked for and is not up yet: the kit waits for it
let kitWaiting = false; // the page went idle while a table was opening

/** The kit is kept: said on <html> (data-sin-conexion="lista") and to la mesa's offer. */
function kitKept() {
  if (kitReady) return;
  kitReady = true;
  document.documentElement.dataset.sinConexion = "lista";
  // drawn again only when the offer now shows (a table redrawn at any other moment would
  // lose what the player is doing)
  if (running && running.offersOffline?.()) running.render();
}

async function checkKit() {
  try {
    if (window.caches && await caches.match("/")) kitKept();
  } catch {
    // no Cache Storage here: no offline game offered mid-game
  }
}

const KIT_WAIT_MS = 30_000; // a kit asked for by the player: how long to wait for it at most
let kitAnswers = []; // what each ask waits for: the service worker's answer

/** Asks the service worker for the kit; true once it is kept, false when it could not be
 * fetched (no network, no service worker). */
async function askForKit() {
  if (kitReady) return true;
  if (!("serviceWorker" in navigator) || !window.isSecureContext) return false;
  try {
    // no service worker here (blocked, a private window): nothing to wait for
    if (!(await navigator.serviceWorker.getRegistration())) return false;
  } catch {
    return false;
  }
  return new Promise((resolve) => {
    const timer = setTimeout(() => answer(false), KIT_WAIT_MS);
    function answer(kept) {
      clearTimeout(timer);
      kitAnswers = kitAnswers.filter((a) => a !== answer);
      resolve(kept);
    }
    kitAnswers.push(answer);
    navigator.serviceWorker.ready.then((registration) => registration.active?.postMessage({ type: "offline-kit", words: wordsUrl() }))
      .catch(() => answer(false));
  });
}

if ("serviceWorker" in navigator) {
  // onmessage (not addEventListener) also starts the worker's messages to this page
  navigator.serviceWorker.onmessage = (event) => {
    const type = event.data && event.data.type;
    if (type === "offline-kit-ready") kitKept();
    if (type === "offline-kit-ready" || type === "offline-kit-failed") {
      for (const answer of kitAnswers) answer(type === "offline-kit-ready");
    }
    // a push notification was tapped: its game (sw.js openGame)
    if (type === "open-game") openGameOf(event.data.room);
  };
}

/** La mesa of this device's seat in `room` (a tapped push), unless it is on screen
 * already; Inicio when the device holds no seat there (any more). */
function openGameOf(room) {
  const seat = typeof room === "string" ? loadSeats().find((s) => s.room === room) : null;
  if (!seat) {
    if (!running) toInicio();
    return;
  }
  if (running instanceof Mesa && !(running instanceof LocalMesa) && running.session.room === room) return;
  startGame(seat);
}
checkKit();
// the device went offline: la mesa may offer the offline game (once the kit is known kept)
window.addEventListener("offline", () => checkKit());

/** The page is idle after its first screen: the kit now, unless a table is being opened. */
function kitWhenIdle() {
  if (kitReady) return;
  if (tableOpening) kitWaiting = true;
  else askForKit();
}

/** A table is up (online or not): the kit, if the page went idle while it was opening. */
function tableIsUp() {
  tableOpening = false;
  kitWaiting = false;
  if (!kitReady) askForKit();
}

/** Runs `job` when the page has nothing else to do (soon after, where the browser cannot
 * say). */
function whenIdle(job) {
  if ("requestIdleCallback" in window) window.requestIdleCallback(job, { timeout: 5000 });
  else setTimeout(job, 1000);
}

// ------------------------------------------------------------------ la mesa

const mesaHooks = {
  goHome(message, leftOnPurpose = false) {
    const session = loadSession();
    if (leftOnPurpose && session) {
      session.active = false;
      saveSession(session);
    }
    showInicio(message);
  },
  /** The server closed this socket's seat: `rejoined` when a rejoin code took it to
   * another device (this token is dead: forget it), else the same token opened elsewhere
   * (another tab, a reload: keep it, just stop here). */
  seatMoved(token, rejoined) {
    if (rejoined) {
      forgetSeat(token);
      show("movido", messagePage(t("app.moved_title"), [
        h("p", {}, t("app.moved_line")),
        h("p", {}, t("app.moved_back")),
      ], [[t("invite.home"), () => showInicio(), true]]));
      announce(t("app.moved_said"));
    } else {
      const stored = loadSession();
      const same = Boolean(stored && stored.token === token);
      if (same) {
        stored.active = false;
        saveSession(stored);
      }
      show("movido", messagePage(t("app.tab_title"), [
        h("p", {}, t("app.tab_line")),
      ], [same ? [t("app.stay_here"), () => startGame(stored), true] : null, [t("invite.home"), () => showInicio(), !same]]
        .filter(Boolean)));
      announce(t("app.tab_said"));
    }
    focusMain();
  },
  lostSession(message) {
    clearSession();
    showInicio(message);
  },
  openReplay(token, match) {
    openReplay(token, match);
  },
  tableUp: tableIsUp,
  offline: {
    available: () => kitReady,
    play: (level) => startNewLocal(level),
  },
};

// ------------------------------------------------------------------ a game with no server

const localHooks = {
  goHome(message, leftOnPurpose = false) {
    const current = loadCurrentLocal();
    if (leftOnPurpose && current) saveCurrentLocal({ ...current, active: false });
    showInicio(message);
  },
  seatMoved() {
    showInicio();
  },
  /** `neverUp`: a game made just now whose table never came up (no kit on this device): it
   * is let go before Inicio lists the games. */
  async lostSession(message, neverUp = false) {
    const current = loadCurrentLocal();
    saveCurrentLocal(null);
    if (neverUp && current) {
      await forgetLocalGame(current.id);
      if (!kitReady) message = t(NO_KIT);
    }
    showInicio(message);
  },
  openReplay() {
    // offline games have no replay
  },
  tableUp: tableIsUp,
};

/** Opens the offline game `id`; `fresh`: it was made just now (if it cannot start, it is
 * let go: Mis partidas never lists a game that could not start). */
function startLocal(id, fresh = false) {
  saveCurrentLocal({ id, active: true });
  if (window.location.pathname !== "/") window.history.replaceState(null, "", "/");
  tableOpening = true;
  show("mesa");
  holdMesaEntry();
  running = new LocalMesa(main, { local: id, fresh }, localHooks);
  running.start();
}

/** "Jugar sin conexión": the kit first (fetched now if this device does not keep it yet and
 * there is a network), then a new game of this device's (`seats`: 4 for a game in pairs
 * against three computers). */
async function startNewLocal(level, seats = 2) {
  await askForKit();
  const game = newLocalGame(level, seats === 4 ? 4 : 2);
  try {
    await saveLocalGame(game);
  } catch {
    showInicio(t(NO_LOCAL_STORAGE));
    return;
  }
  startLocal(game.id, true);
}

function startGame(session) {
  tableOpening = true;
  session.active = true;
  saveSession(session);
  const local = loadCurrentLocal(); // the game opened now is the one to come back to
  if (local && local.active) saveCurrentLocal({ ...local, active: false });
  if (window.location.pathname !== "/") window.history.replaceState(null, "", "/");
  show("mesa");
  holdMesaEntry();
  running = new Mesa(main, session, mesaHooks);
  running.start();
}

// ------------------------------------------------------------------ Inicio and the pages

function showInicio(message = null) {
  show("inicio", inicioScreen(nav, message));
  if (message) announce(message);
}

let pageAsked = 0;

/** A reading page, once its words are in (fetched the first time one opens). */
async function showPage(which) {
  const asked = ++pageAsked;
  await loadReading();
  if (asked !== pageAsked || window.history.state?.casino !== which) return;
  show(which, readingScreen(which, { inicio: leaveReading, page: openPage }));
  focusMain();
}

async function showJoin(invite) {
  // a game of this device's own, to offer beside the invitation (or instead, when full)
  const session = loadSession();
  const resume = session && !session.finished ? () => startGame(session) : null;
  const page = await invitationScreen(invite, { game: startGame, inicio: () => showInicio(), resume,
    retry: () => showJoin(invite), held: (room) => loadSeats().find((s) => s.room === room) || null });
  if (!page) return; // this device sits at that table: la mesa is open
  show("unirse", page);
  focusMain();
}

async function useRejoinLink(code) {
  show("rejoin", messagePage(t("app.searching_game")));
  try {
    startGame(seatFrom(await rejoin(code)));
  } catch (error) {
    window.history.replaceState(null, "", "/");
    showInicio(error.message);
  }
}

// ------------------------------------------------------------------ replays

const SEARCHING_REPLAY = "app.searching_replay";

/** A finished match of this seat's room: its shareable code first, then the replay. */
async function openReplay(token, match) {
  show("repeticion", messagePage(t(SEARCHING_REPLAY)));
  try {
    const link = await replayLink(token, match);
    // from the table: the replay takes the table's entry (Back goes where the player was
    // before the table)
    if (window.history.state?.casino === MESA_ENTRY) window.history.replaceState(null, "", link.url);
    else window.history.pushState(null, "", link.url);
    await showReplay(link.code);
  } catch (error) {
    showInicio(error.message);
  }
}

async function showReplay(code) {
  if (main.dataset.screen !== "repeticion") show("repeticion", messagePage(t(SEARCHING_REPLAY)));
  let data;
  try {
    data = await replay(code);
  } catch (error) {
    show("repeticion", messagePage(t("app.replay_failed"),
      [h("p", { class: "error-line", role: "alert" }, error.message)], [[t("invite.home"), toInicio, true]]));
    focusMain();
    return;
  }
  const link = new URL(`/p/${code}`, window.location.origin).href;
  const screen = replayScreen(data, { onBack: toInicio, link });
  show("repeticion", screen.element);
  leaveScreen = screen.stop;
  focusMain();
}

// ------------------------------------------------------------------ watching

function showWatch(code) {
  show("mirar");
  running = new WatchTable(main, code, {
    failed(errorCode, message) {
      running = null;
      const again = errorCode === "watchers_full";
      show("mirar-error", messagePage(
        again ? t("app.watch_full") : t("app.watch_failed"),
        [h("p", { role: "alert" }, message)],
        [again ? [t("invite.retry"), () => showWatch(code), true] : null, [t("invite.home"), toInicio]].filter(Boolean)));
      focusMain();
    },
  });
  running.start();
}

// ------------------------------------------------------------------ boot

function boot() {
  performance.mark("casino-boot"); // benchmarks/offline.py reads these marks
  const path = window.location.pathname;
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
  const join = path.match(/^\/j\/([A-Za-z0-9_-]{1,64})\/?$/);
  if (join) {
    // the link of a table this device already sits at (it joined or opened it with this
    // invite): straight back to it
    const held = seatForInvite(join[1]);
    if (held) startGame(held);
    else showJoin(join[1]);
    return;
  }
  const moved = path.match(/^\/r\/([A-Za-z0-9_-]{1,128})\/?$/);
  if (moved) {
    useRejoinLink(moved[1]);
    return;
  }
  const pushed = new URLSearchParams(window.location.search).get("partida");
  if (path === "/" && pushed) { // a tapped push opened the app at its game (sw.js)
    window.history.replaceState(null, "", "/");
    openGameOf(pushed);
    return;
  }
  const current = loadCurrentLocal();
  if (current && current.active) {
    startLocal(current.id);
    return;
  }
  const session = loadSession();
  if (session && session.active && !session.finished) {
    startGame(session);
    return;
  }
  showInicio();
}

// the words first (only the catalog of the language in use), then the first screen
await loadWords();
document.title = t("page.title");
document.querySelector("a.skip")?.replaceChildren(t("app.skip"));
boot();

// the service worker keeps the client's files for a quick start and an offline page, and,
// once the first screen is up and the page idle, what offline play needs
if ("serviceWorker" in navigator && window.isSecureContext) {
  const keepFiles = () => {
    navigator.serviceWorker.register("/sw.js").catch(() => {
      // not available (private mode, old browser): the game works the same without it
    });
    navigator.serviceWorker.ready.then(() => whenIdle(kitWhenIdle)).catch(() => undefined);
  };
  // this module waited for the words above: the page may have loaded meanwhile (a slow
  // catalog on a busy phone), and a "load" listener added now would never run
  if (document.readyState === "complete") keepFiles();
  else window.addEventListener("load", keepFiles);
}
