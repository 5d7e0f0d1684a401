// "Jugar en parejas" on Inicio: a table of four. Whoever makes it sits in the first chair
// (seat 0) and says, for each of the other three, a friend (sent the one link of the
// table) or the computer at a level: the partner across (seat 2), and the rivals, the one
// who plays after her (seat 1) and the one who plays before her (seat 3). Por turnos as
// for two. The body asked of POST /api/rooms: {seats: 4, chairs, turns} (docs/protocol.md).

import { h } from "../lib/dom.js";
import { t } from "../lib/i18n.js";
import { levelName } from "../ui/texts.js";

const LEVELS = ["facil", "normal", "dificil"];

/** The chairs as the form asks for them: the partner first, then the rivals in the order
 * of play. `seat`: the chair's seat; `title` and `line`: its words. */
const CHAIRS = [
  { seat: 2, title: "inicio.pairs.partner", line: "inicio.pairs.partner_line" },
  { seat: 1, title: "inicio.pairs.rival_after", line: "inicio.pairs.rival_after_line" },
  { seat: 3, title: "inicio.pairs.rival_before", line: "inicio.pairs.rival_before_line" },
];

/** One chair: "Un familiar o amigo" or "La computadora" (then its level). */
function chairField(chair) {
  const id = `silla-${chair.seat}`;
  const level = h("select", { id: `${id}-nivel`, name: `${id}-nivel`, class: "chair-level" },
    LEVELS.map((l) => h("option", { value: l, selected: l === "normal" }, levelName(l))));
  const levelRow = h("div", { class: "chair-level-row" },
    h("label", { for: level.id }, t("inicio.pairs.level")), level);
  levelRow.hidden = true;
  const radio = (kind, words) => {
    const input = h("input", { type: "radio", name: `${id}-quien`, id: `${id}-${kind}`, value: kind,
      checked: kind === "friend" });
    input.addEventListener("change", () => {
      if (input.checked) levelRow.hidden = input.value !== "computer";
    });
    return h("div", { class: "chair-kind" }, input, h("label", { for: input.id }, words));
  };
  const field = h("fieldset", { class: "chair", "data-seat": String(chair.seat) },
    h("legend", {}, h("strong", {}, t(chair.title)), h("span", { class: "sub" }, t(chair.line))),
    h("div", { class: "chair-kinds" },
      radio("friend", t("inicio.pairs.friend")), radio("computer", t("inicio.pairs.computer"))),
    levelRow);
  return field;
}

/** What the chairs of `form` say, seat 1 first: [{kind: "friend"} | {kind: "computer", level}]. */
function chairsOf(form) {
  return [1, 2, 3].map((seat) => {
    const kind = form.querySelector(`input[name="silla-${seat}-quien"]:checked`)?.value || "friend";
    if (kind !== "computer") return { kind: "friend" };
    return { kind: "computer", level: form.querySelector(`#silla-${seat}-nivel`).value };
  });
}

/**
 * The section: a button that opens the chairs, then "Preparar la mesa". `play(button,
 * busyText, body)` asks the server for the table (inicio.js).
 */
export function pairsSection(play) {
  const open = h("button", { type: "button", class: "btn big pairs", "aria-expanded": "false" },
    t("inicio.pairs"), h("span", { class: "sub" }, t("inicio.pairs_sub")));
  let form = null; // made the first time it is opened: Inicio stays as short as it was
  open.addEventListener("click", () => {
    if (!form) {
      form = chairsForm(play);
      form.hidden = true;
      open.after(form);
      open.setAttribute("aria-controls", form.id);
    }
    const opening = form.hidden;
    form.hidden = !opening;
    open.setAttribute("aria-expanded", String(opening));
    if (opening) form.querySelector("input")?.focus();
  });
  return h("section", { class: "choice pairs-choice", "aria-labelledby": "t-parejas" },
    h("h2", { id: "t-parejas" }, t("inicio.pairs")), open);
}

/** The three chairs, por turnos and "Preparar la mesa". */
function chairsForm(play) {
  const turns = h("input", { type: "checkbox", id: "por-turnos-parejas", name: "por-turnos-parejas" });
  const turnsRow = h("div", { class: "check" }, turns,
    h("label", { for: turns.id }, h("strong", {}, t("inicio.turns")), t("inicio.turns_line")));
  const go = h("button", { type: "submit", class: "btn big primary pairs-go" }, t("inicio.pairs.go"),
    h("span", { class: "sub" }, t("inicio.pairs.go_sub")));
  const form = h("form", { class: "pairs-form", id: "parejas-sillas" },
    h("p", { class: "small" }, t("inicio.pairs.line")),
    CHAIRS.map(chairField), turnsRow, go);
  // por turnos is for friends: with three computers there is nobody to wait for
  form.addEventListener("change", () => {
    const friends = chairsOf(form).some((c) => c.kind === "friend");
    turnsRow.hidden = !friends;
    go.querySelector(".sub").textContent = friends ? t("inicio.pairs.go_sub") : t("inicio.pairs.go_sub_computer");
  });
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const chairs = chairsOf(form);
    const friends = chairs.some((c) => c.kind === "friend");
    play(go, friends ? t("inicio.preparing_invite") : t("inicio.preparing"),
      { seats: 4, chairs, turns: friends && turns.checked, mode: friends ? "friend" : "computer" });
  });
  return form;
}
