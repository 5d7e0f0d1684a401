// Web Push, drawn: the offer "¿Te avisamos cuando te toque?" (`offerPush`: at a por-turnos
// table this seat was never asked at; the browser's permission prompt comes only after
// "Sí, avísame"), the Menú's switch for this seat (`pushSwitch`) and Mis partidas' toggle
// of each friend game (`pushToggle`). The words are in words.js (PUSH_WORDS).

import { announce, h } from "../lib/dom.js";
import {
  pushAllowed, pushAnswer, pushSupported, savePushAnswer, turnPushOff, turnPushOn,
} from "../lib/push.js";
import { PUSH_WORDS as W } from "./words.js";

const OFFER_ID = "push-offer";

/** What turning pushes on came to, in words. */
function outcomeWords(outcome) {
  return outcome === "on" ? W.on : outcome === "denied" ? W.denied : W.failed;
}

/** Withdraws the offer (la mesa stopped, or the player answered). */
export function closePushOffer() {
  document.getElementById(OFFER_ID)?.remove();
}

/** At the table of `session` (its first view `view`): offers pushes once per seat, in a
 * por-turnos game whose browser can get them and has not refused notifications. Drawn
 * above <main> (la mesa redraws its own part), never in the way of the game. */
export function offerPush(session, view) {
  closePushOffer();
  if (!view || !view.turns || !pushAllowed() || pushAnswer(session.token) !== null) return;
  const line = h("p", { class: "small push-line", role: "status" });
  const answer = async (yes) => {
    if (!yes) {
      closePushOffer();
      announce(W.off);
      await turnPushOff(session.token);
      return;
    }
    for (const button of offer.querySelectorAll("button")) button.disabled = true;
    line.textContent = W.asking;
    const outcome = await turnPushOn(session.token);
    line.textContent = outcomeWords(outcome);
    offer.querySelector(".push-buttons")?.remove();
    offer.append(h("button", { type: "button", class: "btn quiet push-close", onclick: closePushOffer }, "Cerrar"));
    announce(line.textContent);
  };
  const offer = h("aside", { id: OFFER_ID, class: "push-offer", "aria-labelledby": "push-offer-title" },
    h("p", { id: "push-offer-title", class: "push-question" }, W.offer),
    h("p", { class: "small" }, W.offerWhy),
    h("div", { class: "button-row push-buttons" },
      h("button", { type: "button", class: "btn primary push-yes", onclick: () => answer(true) }, W.yes),
      h("button", { type: "button", class: "btn quiet push-no", onclick: () => answer(false) }, W.no)),
    line);
  const main = document.getElementById("main");
  main?.parentNode?.insertBefore(offer, main);
}

/** A switch for the seat `token` (on: the player asked for pushes here); `describedBy`: the
 * id of the line that explains it; `say(text)`: what turning it did; `state(on)`: its state
 * in words. Turning it on may show the browser's permission prompt. */
function pushButton(token, label, className, describedBy, say, state = W.yesNo) {
  const on = () => pushAnswer(token) === "si";
  const button = h("button", { type: "button", class: `btn switch ${className}`, role: "switch",
    "aria-checked": String(on()), "aria-describedby": describedBy,
    onclick: async () => {
      button.disabled = true;
      if (on()) {
        await turnPushOff(token);
        say(W.off);
      } else {
        say(outcomeWords(await turnPushOn(token)));
      }
      button.disabled = false;
      button.setAttribute("aria-checked", String(on()));
      button.querySelector(".state").textContent = state(on());
    } }, label, h("span", { class: "state" }, state(on())));
  return button;
}

/** Another person sits at the table (not only computers: nobody to wait for). */
function withPeople(view) {
  // a friend's chair even while the computer plays it (the computer's own chair is named
  // "Computadora" by the server: screens/mesa/names.js personChair)
  return view.players.some((player, seat) => seat !== view.seat &&
    (player.kind === "person" || (Boolean(view.names?.[seat]) && view.names[seat] !== "Computadora")));
}

/** The Menú's switch of an online friend game, with its note (null where pushes cannot be). */
export function pushSwitch(session, view) {
  if (!pushSupported() || !view || !withPeople(view)) return null;
  const note = h("p", { class: "small note", id: "push-note", "aria-live": "polite" }, W.switchNote);
  const say = (text) => {
    note.textContent = text;
    note.classList.remove("note"); // this one must be seen
  };
  return [pushButton(session.token, W.switchLabel, "push-switch", "push-note", say), note];
}

/** Mis partidas' toggle of a friend game (`game` as the server lists it: `push` says whether
 * it keeps a subscription for the seat; its word wins over this device's memory, since the
 * server drops a subscription the browser gave up); null for a game against the computer. */
export function pushToggle(seat, game, name) {
  if (!pushSupported() || game.mode !== "friend" || typeof game.push !== "boolean") return null;
  if ((pushAnswer(seat.token) === "si") !== game.push) {
    savePushAnswer(seat.token, game.push ? "si" : "no");
  }
  // shown "Avisos: Sí", said "Avisos de la partida con Ana: Sí"
  const label = h("span", {}, W.gameWord, h("span", { class: "sr-only" }, W.gameOf(name)), ": ");
  return pushButton(seat.token, label, "quiet g-push", null, announce);
}
