// Run before the app's modules (a classic script runs as soon as it is read; modules wait
// for their whole graph): when an offline game is being played, the engine's Web Worker
// starts now, so that its modules load beside the page's and the table is up sooner.
// lib/localroom.js takes it (window.casinoEarlyEngine) instead of starting its own.
// And the player's words (issue 28): the catalog of the language chosen on this device (else
// the browser's first with a catalog, else es-DO) is fetched now, beside the modules, without
// blocking the page: lib/i18n.js awaits it (casinoWords.ready) before any module that speaks
// runs. (A <link rel=preload> cannot know the language: it is chosen on the device.)
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
(function () {
  var meta = document.querySelector('meta[name="languages"]');
  var tags = ((meta && meta.getAttribute("content")) || "es-DO").split(/\s+/).filter(Boolean);
  function match(wanted) {
    if (typeof wanted !== "string" || !wanted) return null;
    var lower = wanted.toLowerCase();
    var base = lower.split("-")[0];
    for (var i = 0; i < tags.length; i++) if (tags[i].toLowerCase() === lower) return tags[i];
    for (var j = 0; j < tags.length; j++) if (tags[j].toLowerCase().split("-")[0] === base) return tags[j];
    return null;
  }
  var lang = null;
  try {
    lang = match(window.localStorage.getItem("casino.idioma"));
  } catch (error) {
    lang = null; // no storage: the browser's language
  }
  var wanted = navigator.languages || [navigator.language];
  for (var k = 0; !lang && k < wanted.length; k++) lang = match(wanted[k]);
  lang = lang || tags[0];
  var words = { lang: lang, data: null, ready: null };
  window.casinoWords = words;
  try {
    words.ready = fetch("/static/i18n/" + lang + ".json")
      .then(function (answer) { return answer.ok ? answer.json() : null; })
      .then(function (data) { words.data = data; return data; })
      .catch(function () { return null; }); // lib/i18n.js tries again
  } catch (error) {
    words.ready = null;
  }
})();
