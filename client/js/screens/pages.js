// The pages to read ("Cómo se juega", "Sobre el casino") and the short pages that say one
// thing and offer a way on ("Buscando tu partida…", "Seguiste en otro dispositivo", a table
// that cannot be watched, a replay that cannot be opened).

import { h } from "../lib/dom.js";
import { t } from "../lib/i18n.js";
import { aboutCasino, howToPlay } from "../ui/texts.js";

/** A reading page; `nav`: {inicio(), page(which)} (its links lead to the other page). */
export function readingScreen(which, nav) {
  const html = which === "ayuda" ? howToPlay() : aboutCasino();
  const back = h("button", { type: "button", class: "btn", onclick: () => nav.inicio() }, t("pages.back_arrow"));
  const prose = h("article", { class: "prose", html });
  // the page's one h1 is the reading's title (the same text is an h2 inside dialogs, its
  // sections h3): one level up here, so that the headings go in order
  const title = prose.querySelector("h2");
  if (title) title.replaceWith(h("h1", {}, title.textContent));
  prose.querySelectorAll("h3").forEach((section) => section.replaceWith(h("h2", {}, section.textContent)));
  prose.querySelectorAll("[data-go]").forEach((link) => {
    link.addEventListener("click", (event) => {
      event.preventDefault();
      nav.page(link.dataset.go);
    });
  });
  return h("section", { class: "page reading" }, back, prose,
    h("button", { type: "button", class: "btn", onclick: () => nav.inicio() }, t("pages.back")));
}

/** A page with a title, some lines and its buttons ([label, onclick, primary?]). */
export function messagePage(title, lines = [], buttons = []) {
  return h("section", { class: "page narrow" },
    h("h1", {}, title),
    lines,
    buttons.length ? h("div", { class: "button-row" }, buttons.map(([label, onclick, primary]) =>
      h("button", { type: "button", class: "btn" + (primary ? " primary" : ""), onclick }, label))) : null);
}
