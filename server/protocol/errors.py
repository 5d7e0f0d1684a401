"""Errors, both ways: a code and the Spanish message a player reads (``MESSAGES_ES``), and
the websocket close codes (docs/protocol.md, "Error codes")."""

from __future__ import annotations

from typing import Any

from .outgoing import Error, encode

# code -> Spanish message a player can read
MESSAGES_ES: dict[str, str] = {
    "bad_json": "No entendimos ese mensaje.",
    "unknown_type": "No conocemos ese tipo de mensaje.",
    "missing_field": "Falta un dato en el mensaje.",
    "hello_first": "Primero hay que entrar a la mesa.",
    "already_hello": "Ya estás conectado a esta mesa.",
    "bad_token": "Esa partida ya no está en este dispositivo: siguió en otro, o ya se borró.",
    "bad_origin": "Esta página no puede conectarse al juego.",
    "rate_limited": "Vas muy rápido. Espera un momento.",
    "invalid_move": "Esa jugada no se entiende.",
    "not_your_turn": "Todavía no es tu turno.",
    "stale": "La mesa cambió. Mira la jugada nueva.",
    "illegal": "Esa jugada no se permite.",
    "waiting_for_friend": "Todavía falta tu amigo.",
    "match_over": "La partida ya terminó.",
    "not_over": "La partida todavía no ha terminado.",
    "not_absent": "Tu amigo está conectado.",
    "too_early": "Dale un chance: tu amigo todavía puede volver.",
    "bad_level": "Ese nivel no existe.",
    "turns_wait": (
        "Es una partida por turnos: tu amigo juega cuando pueda. Si tarda mucho, "
        "en la mesa te ofrecemos que la computadora juegue por tu amigo."
    ),
    "server_error": "Algo salió mal. Intenta otra vez.",
    # the database or the link between server processes is away for a moment: nothing
    # acknowledged is lost, and the game comes back by itself
    "reconnecting": "Se está reconectando el servidor. Un momentico, ya volvemos.",
    "watch_unknown": "No encontramos esa mesa para mirar. Revisa el enlace.",
    "watchers_full": "Esa mesa ya tiene muchas personas mirando. Prueba más tarde.",
    "watch_only": "Estás mirando la mesa: desde aquí no se juega ni se reacciona.",
    "bad_reaction": "Esa reacción no existe.",
    # HTTP
    "bad_request": "No entendimos esa petición.",
    "bad_mode": "Escoge jugar contra la computadora o contra un amigo.",
    "bad_name": "Escribe un nombre de 1 a 20 letras.",
    "bad_key": "No entendimos esa petición.",
    "invite_unknown": "No encontramos esa invitación. Revisa el enlace.",
    "room_full": "Esa mesa ya tiene dos jugadores.",
    "room_unknown": "No encontramos esa mesa.",
    "code_unknown": "Ese código no existe. Revísalo.",
    "code_expired": "Ese código ya venció. Pide uno nuevo.",
    "code_used": "Ese código ya se usó. Pide uno nuevo.",
    "bad_qr_text": "Ese enlace no es de este sitio.",
    "not_found": "Esa página no existe.",
    "bad_turns": "«Por turnos» es solo para jugar con un amigo (sí o no).",
    "bad_tokens": "No entendimos la lista de partidas de este dispositivo.",
    "bad_match": "Esa partida no existe en esta mesa.",
    "not_finished": "Esa partida todavía no ha terminado: la repetición sale al final.",
    "replay_unknown": "No encontramos esa repetición. Revisa el enlace.",
    # Web Push (issue 29)
    "bad_subscription": "No pudimos activar los avisos en este navegador.",
    "push_not_friend": "Los avisos son para las partidas con amigos.",
}

# websocket close codes (docs/protocol.md)
CLOSE_NORMAL = 1000
CLOSE_POLICY = 1008
CLOSE_SERVER_ERROR = 1011
CLOSE_RECONNECT = 1012  # "service restart": reconnect (to any process) and resume
CLOSE_SEAT_MOVED = 4000


class ProtocolError(Exception):
    """A message the server answers with an error; nothing changed."""

    def __init__(
        self,
        code: str,
        message: str | None = None,
        *,
        id: str | None = None,
        reason: str | None = None,
    ) -> None:
        super().__init__(code)
        self.code = code
        self.message = message or MESSAGES_ES.get(code, MESSAGES_ES["server_error"])
        self.id = id
        self.reason = reason

    def to_message(self) -> Error:
        return Error(self.code, self.message, self.id, self.reason)

    def to_text(self) -> str:
        return encode(self.to_message())


class ApiError(ProtocolError):
    """An HTTP API error: the same code + Spanish message. The web layer picks the status
    from the code (``app.STATUS``) unless it set one itself (``status``)."""

    def __init__(self, code: str, message: str | None = None, *, status: int | None = None) -> None:
        super().__init__(code, message)
        self.status = status

    def body(self) -> dict[str, Any]:
        return {"error": {"code": self.code, "message": self.message}}


REACTIONS_LIMITED_ES = "Muchas reacciones seguidas. Espera unos segundos."


def watchers_full(cap: int) -> ProtocolError:
    """The answer to one watcher more than a room admits."""
    return ProtocolError(
        "watchers_full",
        f"Esa mesa ya tiene {cap} personas mirando, que es el máximo. Prueba más tarde.",
    )
