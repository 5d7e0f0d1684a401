// Tiny helpers to build DOM nodes, talk to screen readers and use the page's shell (the
// live regions and the connection banner of index.html).

import { t } from "./i18n.js";

/** h("button", {class: "x", onclick: fn, "aria-label": "..."}, "text", child, ...) */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key.startsWith("on") && typeof value === "function") {
      el.addEventListener(key.slice(2), value);
    } else if (key === "class") {
      el.className = value;
    } else if (key === "dataset") {
      Object.assign(el.dataset, value);
    } else if (key === "html") {
      el.innerHTML = value;
    } else if (value === true) {
      el.setAttribute(key, "");
    } else {
      el.setAttribute(key, String(value));
    }
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(el, child);
    else el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

const speakTimers = {};

/** Puts `text` in the live region `id`, emptied first so a repeated text is said again. */
function speak(id, text) {
  const region = document.getElementById(id);
  if (!region) return;
  clearTimeout(speakTimers[id]);
  region.textContent = "";
  speakTimers[id] = setTimeout(() => {
    region.textContent = text;
  }, 30);
}

/** Says `text` through the polite live region (moves, turns, connection). */
export function announce(text) {
  speak("announcer", text);
}

/** Says `text` at once, interrupting (errors). */
export function alertNow(text) {
  speak("alert", text);
}

/** Arrow keys, Home and End move the focus along ``items`` (a row of buttons or cards);
 * true when the key was one of them and the focus moved. */
export function moveFocusByKey(event, items) {
  const keys = ["ArrowLeft", "ArrowRight", "ArrowUp", "ArrowDown", "Home", "End"];
  if (!keys.includes(event.key)) return false;
  const at = items.indexOf(event.target);
  if (at < 0) return false;
  let next = at;
  if (event.key === "Home") next = 0;
  else if (event.key === "End") next = items.length - 1;
  else if (event.key === "ArrowLeft" || event.key === "ArrowUp") next = Math.max(0, at - 1);
  else next = Math.min(items.length - 1, at + 1);
  event.preventDefault();
  items[next].focus();
  return true;
}

/** Whether the player asked the system for less motion. */
export function reducedMotion() {
  return window.matchMedia("(prefers-reduced-motion: reduce)").matches;
}

export function wait(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export function capitalize(text) {
  return text ? text[0].toUpperCase() + text.slice(1) : text;
}

/** Whether the keyboard focus has fallen back to the page itself. */
export function focusLost() {
  const active = document.activeElement;
  return !active || active === document.body;
}

/** Opens a modal <dialog>; returns it. `onClose` runs once when it closes. */
export function openDialog({ title, body, className = "", onClose = null, closeLabel = t("sheet.close") }) {
  const heading = h("h2", { id: "dlg-title-" + Math.random().toString(36).slice(2) }, title);
  const dialog = h(
    "dialog",
    { class: "dialog " + className, "aria-labelledby": heading.id },
    h("div", { class: "dialog-head" }, heading,
      closeLabel ? h("button", { type: "button", class: "icon-button", "aria-label": closeLabel,
        onclick: () => dialog.close() }, "✕") : null),
    h("div", { class: "dialog-body" }, body),
  );
  // the browser gives focus back to the opener, unless it was redrawn while the dialog was
  // open: then find its successor by data-focus-key
  const openerKey = document.activeElement?.dataset?.focusKey;
  dialog.addEventListener("close", () => {
    dialog.remove();
    if (openerKey && focusLost()) {
      document.querySelector(`[data-focus-key="${openerKey}"]`)?.focus();
    }
    if (onClose) onClose();
  });
  document.body.append(dialog);
  dialog.showModal();
  return dialog;
}

/** The banner at the top of the page (the connection): `text`, or hidden when null. Its
 * height is the page's `--banner-h`, which la mesa gives up so that it still fits. */
export function setBanner(text) {
  const banner = document.getElementById("banner");
  if (!banner) return;
  const root = document.documentElement.style;
  if (text) {
    banner.textContent = text;
    banner.hidden = false;
    root.setProperty("--banner-h", `${banner.offsetHeight}px`);
  } else {
    banner.hidden = true;
    banner.textContent = "";
    root.removeProperty("--banner-h");
  }
}

const busyLabels = new WeakMap(); // a busy button's own content, to give back as it was

/** A button waiting for its answer: says `text` and is not pressed twice. */
export function busy(button, text) {
  button.setAttribute("aria-disabled", "true");
  if (!busyLabels.has(button)) busyLabels.set(button, [...button.childNodes]);
  button.replaceChildren(text);
}

/** The button as it was before `busy` (its label and its line under it, "un buen reto"). */
export function unbusy(button) {
  button.removeAttribute("aria-disabled");
  const label = busyLabels.get(button);
  if (label) button.replaceChildren(...label);
  busyLabels.delete(button);
}
