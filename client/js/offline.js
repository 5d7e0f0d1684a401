// The offline page (offline.html): a file of its own, as the Content-Security-Policy
// allows no inline script. Its words are Spanish as written, and the catalog of the
// player's language where the service worker kept it (issue 28): each [data-i18n] element
// takes its text from there.
const back = () => window.location.reload();
document.getElementById("retry").addEventListener("click", back);
window.addEventListener("online", back);

// the server may come back while the device stays online (no "online" event then): ask it
// now and then, and go back to the game as soon as it answers
const CHECK_MS = 3000;
async function check() {
  try {
    const answer = await fetch("/healthz", { cache: "no-store" });
    if (answer.ok) {
      back();
      return;
    }
  } catch {
    // still away
  }
  setTimeout(check, CHECK_MS);
}
setTimeout(check, CHECK_MS);

// Jugar sin conexión: once the service worker kept what the offline game needs (the page
// "/" is kept last), the app opens without the server
(async () => {
  let kept = false;
  try {
    kept = Boolean(window.caches && await caches.match("/"));
  } catch {
    kept = false;
  }
  document.getElementById(kept ? "sin-conexion" : "sin-conexion-luego").hidden = false;
})();

// the player's language (chosen on this device, else the browser's), when its catalog was kept
(async () => {
  let lang = null;
  try {
    lang = window.localStorage.getItem("casino.idioma");
  } catch {
    lang = null;
  }
  const wanted = (lang ? [lang] : []).concat(navigator.languages || [navigator.language]);
  for (const tag of wanted.flatMap((w) => [String(w || ""), String(w || "").split("-")[0]])) {
    if (!tag) continue;
    if (tag.toLowerCase().split("-")[0] === "es") return; // the page is written in Spanish
    try {
      const answer = await fetch(`/static/i18n/${tag}.json`);
      if (!answer.ok) continue;
      const words = await answer.json();
      document.documentElement.lang = tag;
      document.querySelectorAll("[data-i18n]").forEach((el) => {
        const text = words[el.dataset.i18n];
        if (typeof text === "string") el.textContent = text;
      });
      return;
    } catch {
      // not kept: the next one, or Spanish
    }
  }
})();
