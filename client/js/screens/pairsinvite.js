// The invitation to a table of four: the table as the one who invites sits at it (her
// partner across, a rival on each side), who already sits in each chair, and the free ones,
// of which whoever opened the link chooses hers; then her name and "Sentarme a la mesa"
// (POST /api/join with that seat). Someone who sat first in the chosen chair: the chairs
// are asked for again and she chooses another; none left: said so.

import { partner, teamOf } from "../engine/seats.js";
import { joinRoom } from "../lib/api.js";
import { busy, h, unbusy } from "../lib/dom.js";
import { seatFrom } from "../lib/device.js";
import { t } from "../lib/i18n.js";
import { listWords, whoSits } from "../ui/chairs.js";
import { nameField, readName } from "./inicio.js";

const COUNT = 4;

/** Where each chair is drawn around the table, seen from the one who invites (seat 0,
 * at the bottom): her partner across, the one who plays after her on her right. */
const PLACES = ["bottom", "right", "top", "left"];

/** The one who invites, inside a sentence: her name, or "quien te invitó". */
function hostWords(found) {
  return found.host || t("chairs.host");
}

/** A chair's place, said from the one who invites: "Quien invita", "Pareja de Ana",
 * "Rival de Ana". */
function roleWords(seat, found) {
  const host = hostWords(found);
  if (seat === 0) return t("invite.chair_host");
  return teamOf(seat) === teamOf(0) ? t("invite.chair_partner", { host }) : t("invite.chair_rival", { host });
}

/** Who sits in `seat`, as the invitation says it (the one who invites by the name she
 * gave, or "quien te invitó"). */
function sitter(seat, found) {
  const chair = found.seats.find((c) => c.seat === seat) || { seat, name: null, kind: "person", free: true };
  if (seat === 0) return hostWords(found);
  return whoSits(chair);
}

/** Whether nobody sits in `seat` yet. */
function isFree(seat, found) {
  return Boolean(found.seats.find((c) => c.seat === seat)?.free);
}

/** "Juegas con Ana, contra Beto y la computadora (Normal)." for whoever sits in `seat`;
 * who is still to come is said by where they sit ("quien se siente frente a ti", "Ana y su
 * pareja", "dos que aún no llegan"). */
function lineFor(seat, found) {
  const mateSeat = partner(seat, COUNT);
  const mate = isFree(mateSeat, found) ? t("chairs.mate_missing") : sitter(mateSeat, found);
  const seats = [0, 1, 2, 3].filter((s) => teamOf(s) !== teamOf(seat));
  const coming = seats.filter((s) => isFree(s, found));
  let rivals;
  if (coming.length === seats.length) rivals = t("chairs.two_missing");
  else if (coming.length === 1) {
    rivals = t("chairs.and_partner", { name: sitter(seats.find((s) => !coming.includes(s)), found) });
  } else rivals = listWords(seats.map((s) => sitter(s, found)));
  return t("invite.chair_line", { mate, rivals });
}

/** One chair of the picture: a free one is a choice (the whole card is its label). */
function chairCard(seat, found, chosen) {
  const chair = found.seats.find((c) => c.seat === seat) || { seat, free: seat !== 0 };
  const role = h("strong", { class: "chair-role" }, roleWords(seat, found));
  if (!chair.free) {
    const who = seat === 0 ? hostWords(found) : whoSits(chair);
    return h("div", { class: `pick-chair taken ${PLACES[seat]}`, "data-seat": String(seat) },
      role, h("span", { class: "chair-who" }, who));
  }
  const id = `silla-${seat}`;
  const line = h("span", { class: "chair-line small", id: `${id}-linea` }, lineFor(seat, found));
  const input = h("input", { type: "radio", name: "silla", id, value: String(seat),
    checked: chosen === seat, "aria-describedby": line.id });
  return h("div", { class: `pick-chair free ${PLACES[seat]}`, "data-seat": String(seat) },
    input,
    h("label", { for: id }, role, h("span", { class: "chair-who" }, t("invite.chair_free"))),
    line);
}

