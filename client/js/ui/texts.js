// The two reading pages (how to play: the rule book told simply; what the casino is), from
// the catalog of the language in use as HTML written by us (nothing here comes from
// players; fetched apart: lib/i18n.js loadReading); the computer's level names.

import { has, t } from "../lib/i18n.js";

/** "Cómo se juega", as HTML (the catalog's pages.how_to_play.html). */
export function howToPlay() {
  return reading("pages.how_to_play.html");
}

/** "Sobre el casino", as HTML (the catalog's pages.about.html). */
export function aboutCasino() {
  return reading("pages.about.html");
}

/** A reading page's HTML, or that it could not be had. */
function reading(key) {
  if (has(key)) return t(key);
  const line = document.createElement("p");
  line.textContent = t("api.network");
  return line.outerHTML;
}

/** The computer's level as a player reads it ("Fácil", "Easy"). */
export function levelName(level) {
  return ["facil", "normal", "dificil"].includes(level) ? t(`level.${level}`) : level;
}
