// Web Push for this device's seats: whether the browser can (`pushSupported`), the player's
// answer for each seat (`pushAnswer`: "si", "no" or null when never asked; kept in
// localStorage as `casino.avisosCerrada`), and turning it on (the browser's permission
// prompt, then pushManager.subscribe with the server's VAPID key, then the server keeps the
// subscription for the seat) or off for one seat. The browser holds one subscription for
// the whole site: every seat that asked for pushes names the same one.

import { pushKey, setPush } from "./api.js";

const KEY = "casino.avisosCerrada";

function answers() {
  try {
    const data = JSON.parse(window.localStorage.getItem(KEY) || "{}");
    return data && typeof data === "object" ? data : {};
  } catch {
    return {};
  }
}

/** The player's answer for the seat `token`: "si", "no", or null (never asked). */
export function pushAnswer(token) {
  const value = answers()[token];
  return value === "si" || value === "no" ? value : null;
}

export function savePushAnswer(token, value) {
  const all = answers();
  all[token] = value;
  try {
    window.localStorage.setItem(KEY, JSON.stringify(all));
  } catch {
    // storage full or blocked: asked again next time
  }
}

/** This browser can get pushes (a service worker, the Push API, notifications, https). */
export function pushSupported() {
  return window.isSecureContext && "serviceWorker" in navigator && "PushManager" in window &&
    "Notification" in window;
}

/** Whether the browser would still show its permission prompt, or has it granted. */
export function pushAllowed() {
  return pushSupported() && Notification.permission !== "denied";
}

async function registration() {
  const ready = navigator.serviceWorker.ready;
  const timeout = new Promise((_, reject) => setTimeout(() => reject(new Error("no service worker")), 10000));
  return Promise.race([ready, timeout]);
}

function lang() {
  return document.documentElement.lang || "es-DO";
}

/** Turns pushes on for the seat `token`: the permission prompt (only here, after the
 * player said yes), the subscription, the server. Resolves to "on", "denied" or "failed". */
export async function turnPushOn(token) {
  let permission = Notification.permission;
  if (permission !== "granted") {
    try {
      permission = await Notification.requestPermission();
    } catch {
      permission = "denied";
    }
  }
  if (permission !== "granted") return "denied";
  try {
    const reg = await registration();
    let subscription = await reg.pushManager.getSubscription();
    if (!subscription) {
      const { key } = await pushKey();
      subscription = await reg.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: key });
    }
    await setPush(token, subscription.toJSON(), lang());
  } catch {
    return "failed";
  }
  savePushAnswer(token, "si");
  return "on";
}

/** Turns pushes off for the seat `token` (the browser's subscription stays: other seats of
 * this device may use it). */
export async function turnPushOff(token) {
  savePushAnswer(token, "no");
  try {
    await setPush(token, null, lang());
  } catch {
    // the server is away: it drops the seat's subscription at the next try
  }
}

/** At the table: a seat that asked for pushes tells the server the browser's subscription
 * again (it may have changed), without any prompt. */
export async function refreshPush(token) {
  if (pushAnswer(token) !== "si" || !pushSupported() || Notification.permission !== "granted") return;
  try {
    const subscription = await (await registration()).pushManager.getSubscription();
    if (subscription) await setPush(token, subscription.toJSON(), lang());
  } catch {
    // not now: the next table tries again
  }
}
