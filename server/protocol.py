"""The websocket protocol (docs/protocol.md): one closed set of typed client messages,
parsed in one place (``parse_client``), and the errors sent back (code + Spanish message).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import orjson

from .ai import LEVELS
from .engine import Move, NotationError

# code -> Spanish message a player can read
MESSAGES_ES: dict[str, str] = {
    "bad_json": "No entendimos ese mensaje.",
    "unknown_type": "No conocemos ese tipo de mensaje.",
    "missing_field": "Falta un dato en el mensaje.",
    "hello_first": "Primero hay que entrar a la mesa.",
    "already_hello": "Ya estás conectado a esta mesa.",
    "bad_token": "Esa sesión ya no es válida.",
    "bad_origin": "Esta página no puede conectarse al juego.",
    "rate_limited": "Vas muy rápido. Espera un momento.",
    "invalid_move": "Esa jugada no se entiende.",
    "not_your_turn": "Todavía no es tu turno.",
    "stale": "La mesa cambió. Mira la jugada nueva.",
    "illegal": "Esa jugada no se permite.",
    "waiting_for_friend": "Todavía falta tu primo.",
    "match_over": "La partida ya terminó.",
    "not_over": "La partida todavía no ha terminado.",
    "not_absent": "Tu primo está conectado.",
    "too_early": "Dale un chance: tu primo todavía puede volver.",
    "bad_level": "Ese nivel no existe.",
    "server_error": "Algo salió mal. Intenta otra vez.",
    # HTTP
    "bad_request": "No entendimos esa petición.",
    "bad_mode": "Escoge jugar contra la computadora o contra un primo.",
    "bad_name": "Escribe un nombre de 1 a 20 letras.",
    "invite_unknown": "No encontramos esa invitación. Revisa el enlace.",
    "room_full": "Esa mesa ya tiene dos jugadores.",
    "room_unknown": "No encontramos esa mesa.",
    "code_unknown": "Ese código no existe. Revísalo.",
    "code_expired": "Ese código ya venció. Pide uno nuevo.",
    "code_used": "Ese código ya se usó. Pide uno nuevo.",
    "bad_qr_text": "Ese enlace no es de este sitio.",
    "not_found": "Esa página no existe.",
}

# websocket close codes (docs/protocol.md)
CLOSE_POLICY = 1008
CLOSE_SERVER_ERROR = 1011
CLOSE_SEAT_MOVED = 4000

MAX_ID = 64
MAX_TOKEN = 128


class ProtocolError(Exception):
    """A message the server answers with an error; nothing changed."""

    def __init__(
        self, code: str, message: str | None = None, *, id: str | None = None,
        reason: str | None = None,
    ) -> None:
        super().__init__(code)
        self.code = code
        self.message = message or MESSAGES_ES.get(code, MESSAGES_ES["server_error"])
        self.id = id
        self.reason = reason

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"type": "error", "code": self.code, "message": self.message}
        if self.id is not None:
            data["id"] = self.id
        if self.reason is not None:
            data["reason"] = self.reason
        return data

    def to_text(self) -> str:
        return dumps(self.to_json())


@dataclass(frozen=True, slots=True)
class Hello:
    token: str
    since: int | None


@dataclass(frozen=True, slots=True)
class MoveMsg:
    move: Move
    seq: int
    id: str


@dataclass(frozen=True, slots=True)
class Takeover:
    level: str


@dataclass(frozen=True, slots=True)
class Rematch:
    pass


@dataclass(frozen=True, slots=True)
class Ping:
    pass


ClientMessage = Hello | MoveMsg | Takeover | Rematch | Ping


def _missing(name: str) -> ProtocolError:
    return ProtocolError("missing_field", f"Falta el dato «{name}» o no es válido.")


def _int_field(data: dict[str, Any], name: str) -> int:
    value = data.get(name)
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < 2**53:
        raise _missing(name)
    return value


def _str_field(data: dict[str, Any], name: str, max_len: int) -> str:
    value = data.get(name)
    if not isinstance(value, str) or not 0 < len(value) <= max_len:
        raise _missing(name)
    return value


def parse_client(text: str | bytes) -> ClientMessage:
    """Reads one client frame; raises ProtocolError for anything not in the protocol."""
    try:
        data = json.loads(text)
    except (ValueError, TypeError, RecursionError):
        raise ProtocolError("bad_json") from None
    if not isinstance(data, dict):
        raise ProtocolError("bad_json")
    kind = data.get("type")
    if kind == "hello":
        token = _str_field(data, "token", MAX_TOKEN)
        return Hello(token, None if data.get("since") is None else _int_field(data, "since"))
    if kind == "move":
        move_id = _str_field(data, "id", MAX_ID)
        try:  # every error from here on answers this move: it carries its id
            if "move" not in data:
                raise ProtocolError("missing_field", "Falta el dato «move».")
            seq = _int_field(data, "seq")
            try:
                move = Move.from_json(data["move"])
            except (NotationError, TypeError, ValueError):
                raise ProtocolError("invalid_move") from None
        except ProtocolError as exc:
            exc.id = move_id
            raise
        return MoveMsg(move, seq, move_id)
    if kind == "takeover":
        level = data.get("level")
        if level is None:
            raise _missing("level")
        if level not in LEVELS:
            raise ProtocolError("bad_level")
        return Takeover(str(level))
    if kind == "rematch":
        return Rematch()
    if kind == "ping":
        return Ping()
    raise ProtocolError("unknown_type")


def dumps(message: dict[str, Any]) -> str:
    """Compact JSON text (UTF-8, not escaped): orjson, several times faster than ``json``
    on the hot path where every move sends each seat its view."""
    return orjson.dumps(message).decode()


class ApiError(ProtocolError):
    """An HTTP API error: status plus the same code + Spanish message shape."""

    def __init__(self, status: int, code: str, message: str | None = None) -> None:
        super().__init__(code, message)
        self.status = status

    def body(self) -> dict[str, Any]:
        return {"error": {"code": self.code, "message": self.message}}
