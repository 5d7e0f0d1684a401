// La mesa's dialogs: the Menú (hints; the computer's pace where the computer plays; "Te
// toca" alerts online; muting a friend's reactions; and the ways out), "Invitar a mirar"
// (the watch link), "Seguir en otro dispositivo" (a one-time rejoin link and code), "Cómo
// se juega" and "¿Salir de la mesa?" (the phone's Back).

import { loadReading, t } from "../../lib/i18n.js";
import { languageSwitch } from "../../ui/language.js";
import { newRejoinCode } from "../../lib/api.js";
import { announce, h, openDialog, reducedMotion } from "../../lib/dom.js";
import { SPEEDS, loadAlerts, loadAnimMs, saveAlerts, saveAnimMs } from "../../lib/device.js";
import { pushSwitch } from "../../ui/push.js";
import { absoluteUrl, linkLine, qrImage, sayIn, shareRow, shareStatus } from "../../ui/share.js";
import { howToPlay } from "../../ui/texts.js";
import { refocus } from "./focus.js";
import { isFriendGame } from "./names.js";
import { askPermission } from "./turnalert.js";

const LEFT_SAVED = "menu.left_saved";

/** A switch of the Menú: "Ayudas: Sí". `toggle()` returns the new state (or a promise of it);
 * `describedBy`: the id of the line that explains it. */
function menuSwitch(label, on, toggle, className = "", describedBy = null) {
  const button = h("button", {
    type: "button", class: "btn switch" + (className ? " " + className : ""), role: "switch",
    "aria-checked": String(on), "aria-describedby": describedBy,
    onclick: () => {
      const show = (now) => {
        button.setAttribute("aria-checked", String(now));
        button.querySelector(".state").textContent = now ? t("menu.yes") : t("menu.no");
      };
      const now = toggle();
      if (now instanceof Promise) now.then(show);
      else show(now);
    },
  }, label, h("span", { class: "state" }, on ? t("menu.yes") : t("menu.no")));
  return button;
}

/** How long the opponent's move stays on screen: Despacio, Normal, Rápido. */
function speedRow() {
  const current = loadAnimMs(reducedMotion());
  const row = h("div", { class: "button-row speed", role: "group", "aria-labelledby": "speed-label" });
  for (const [key, ms] of Object.entries(SPEEDS)) {
    const button = h("button", { type: "button", class: "btn", "aria-pressed": String(current === ms),
      onclick: () => {
        saveAnimMs(ms);
        row.querySelectorAll("button").forEach((b) => b.setAttribute("aria-pressed", String(b === button)));
        announce(t("menu.speed_said", { speed: t(`menu.speed.${key}`) }));
      } }, t(`menu.speed.${key}`));
    row.append(button);
  }
  return row;
}

export function openMenu(g) {
  const hints = menuSwitch(t("menu.hints"), g.hints, () => {
    g.setHints(!g.hints);
    return g.hints;
  }, "", "hints-note");
  // the explanations ("note") give way on a phone held sideways: each switch keeps its own
  // as its description, so a screen reader still says it
  const alertsLine = h("p", { class: "small note", id: "alerts-note", "aria-live": "polite" },
    t("menu.alerts_note"));
  const alerts = menuSwitch(t("menu.alerts"), loadAlerts(), async () => {
    let on = !loadAlerts();
    if (on && !(await askPermission())) {
      on = false;
      alertsLine.textContent = t("menu.denied");
      alertsLine.classList.remove("note"); // this one must be seen
    }
    saveAlerts(on);
    return on;
  }, "alerts", "alerts-note");
  const then = (open) => () => {
    dialog.close();
    open();
  };
  // each setting only where it means something: the pace is the computer's (its seat, or a
  // friend's it plays now); "Te toca" alerts are for a game on the server; muting, for a
  // friend's reactions (only the other seat's reach this one)
  const friend = isFriendGame(g.view) && !g.local;
  const computerPlays = !isFriendGame(g.view) || g.presence.current?.state === "computer";
  const notifications = "Notification" in window && !g.local;
  const dialog = openDialog({
    title: t("mesa.menu"),
    className: "menu",
    onClose: () => refocus(g),
    body: h("div", { class: "menu-list" },
      h("div", { class: "menu-group" },
        hints,
        h("p", { class: "small note", id: "hints-note" }, t("menu.hints_note")),
        computerPlays ? h("p", { id: "speed-label", class: "menu-label" }, t("menu.speed")) : null,
        computerPlays ? speedRow() : null,
        notifications ? alerts : null,
        notifications ? alertsLine : null,
        g.local ? null : pushSwitch(g.session, g.view), // Web Push of this seat (ui/push.js)
        friend ? g.reactions.muteSwitch() : null),
      h("div", { class: "menu-group" },
        g.view?.watch_url ? h("button", { type: "button", class: "btn watch-invite",
          onclick: then(() => openWatchInvite(g)) }, t("menu.watch")) : null,
        // a game with no server is this device's alone
        g.local ? null : h("button", { type: "button", class: "btn", onclick: then(() => openMoveDevice(g)) },
          t("menu.move_device")),
        h("button", { type: "button", class: "btn", onclick: then(() => openHelp(g)) }, t("pages.how_to_play")),
        h("button", { type: "button", class: "btn quiet", "aria-describedby": "home-note",
          onclick: then(() => g.app.goHome(null, true)) }, t("menu.home")),
        h("p", { class: "small note", id: "home-note" }, t(LEFT_SAVED)),
        languageSwitch()),
    ),
  });
}

