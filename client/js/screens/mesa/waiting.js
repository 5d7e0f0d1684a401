// La mesa before the friend arrives: the invitation to send (link, code, copy, share,
// WhatsApp, QR) and "Esperando a que entre tu amigo…".

import { t } from "../../lib/i18n.js";
import { h } from "../../lib/dom.js";
import { absoluteUrl, linkLine, qrImage, sayIn, shareRow, shareStatus } from "../../ui/share.js";

export function waitingRoom(g, topbar) {
  const v = g.view;
  const code = v.invite;
  const path = g.session.invite_url || (code ? `/j/${code}` : null);
  const url = path ? absoluteUrl(path) : null;
  const line = shareStatus(); // what "Copiar enlace" did, right under it
  return h("section", { class: "mesa waiting", "aria-labelledby": "wait-title" },
    topbar,
    h("div", { class: "invite-card" },
      h("h1", { id: "wait-title" }, t("waiting.title")),
      h("p", {}, t("waiting.line")),
      v.turns ? h("p", { class: "turns-note" }, h("strong", {}, t("waiting.turns")),
        t("waiting.turns_line")) : null,
      url ? linkLine(url, "data-invite-link") : null,
      code ? h("p", { class: "invite-code" }, t("waiting.code"),
        h("strong", { "data-invite-code": "" }, code)) : null,
      url ? shareRow({
        url,
        say: sayIn(line),
        copied: t("waiting.copied"),
        share: t("waiting.share"),
        message: t("waiting.whatsapp", { url }),
      }) : null,
      url ? line : null,
      url ? qrImage(path, t("waiting.qr")) : null,
      h("p", { class: "waiting-line", role: "status" },
        h("span", { class: "dot-pulse", "aria-hidden": "true" }), t("waiting.waiting")),
    ),
    g.notice.line(),
  );
}
