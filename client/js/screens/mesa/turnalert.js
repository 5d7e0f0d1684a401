// "Te toca" while the tab is hidden: the title and the favicon change and, when the player
// allowed it in the Menú, the page shows a system notification (no push service: only
// while the page is open in the background).

import { t } from "../../lib/i18n.js";
import { loadAlerts } from "../../lib/device.js";

const TITLE = () => t("alert.title");
const ICON = "/static/icon.svg";
const ICON_TURN = "/static/icon-turn.svg";

function setIcon(href) {
  const link = document.querySelector('link[rel="icon"]');
  if (link && link.getAttribute("href") !== href) link.setAttribute("href", href);
}

export function notificationsAllowed() {
  return "Notification" in window && Notification.permission === "granted" && loadAlerts();
}

/** Asks the browser for permission; resolves to whether notifications may be shown. */
export async function askPermission() {
  if (!("Notification" in window)) return false;
  if (Notification.permission === "granted") return true;
  try {
    return (await Notification.requestPermission()) === "granted";
  } catch {
    return false;
  }
}

async function notify(body) {
  const options = { body, tag: "casino-turno", icon: "/static/icons/icon-192.png", lang: "es-DO" };
  try {
    new Notification(t("alert.your_turn"), options); // eslint-disable-line no-new
  } catch {
    // some phones only show notifications through the service worker
    try {
      const registration = await navigator.serviceWorker?.getRegistration();
      await registration?.showNotification(t("alert.your_turn"), options);
    } catch {
      // not possible here: the title and the icon still say it
    }
  }
}

export class TurnAlert {
  constructor() {
    this.alertedSeq = null;
    this.last = null;
    this.onVisible = () => {
      if (document.visibilityState === "visible") this.clear();
      else if (this.last) this.update(...this.last);
    };
    document.addEventListener("visibilitychange", this.onVisible);
  }

  /** Called after each redraw: `seq` of the view, whether it is my turn, who just played. */
  update(seq, myTurn, body) {
    this.last = [seq, myTurn, body];
    if (!myTurn) {
      this.clear();
      return;
    }
    if (document.visibilityState !== "hidden") return;
    document.title = t("alert.title_turn", { title: TITLE() });
    setIcon(ICON_TURN);
    if (this.alertedSeq !== seq) {
      this.alertedSeq = seq;
      if (notificationsAllowed()) notify(body);
    }
  }

  clear() {
    if (document.title !== TITLE()) document.title = TITLE();
    setIcon(ICON);
  }

  stop() {
    document.removeEventListener("visibilitychange", this.onVisible);
    this.clear();
  }
}
