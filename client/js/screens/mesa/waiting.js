// La mesa before everyone has arrived: the invitation to send (link, code, copy, share,
// WhatsApp, QR) and "Esperando a que entre tu amigo…". At a table of four: who sits where
// and which chairs are missing (said as it changes), the link for everyone seated to send,
// and for the one who made the table a "Que juegue la computadora" per missing chair.

import { parts, t } from "../../lib/i18n.js";
import { announce, busy, h } from "../../lib/dom.js";
import { others, teamOf } from "../../engine/seats.js";
import { absoluteUrl, linkLine, qrImage, sayIn, shareRow, shareStatus } from "../../ui/share.js";
import { computerWords, listWords, placeWords, shownName } from "../../ui/chairs.js";
import { levelName } from "../../ui/texts.js";

const CREATOR = 0; // the seat of who made the table
const LEVELS = ["facil", "normal", "dificil"];
let giveCounter = 0;
const missingSaid = new WeakMap(); // per mesa: the missing chairs last said

export function waitingRoom(g, topbar) {
  const v = g.view;
  const count = v.seat_count || v.names.length;
  const code = v.invite;
  const path = g.session.invite_url || (code ? `/j/${code}` : null);
  const url = path ? absoluteUrl(path) : null;
  const line = shareStatus(); // what "Copiar enlace" did, right under it
  const pairs = count > 2;
  const creator = v.seat === CREATOR;
  let title = t("waiting.title");
  let lead = t("waiting.line");
  if (pairs) {
    title = creator ? t("waiting.title_pairs") : t("waiting.title_seated");
    lead = creator ? t("waiting.line_pairs") : t("waiting.line_seated");
  }
  const chairs = pairs ? chairsList(g, count) : null;
  return h("section", { class: "mesa waiting" + (pairs ? " pairs-waiting" : ""), "aria-labelledby": "wait-title" },
    topbar,
    h("div", { class: "invite-card" },
      h("h1", { id: "wait-title" }, title),
      h("p", {}, lead),
      v.turns ? h("p", { class: "turns-note" }, h("strong", {}, t("waiting.turns")),
        t("waiting.turns_line")) : null,
      chairs ? chairs.missing : null,
      url ? linkLine(url, "data-invite-link") : null,
      code ? h("p", { class: "invite-code" }, t("waiting.code"),
        h("strong", { "data-invite-code": "" }, code)) : null,
      url ? shareRow({
        url,
        say: sayIn(line),
        copied: pairs ? t("waiting.copied_pairs") : t("waiting.copied"),
        share: t("waiting.share"),
        message: pairs ? t("waiting.whatsapp_pairs", { url }) : t("waiting.whatsapp", { url }),
      }) : null,
      url ? line : null,
      chairs ? chairs.list : null,
      url ? qrImage(path, t("waiting.qr")) : null,
      h("p", { class: "waiting-line", role: "status" },
        h("span", { class: "dot-pulse", "aria-hidden": "true" }),
        pairs ? t("waiting.waiting_pairs") : t("waiting.waiting")),
    ),
    g.sel?.error ? h("p", { class: "error-line" }, g.sel.error) : null,
    g.notice.line(),
  );
}

/** The chairs nobody sat in yet (a friend's chair: no name). */
function freeChairs(v, count) {
  return Array.from({ length: count }, (_, seat) => seat)
    .filter((seat) => v.names[seat] === null || v.names[seat] === undefined);
}

/** "Faltan 2 jugadores: tu pareja y un rival." as seen from this seat. */
function missingWords(v, free) {
  const rivals = free.filter((seat) => teamOf(seat) !== teamOf(v.seat)).length;
  const who = [];
  if (free.some((seat) => seat !== v.seat && teamOf(seat) === teamOf(v.seat))) who.push(t("waiting.missing_partner"));
  if (rivals) who.push(t("waiting.missing_rival", { n: rivals }));
  return t("waiting.missing", { n: free.length, who: listWords(who) });
}

/** Who is missing ({missing}: a line) and the table ({list}), this seat first then in the
 * order of play: who sits in each chair, and (for the one who made it) the computer offered
 * for each missing one. */
function chairsList(g, count) {
  const v = g.view;
  const free = freeChairs(v, count);
  const missing = missingWords(v, free);
  // said when it changes (someone sat, a chair went to the computer), not on each redraw
  const before = missingSaid.get(g);
  missingSaid.set(g, missing);
  if (before !== undefined && before !== missing) announce(missing);
  const items = [v.seat, ...others(v.seat, count)].map((seat) => {
    const id = `silla-espera-${seat}`;
    const isFree = free.includes(seat);
    const player = v.players?.[seat];
    let who = shownName(v.names[seat], seat, player);
    if (isFree) who = t("waiting.free");
    else if (player?.kind === "computer") who = computerWords(player.level);
    const give = isFree && v.seat === CREATOR ? giveControls(g, seat, id) : null;
    const head = h("span", { id, class: "chair-head" }, parts("waiting.chair", {
      role: h("strong", { class: "chair-role" }, placeWords(v.seat, seat)),
      who: h("span", { class: "chair-who" }, who) }));
    // a missing chair's level and button are named by the chair they are for
    // a chair just given to the computer keeps the focus its button had (la mesa puts it
    // back by its key): what it says now is read
    const given = !isFree && player?.kind === "computer";
    return h("li", { class: "wait-chair" + (isFree ? " free" : ""), "data-seat": String(seat),
      "data-focus-key": given ? `give-${seat}` : null, tabindex: given ? "-1" : null },
      give ? h("div", { role: "group", "aria-labelledby": id }, head, give) : head);
  });
  return {
    missing: h("p", { class: "missing-line" }, missing),
    list: h("div", { class: "wait-chairs" },
      h("ul", { "aria-label": t("waiting.chairs") }, items),
      v.seat !== CREATOR ? h("p", { class: "small" },
        t("waiting.creator_gives", { host: v.names[CREATOR] || t("chairs.host") })) : null),
  };
}

/** "Nivel [Normal]" and "Que juegue la computadora": the computer sits in `seat` for good. */
function giveControls(g, seat, headId) {
  const select = h("select", { id: `${headId}-nivel`, class: "chair-level", "data-focus-key": `level-${seat}` },
    LEVELS.map((l) => h("option", { value: l, selected: l === "normal" }, levelName(l))));
  const button = h("button", { type: "button", class: "btn give-chair", "data-seat": String(seat),
    "data-focus-key": `give-${seat}` }, t("waiting.give"));
  button.addEventListener("click", () => {
    if (button.getAttribute("aria-disabled")) return;
    if (g.sel) g.sel.error = null;
    const message = { type: "give_chair", seat, level: select.value, id: `g-${++giveCounter}` };
    if (!g.conn.send(message)) {
      g.showError(t("mesa.no_connection_now"));
      return;
    }
    busy(button, t("waiting.giving"));
  });
  return h("div", { class: "give-row" },
    h("label", { for: select.id }, t("waiting.level")), select, button);
}