/** The four chairs around the table, the free ones to choose from. */
function chairsPicture(found, chosen) {
  const free = found.seats.filter((c) => c.free).map((c) => c.seat);
  // one free chair: already chosen (nothing to ask)
  const pick = free.length === 1 ? free[0] : free.includes(chosen) ? chosen : null;
  return h("fieldset", { class: "chairs-pick" },
    h("legend", {}, t("invite.chairs")),
    h("div", { class: "mini-table" }, [0, 1, 2, 3].map((seat) => chairCard(seat, found, pick)),
      h("div", { class: "felt", "aria-hidden": "true" })));
}

/** No chair left: said, with the way home (and back to this device's own game). */
function fullPage(title, extras) {
  return h("section", { class: "page narrow" }, title,
    h("p", { class: "full-note", role: "status" }, t("invite.full_pairs")),
    extras);
}

/**
 * The page. `found`: the invitation as inviterOf (invitation.js) gives it; `nav`: that of
 * invitationScreen, with ask() (the invitation asked for again) and extras() (the links
 * under the page).
 */
/**
 * The invited friend sits down: asked once for a name when none was written (then nothing
 * else happens: the next tap goes on), else joins the table (in `seat`: the chair chosen, or
 * undefined: the free one) and opens it. An error is thrown once the button is released.
 * @param {string} invite @param {number|undefined} seat @param {string|null} host
 * @param {HTMLElement} ask @param {HTMLElement} button @param {any} nav
 */
export async function sitDown(invite, seat, host, ask, button, nav) {
  const field = /** @type {HTMLInputElement|null} */ (document.getElementById("nombre-invitado"));
  if (!(field?.value || "").trim() && ask.hidden) {
    ask.textContent = host ? t("invite.ask_host", { host }) : t("invite.ask");
    ask.hidden = false;
    field?.focus();
    return;
  }
  busy(button, t("invite.entering"));
  try {
    const name = readName("nombre-invitado");
    const answer = await joinRoom(invite, name || undefined, seat);
    nav.game(seatFrom(answer, { mode: "friend", invited: true, invite: invite.toUpperCase() }));
  } catch (error) {
    unbusy(button);
    throw error;
  }
}

export function pairsInvitation(invite, found, nav) {
  const { host, turns } = found;
  const title = h("h1", {}, host ? t("invite.pairs_title_host", { host }) : t("invite.pairs_title"));
  if (!found.open) return fullPage(title, nav.extras());
  let picture = chairsPicture(found, null);
  const status = h("p", { class: "error-line", role: "alert" });
  status.hidden = true;
  const say = (text) => {
    status.textContent = text;
    status.hidden = false;
  };
  const ask = h("p", { class: "notice name-ask", role: "alert" });
  ask.hidden = true;
  const button = h("button", { type: "submit", class: "btn big primary" }, t("invite.sit"));
  const chosenSeat = () => {
    const input = picture.querySelector("input[name=silla]:checked");
    return input ? Number(input.value) : null;
  };
  const page = h("section", { class: "page narrow pairs-invite" });

  /** Someone sat first: the chairs as they are now, and choose again. */
  const again = async (text) => {
    const fresh = await nav.ask();
    if (fresh.error) {
      say(fresh.error.message);
      return;
    }
    if (!fresh.open) {
      page.replaceWith(fullPage(title, nav.extras()));
      return;
    }
    const redrawn = chairsPicture(fresh, null);
    picture.replaceWith(redrawn);
    picture = redrawn;
    say(text);
    picture.querySelector("input[name=silla]")?.focus();
  };

  const onsubmit = async (event) => {
    event.preventDefault();
    if (button.getAttribute("aria-disabled")) return;
    status.hidden = true;
    const seat = chosenSeat();
    if (seat === null) {
      say(t("invite.choose_chair"));
      picture.querySelector("input[name=silla]")?.focus();
      return;
    }
    try {
      await sitDown(invite, seat, host, ask, button, nav);
    } catch (error) {
      if (error.code === "seat_taken") await again(t("invite.seat_taken"));
      else if (error.code === "room_full") page.replaceWith(fullPage(title, nav.extras()));
      else say(error.message);
    }
  };
  page.append(...[title,
    h("p", {}, t("invite.pairs_line")),
    turns ? h("p", { class: "turns-note" }, h("strong", {}, t("invite.turns")),
      t("invite.turns_line")) : null,
    h("form", { onsubmit }, picture, nameField("nombre-invitado"), ask, status, button),
    ...nav.extras()].filter(Boolean));
  return page;
}
