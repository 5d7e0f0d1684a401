// La mesa before the friend arrives: the invitation to send (link, code, copy, share,
// WhatsApp, QR) and "Esperando a que entre tu amigo…".

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
      h("h1", { id: "wait-title" }, "Invita a tu amigo"),
      h("p", {}, "Mándale este enlace. Cuando lo abra, se sienta contigo a la mesa."),
      v.turns ? h("p", { class: "turns-note" }, h("strong", {}, "Por turnos: "),
        "cada uno juega cuando pueda, aunque pasen días. La partida te espera en «Mis partidas», en el inicio.") : null,
      url ? linkLine(url, "data-invite-link") : null,
      code ? h("p", { class: "invite-code" }, "Código de invitación: ",
        h("strong", { "data-invite-code": "" }, code)) : null,
      url ? shareRow({
        url,
        say: sayIn(line),
        copied: "Enlace copiado. Pégalo en un mensaje a tu amigo.",
        share: "¡Vamos a jugar casino!",
        message: `¡Vamos a jugar casino! Entra a mi mesa: ${url}`,
      }) : null,
      url ? line : null,
      url ? qrImage(path, "Código QR del enlace de invitación") : null,
      h("p", { class: "waiting-line", role: "status" },
        h("span", { class: "dot-pulse", "aria-hidden": "true" }), " Esperando a que entre tu amigo…"),
    ),
    g.notice.line(),
  );
}