/** The phone's Back button at the table: "¿Salir de la mesa?" (staying is the first
 * answer). */
export function askLeave(g) {
  const stay = h("button", { type: "button", class: "btn primary stay", onclick: () => dialog.close() }, t("sheet.keep_playing"));
  const dialog = openDialog({
    title: t("menu.leave_title"),
    className: "ask-leave",
    onClose: () => refocus(g),
    body: h("div", {},
      h("p", {}, t(LEFT_SAVED)),
      h("div", { class: "button-row" }, stay,
        h("button", { type: "button", class: "btn quiet", onclick: () => {
          dialog.close();
          g.app.goHome(null, true);
        } }, t("menu.home")))),
  });
  stay.focus();
}

/** The watch link: family and friends follow the table without seeing a hand. */
export function openWatchInvite(g) {
  const path = g.view?.watch_url;
  if (!path) return;
  const url = absoluteUrl(path);
  const line = shareStatus();
  openDialog({
    title: t("menu.watch_title"), className: "watch-dialog", onClose: () => refocus(g),
    body: h("div", { class: "move-device" },
      h("p", {}, t("menu.watch_line")),
      linkLine(url, "data-watch-link", { newTab: true }),
      shareRow({ url, say: sayIn(line), message: t("menu.watch_share", { url }) }),
      line,
      qrImage(path, t("menu.watch_qr"))),
  });
}

export async function openHelp(g) {
  await loadReading(); // the reading pages' words, fetched the first time
  openDialog({ title: t("pages.how_to_play"), className: "help", body: h("div", { class: "prose", html: howToPlay() }),
    onClose: () => refocus(g) });
}

/** A one-time rejoin link and code (the server says for how long). */
export async function openMoveDevice(g) {
  const body = h("div", { class: "move-device" }, h("p", {}, t("menu.asking_code")));
  openDialog({ title: t("menu.move_device"), className: "move", body, onClose: () => refocus(g) });
  try {
    const data = await newRejoinCode(g.session.token);
    const url = absoluteUrl(data.url);
    const minutes = Math.max(1, Math.round(data.expires_in / 60));
    const line = shareStatus();
    body.replaceChildren(
      h("p", {}, t("menu.move_open")),
      linkLine(url, "data-rejoin-link"),
      qrImage(data.url, t("menu.move_qr")),
      h("p", {}, t("menu.move_type")),
      h("p", { class: "big-code" }, h("span", { "data-rejoin-code": "", "aria-hidden": "true" }, data.code),
        h("span", { class: "sr-only" }, t("menu.code_said", { code: data.code.split("").join(" ") }))),
      h("p", { class: "small" }, t("menu.move_once", { n: minutes })),
      shareRow({ url, say: sayIn(line) }),
      line,
    );
  } catch (error) {
    body.replaceChildren(h("p", { class: "error-line", role: "alert" }, error.message));
  }
}
