// The service worker (served at /sw.js so it controls the whole site): keeps the client's
// files so the page opens at once, refreshes them in the background, and shows a Spanish
// page when the server cannot be reached. It never touches /api/ or the websocket.
// What a game with no server needs (KIT: the engine and the players, and the page itself)
// is fetched only when the page asks for it: once the first screen is up and the page is
// idle (never before Inicio, never while a table is being opened), or when the player taps
// "Jugar sin conexión"; from then on, a page that cannot reach the server opens the app from
// here (Jugar sin conexión).

const VERSION = "casino-dev"; // the server puts a digest of the client here
// the files la mesa needs: every module app.js loads (tests/browser/test_client_modules.py
// checks it); a file missing here is fetched, and kept, on first use
const SHELL = [
  "/static/offline.html",
  "/static/css/offline.css",
  "/static/js/offline.js",
  "/static/css/casino.css",
  "/static/js/app.js",
  "/static/js/early.js",
  "/static/js/lib/api.js",
  "/static/js/lib/connection.js",
  "/static/js/lib/device.js",
  "/static/js/lib/dom.js",
  "/static/js/lib/heldview.js",
  "/static/js/lib/i18n.js",
  "/static/js/lib/localroom.js",
  "/static/js/lib/offlinedb.js",
  "/static/js/lib/push.js",
  "/static/js/ui/cards.js",
  "/static/js/ui/chairs.js",
  "/static/js/ui/language.js",
  "/static/js/ui/notice.js",
  "/static/js/ui/panels.js",
  "/static/js/ui/push.js",
  "/static/js/ui/reactions.js",
  "/static/js/ui/reasons.js",
  "/static/js/ui/share.js",
  "/static/js/ui/sheet.js",
  "/static/js/ui/table.js",
  "/static/js/ui/texts.js",
  "/static/js/ui/words.js",
  "/static/js/engine/seats.js",
  "/static/js/screens/inicio.js",
  "/static/js/screens/invitation.js",
  "/static/js/screens/live.js",
  "/static/js/screens/localgames.js",
  "/static/js/screens/mygames.js",
  "/static/js/screens/pairs.js",
  "/static/js/screens/pairsinvite.js",
  "/static/js/screens/pages.js",
  "/static/js/screens/replay.js",
  "/static/js/screens/watch.js",
  "/static/js/screens/mesa/actions.js",
  "/static/js/screens/mesa/dialogs.js",
  "/static/js/screens/mesa/focus.js",
  "/static/js/screens/mesa/handsheet.js",
  "/static/js/screens/mesa/intents.js",
  "/static/js/screens/mesa/local.js",
  "/static/js/screens/mesa/mesa.js",
  "/static/js/screens/mesa/names.js",
  "/static/js/screens/mesa/presence.js",
  "/static/js/screens/mesa/reacting.js",
  "/static/js/screens/mesa/render.js",
  "/static/js/screens/mesa/selection.js",
  "/static/js/screens/mesa/turnalert.js",
  "/static/js/screens/mesa/waiting.js",
  "/static/icon.svg",
  "/static/icon-turn.svg",
  "/static/manifest.webmanifest",
  "/static/icons/icon-192.png",
];

// the Web Worker's modules (client/js/play/worker.js and what it imports), fetched when the
// page asks; "/" (the page) is kept last: its presence says the kit is whole; what SHELL keeps
// already (engine/seats.js, which the page imports too) is not fetched again
const KIT = [
  "/static/js/play/worker.js",
  "/static/js/play/games.js",
  "/static/js/play/requests.js",
  "/static/js/engine/cards.js",
  "/static/js/engine/errors.js",
  "/static/js/engine/hints.js",
  "/static/js/engine/match.js",
  "/static/js/engine/moves.js",
  "/static/js/engine/position.js",
  "/static/js/engine/pyrepr.js",
  "/static/js/engine/refusals.js",
  "/static/js/engine/scoring.js",
  "/static/js/engine/sha256.js",
  "/static/js/engine/view.js",
  "/static/js/engine/facts.js",
  "/static/js/ai/index.js",
  "/static/js/ai/facil.js",
  "/static/js/ai/normal.js",
  "/static/js/ai/rng.js",
];
const PAGE = "/";

/** A language's words: the screens' and the reading pages' (kept: they open offline too). */
function wordsFiles(words) {
  return words ? [words, words.replace("/static/i18n/", "/static/i18n/reading/")] : [];
}

/** Fetches the kit into `cache` (fresh from the server, not the HTTP cache), then the page:
 * one file at a time, at low priority, so that what the page itself asks for meanwhile (a
 * table being opened) never waits behind it. `words`: the catalog of the page's language
 * (client/i18n/), which the offline game speaks. */
async function keepKit(cache, words = null) {
  for (const url of [...KIT, ...wordsFiles(words), PAGE]) {
    const answer = await fetch(new Request(url, { cache: "reload", priority: "low" }));
    if (!answer.ok) throw new Error(`${url}: ${answer.status}`);
    await cache.put(url, answer);
  }
}

let keeping = null; // the kit being fetched: a second ask waits for the same fetch

/** The kit in the current cache: fetched unless it is there already (and the catalog
 * `words`, a language's words the kit did not keep yet). */
