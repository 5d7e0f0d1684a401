// The two reading pages (how to play: the rule book told simply; what the casino is), from
// the catalog of the language in use as HTML written by us (nothing here comes from
// players); the computer's level names.

import { t } from "../lib/i18n.js";

/** "Cómo se juega", as HTML (the catalog's pages.how_to_play.html). */
export function howToPlay() {
  return t("pages.how_to_play.html");
}

/** "Sobre el casino", as HTML (the catalog's pages.about.html). */
export function aboutCasino() {
  return t("pages.about.html");
}

/** The computer's level as a player reads it ("Fácil", "Easy"). */
export function levelName(level) {
  return ["facil", "normal", "dificil"].includes(level) ? t(`level.${level}`) : level;
}
