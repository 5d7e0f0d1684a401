// The offline page (offline.html): a file of its own, as the Content-Security-Policy
// allows no inline script.
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
