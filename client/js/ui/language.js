// The language switch (issue 28), on Inicio and in the table's Menú: one button for each
// other language there is a catalog of, named in its own language (and marked `lang`, so a
// screen reader says it in that language). The choice is kept on this device.

import { h } from "../lib/dom.js";
import { language, languageName, languages, switchLanguage, t } from "../lib/i18n.js";

export function languageSwitch() {
  return h("div", { class: "languages", role: "group", "aria-label": t("language.label") },
    languages().filter((tag) => tag !== language()).map((tag) =>
      h("button", { type: "button", class: "btn quiet language", lang: tag,
        "data-language": tag, onclick: () => switchLanguage(tag) }, languageName(tag))));
}
