// Run before the app's modules (a classic script runs as soon as it is read; modules wait
// for their whole graph): when an offline game is being played, the engine's Web Worker
// starts now, so that its modules load beside the page's and the table is up sooner.
// lib/localroom.js takes it (window.casinoEarlyEngine) instead of starting its own.
(function () {
  try {
    var current = JSON.parse(window.localStorage.getItem("casino.sinConexion") || "null");
    if (current && current.active && typeof Worker === "function") {
      window.casinoEarlyEngine = new Worker("/static/js/play/worker.js", { type: "module" });
    }
  } catch (error) {
    // no storage, no module workers: la mesa starts its own worker, or says it cannot
  }
})();