function kitKept(words = null) {
  if (!keeping) {
    keeping = (async () => {
      const cache = await caches.open(VERSION);
      if (!(await cache.match(PAGE))) await keepKit(cache, words);
      else {
        for (const url of wordsFiles(words)) {
          if (await cache.match(url)) continue;
          const answer = await fetch(new Request(url, { cache: "reload", priority: "low" }));
          if (answer.ok) await cache.put(url, answer);
        }
      }
    })().finally(() => {
      keeping = null;
    });
  }
  return keeping;
}

self.addEventListener("install", (event) => {
  event.waitUntil((async () => {
    const cache = await caches.open(VERSION);
    await cache.addAll(SHELL);
    // an installed app that could play offline: the new engine comes with the new version
    let hadKit = false;
    for (const key of await caches.keys()) {
      if (key !== VERSION && await (await caches.open(key)).match(PAGE)) hadKit = true;
    }
    if (hadKit) await keepKit(cache).catch(() => undefined);
    await self.skipWaiting();
  })());
});

self.addEventListener("message", (event) => {
  if (!event.data || event.data.type !== "offline-kit") return;
  // the page is told either way: it waits for this answer when the player asked to play
  const words = typeof event.data.words === "string" && /^\/static\/i18n\/[A-Za-z-]+\.json$/.test(event.data.words)
    ? event.data.words : null;
  event.waitUntil(kitKept(words).then(
    () => event.source?.postMessage({ type: "offline-kit-ready" }),
    () => event.source?.postMessage({ type: "offline-kit-failed" })));
});

self.addEventListener("activate", (event) => {
  event.waitUntil((async () => {
    for (const key of await caches.keys()) if (key !== VERSION) await caches.delete(key);
    await self.clients.claim();
  })());
});

/** Pages (/, /j/…, /r/…, /v/…): from the network (index.html is 1 KB; the address matters to
 * the app); when the server cannot be reached, the app kept with the kit, else the offline
 * page. */
async function page(request) {
  try {
    return await fetch(request);
  } catch {
    const cache = await caches.open(VERSION);
    // with the kit kept, the app itself: it opens the offline game, or offers one
    return (await cache.match(PAGE)) || (await cache.match("/static/offline.html")) ||
      new Response("<!doctype html><meta charset=utf-8><p>No hay conexión.</p>",
        { status: 503, headers: { "Content-Type": "text/html; charset=utf-8" } });
  }
}

/** The client's files: from the cache at once, refreshed in the background. */
async function file(request, event) {
  const cache = await caches.open(VERSION);
  const kept = await cache.match(request);
  // with no network, no refresh to try: the kept file at once (the app opens offline sooner)
  if (kept && self.navigator.onLine === false) return kept;
  const fresh = fetch(request).then((answer) => {
    if (answer.ok) cache.put(request, answer.clone());
    return answer;
  });
  if (kept) {
    event.waitUntil(fresh.catch(() => undefined));
    return kept;
  }
  return fresh;
}

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET") return;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  if (request.mode === "navigate") {
    event.respondWith(page(request));
  } else if (url.pathname.startsWith("/static/") && !url.pathname.startsWith("/static/sw")) {
    event.respondWith(file(request, event));
  }
});

// ---------------------------------------------------------------- Web Push (issue 29)

// A push from the game server (server/push/notifier.py): its words come in the payload, in
// the player's language; one notification per game (the same tag replaces it, never
// stacks), and the game to open when it is tapped.
self.addEventListener("push", (event) => {
  let data = {};
  try {
    data = event.data ? event.data.json() : {};
  } catch {
    data = {};
  }
  // the server always sends the title, worded in the seat's language; for a push without one,
  // the app's short name, the same in every catalog (manifest.short_name: "Casino")
  const title = typeof data.title === "string" ? data.title : "Casino";
  event.waitUntil(self.registration.showNotification(title, {
    body: typeof data.body === "string" ? data.body : "",
    tag: typeof data.tag === "string" ? data.tag : "casino",
    renotify: true, // a new turn in the same game buzzes again
    icon: "/static/icons/icon-192.png",
    badge: "/static/icons/icon-192.png",
    lang: typeof data.lang === "string" ? data.lang : "es-DO", // the words' language
    data: { room: data.room, url: data.url },
  }));
});

/** Opens the game of a tapped notification: an open window of the app is brought forward
 * and told which game (app.js opens it), else a new one opens at the game's address. */
async function openGame(data) {
  const room = data && typeof data.room === "string" ? data.room : null;
  const url = new URL(room ? `/?partida=${encodeURIComponent(room)}` : "/", self.location.origin).href;
  const windows = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
  const open = windows.find((w) => new URL(w.url).origin === self.location.origin);
  if (!open) return self.clients.openWindow(url);
  try {
    await open.focus(); // allowed within a tap on the notification
  } catch {
    // not allowed here (no tap): the window still opens the game below
  }
  open.postMessage({ type: "open-game", room });
  return open;
}
self.openGame = openGame; // for tests/browser/test_push.py (a tap cannot be simulated)

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  event.waitUntil(openGame(event.notification.data));
});
