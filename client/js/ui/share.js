// Handing out a link of this site: the link itself, "Copiar enlace", the phone's share
// sheet, WhatsApp and the QR code. One copy for the invitation (la mesa while it waits), the
// watch link and the rejoin code (la mesa's Menú), and the replay.

import { t } from "../lib/i18n.js";
import { qrObjectUrl } from "../lib/api.js";
import { h } from "../lib/dom.js";

export const COPIED = "share.copied";
export const NOT_COPIED = "share.not_copied";

/** A path of this site as a whole address ("/j/H7KM4Q2P" → "https://…/j/H7KM4Q2P"). */
export function absoluteUrl(path) {
  return new URL(path, window.location.origin).href;
}

/** The link on its own line; `attr` names it for the tests ("data-invite-link"). The
 * address may break anywhere, its code (the last part) only when it cannot fit a line alone:
 * a code read aloud or typed is not cut in two. */
export function linkLine(url, attr, { newTab = false, className = "invite-link" } = {}) {
  const cut = url.lastIndexOf("/") + 1;
  return h("p", { class: className },
    h("a", { href: url, [attr]: "", target: newTab ? "_blank" : null, rel: newTab ? "noopener" : null },
      url.slice(0, cut), h("span", { class: "link-code" }, url.slice(cut))));
}

/** Copies `url`; `say(text)` tells the player whether it worked. */
export async function copyLink(url, say, copied = t(COPIED)) {
  try {
    await navigator.clipboard.writeText(url);
    say(copied);
  } catch {
    say(t(NOT_COPIED));
  }
}

/** The phone's share sheet where there is one, else a copy of the link. */
export function shareButton(label, { title = "Casino dominicano", text, url }, say, className = "btn") {
  return h("button", { type: "button", class: className, onclick: async () => {
    if (!navigator.share) {
      await copyLink(url, say);
      return;
    }
    try {
      await navigator.share({ title, text, url });
    } catch {
      // the player closed the share sheet
    }
  } }, label);
}

/**
 * The row of ways to send `url`: "Copiar enlace" (then `say(copied)`), "Compartir" when the
 * phone has a share sheet and `share` gives its text, "Enviar por WhatsApp" with `message`.
 */
export function shareRow({ url, say, copied = t(COPIED), share = null, message = null }) {
  return h("div", { class: "button-row" },
    h("button", { type: "button", class: "btn", onclick: () => copyLink(url, say, copied) }, t("share.copy")),
    share && navigator.share ? shareButton(t("share.share"), { text: share, url }, say) : null,
    message ? h("a", { class: "btn whatsapp", href: "https://wa.me/?text=" + encodeURIComponent(message),
      target: "_blank", rel: "noopener" }, t("share.whatsapp")) : null);
}

/** A line that says, visibly and to screen readers, what the buttons above did. */
export function shareStatus() {
  return h("p", { class: "small share-status", role: "status" });
}

/** `say(text)` for a shareRow: the text in `line` (a shareStatus), brought into sight, as
 * the line may be below the fold of a dialog or a page. */
export function sayIn(line) {
  return (text) => {
    line.textContent = text;
    line.scrollIntoView({ block: "nearest" });
  };
}

/** The QR code of one of this site's paths: its place kept from the start and the code
 * shown once it arrives (POST /api/qr), so nothing below it moves when it does (a line
 * brought into sight a moment before stays in sight). */
export function qrImage(path, alt) {
  const img = h("img", { class: "qr loading", alt, width: "180", height: "180" });
  qrObjectUrl(path).then((src) => {
    img.src = src;
    img.classList.remove("loading");
  }).catch(() => img.remove());
  return img;
}
