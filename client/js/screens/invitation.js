// The invitation (/j/<code>): who invites, as the server stored it (never what a link
// says), the name field, and "Sentarme a la mesa"; an invitation the server does not know
// is said at once. A table of four shows its chairs: who sits where, and the free ones,
// of which the one who opens the link chooses hers (pairsinvite.js).

import { t } from "../lib/i18n.js";
import { invitation } from "../lib/api.js";
import { h } from "../lib/dom.js";
import { nameField } from "./inicio.js";
import { pairsInvitation, sitDown } from "./pairsinvite.js";

/** Who invites: {host, turns, open, room, seatCount, seats}, host null when the host gave
 * no name (`seats`: the chairs of a table of four, [{seat, name, kind, level, free}]); or
 * {error} when the server does not know the invitation or cannot be asked. */
async function inviterOf(invite) {
  try {
    const answer = await invitation(invite);
    return { host: answer.host || null, turns: Boolean(answer.turns), open: answer.open !== false,
      room: answer.room || null, seatCount: answer.seat_count || 2,
      seats: Array.isArray(answer.seats) ? answer.seats : [] };
  } catch (error) {
    return { error };
  }
}

/** The invitation cannot be opened: said at once, before any name is asked for. */
function failedPage(error, nav) {
  const unknown = error.code === "invite_unknown";
  return h("section", { class: "page narrow" },
    h("h1", {}, unknown ? t("invite.unknown_title") : t("invite.failed_title")),
    h("p", { class: "error-line", role: "alert" }, unknown
      ? t("invite.unknown")
      : error.message),
    h("div", { class: "button-row" },
      unknown ? null : h("button", { type: "button", class: "btn primary", onclick: nav.retry }, t("invite.retry")),
      h("button", { type: "button", class: "btn" + (unknown ? " primary" : ""), onclick: () => {
        window.history.replaceState(null, "", "/");
        nav.inicio();
      } }, t("invite.home"))),
    resumeButton(nav.resume));
}

/** "Mejor sigo mi partida de antes": this device's own game (`resume`), or null. */
function resumeButton(resume) {
  return resume ? h("p", { class: "small resume" },
    h("button", { type: "button", class: "btn quiet", onclick: resume }, t("invite.resume"))) : null;
}

function homeLink(nav) {
  return h("p", { class: "small" },
    h("a", { href: "/", onclick: (e) => { e.preventDefault(); window.history.replaceState(null, "", "/"); nav.inicio(); } },
      t("invite.home")));
}

/** The invitation page, or null when this device holds a seat at that table (it moved
 * there with a rejoin code, say: the host opening her own link): then `nav.game` opens it.
 * `nav`: {game(session), inicio(), retry() (ask again), held(room) (this device's seat in
 * `room`, or null), resume: a game of this device's own to go back to, or null}. */
export async function invitationScreen(invite, nav) {
  const found = await inviterOf(invite);
  if (found.error) return failedPage(found.error, nav);
  const mine = found.room ? nav.held(found.room) : null;
  if (mine) {
    nav.game({ ...mine, invite: invite.toUpperCase() }); // and straight there next time
    return null;
  }
  if (found.seatCount > 2) {
    return pairsInvitation(invite, found, { ...nav, ask: () => inviterOf(invite),
      extras: () => [resumeButton(nav.resume), homeLink(nav)] });
  }
  const { host, turns, open } = found;
  const title = h("h1", {}, host ? t("invite.title_host", { host }) : t("invite.title"));
  if (!open) {
    // both seats are taken (this device holds neither: app.js would have gone to it)
    return h("section", { class: "page narrow" }, title,
      h("p", { class: "full-note", role: "status" }, t("invite.full")),
      resumeButton(nav.resume),
      homeLink(nav));
  }
  const status = h("p", { class: "error-line", role: "alert" });
  status.hidden = true;
  // no name typed: asked once more, kindly (the host would read "¡Jugador 2 llegó!")
  const ask = h("p", { class: "notice name-ask", role: "alert" });
  ask.hidden = true;
  const button = h("button", { type: "submit", class: "btn big primary" }, t("invite.sit"));
  const onsubmit = async (event) => {
    event.preventDefault();
    if (button.getAttribute("aria-disabled")) return;
    try {
      await sitDown(invite, undefined, host, ask, button, nav);
    } catch (error) {
      status.textContent = error.message;
      status.hidden = false;
    }
  };
  return h("section", { class: "page narrow" },
    title,
    h("p", {}, host
      ? t("invite.line_host", { host }) : t("invite.line")),
    turns ? h("p", { class: "turns-note" }, h("strong", {}, t("invite.turns")),
      t("invite.turns_line")) : null,
    h("form", { onsubmit }, nameField("nombre-invitado"), ask, status, button),
    resumeButton(nav.resume),
    homeLink(nav));
}
