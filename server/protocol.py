"""The websocket protocol (docs/protocol.md), both directions, in one place.

- Client → server: one closed set of typed messages (``ClientMessage``), read by
  ``parse_client`` and nothing else. Every string is checked as text (type, length, valid
  Unicode) before it reaches a room or the database.
- Server → client: typed messages too (``ServerMessage``), written by ``encode`` and nothing
  else. Events and views already encoded (a room keeps its history as text) travel as
  ``orjson.Fragment`` and are not encoded again.
- Errors: a code and the Spanish message a player reads (``MESSAGES_ES``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import orjson

from .ai import LEVELS
from .engine import EngineError, Move

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
    "waiting_for_friend": "Todavía falta tu amigo.",
    "match_over": "La partida ya terminó.",
    "not_over": "La partida todavía no ha terminado.",
    "not_absent": "Tu amigo está conectado.",
    "too_early": "Dale un chance: tu amigo todavía puede volver.",
    "bad_level": "Ese nivel no existe.",
    "turns_wait": (
        "Es una partida por turnos: tu amigo juega cuando pueda. Si de verdad "
        "quieres que la computadora juegue por tu amigo, pídelo en el Menú."
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
}

# websocket close codes (docs/protocol.md)
CLOSE_NORMAL = 1000
CLOSE_POLICY = 1008
CLOSE_SERVER_ERROR = 1011
CLOSE_RECONNECT = 1012  # "service restart": reconnect (to any process) and resume
CLOSE_SEAT_MOVED = 4000

MAX_ID = 64
MAX_TOKEN = 128
MAX_WATCH_CODE = 32  # a watch code is 12 characters; room for separators a person typed

# the quick reactions: a closed set (no free text, so nothing to moderate), id -> what the
# other seat and the watchers read (client/js/reactions.js shows the same texts)
REACTIONS: dict[str, str] = {
    "buena": "¡Buena!",
    "ay_no": "¡Ay, no!",
    "te_lo_subi": "Te lo subí",
    "piensalo": "Piénsalo bien",
    "que_suerte": "¡Qué suerte!",
    "dale": "¡Dale, que es pa' hoy!",
    "aplausos": "👏",
    "risa": "😂",
    "asombro": "😮",
    "pensando": "🤔",
}
# errors after which the socket is closed and this device cannot use that seat or watch
# link again (docs/protocol.md: "fatal": true); the client keeps no list of its own
FATAL_CODES = frozenset({"bad_token", "bad_origin", "watch_unknown", "watchers_full"})
MAX_SEQ = 2**53  # exclusive: what a JavaScript number holds exactly


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


# -- text checks --------------------------------------------------------------------------


def is_plain(value: str) -> bool:
    """Printable ASCII without spaces: what tokens, codes, keys and move ids are made of."""
    return value.isascii() and value.isprintable() and " " not in value


def plain_field(data: dict[str, Any], name: str, max_len: int) -> str:
    """A required string field of printable ASCII, 1..max_len characters."""
    value = data.get(name)
    if not isinstance(value, str) or not 0 < len(value) <= max_len or not is_plain(value):
        raise _missing(name)
    return value


def _missing(name: str) -> ProtocolError:
    return ProtocolError("missing_field", f"Falta el dato «{name}» o no es válido.")


def _int_field(data: dict[str, Any], name: str) -> int:
    value = data.get(name)
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < MAX_SEQ:
        raise _missing(name)
    return value


REACTIONS_LIMITED_ES = "Muchas reacciones seguidas. Espera unos segundos."


def watchers_full(cap: int) -> ProtocolError:
    """The answer to one watcher more than a room takes."""
    return ProtocolError(
        "watchers_full",
        f"Esa mesa ya tiene {cap} personas mirando, que es el máximo. Prueba más tarde.",
    )


def loads(text: str | bytes) -> Any:
    """JSON text to values. Refuses invalid UTF-8, lone surrogates and nesting deeper than
    orjson's limit (1024) with ``ValueError``, never with a crash."""
    return orjson.loads(text)


# -- client → server ----------------------------------------------------------------------


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
    confirmed: bool = False  # por turnos: asked for in so many words (docs/protocol.md)


@dataclass(frozen=True, slots=True)
class Rematch:
    pass


@dataclass(frozen=True, slots=True)
class Ping:
    pass


@dataclass(frozen=True, slots=True)
class WatchMsg:
    """The first message of a watcher (instead of ``hello``): the watch link's code."""

    code: str
    since: int | None


@dataclass(frozen=True, slots=True)
class React:
    """A quick reaction from a seat (``id`` optional: an error about it carries it)."""

    reaction: str
    id: str | None


ClientMessage = Hello | MoveMsg | Takeover | Rematch | Ping | WatchMsg | React


def normalize_watch_code(text: str) -> str:
    """A watch code as stored: capitals, without the spaces or dashes a person may type
    (still to be checked as plain text)."""
    return "".join(ch for ch in text.upper() if ch not in " -_")


def parse_client(text: str | bytes) -> ClientMessage:
    """Reads one client frame; raises ProtocolError for anything not in the protocol. An
    error about a message that carries a valid ``id`` carries that id."""
    try:
        data = loads(text)
    except (ValueError, TypeError):
        raise ProtocolError("bad_json") from None
    if not isinstance(data, dict):
        raise ProtocolError("bad_json")
    kind = data.get("type")
    if kind == "hello":
        token = plain_field(data, "token", MAX_TOKEN)
        return Hello(token, None if data.get("since") is None else _int_field(data, "since"))
    if kind == "move":
        move_id = plain_field(data, "id", MAX_ID)
        try:  # every error from here on answers this move: it carries its id
            if "move" not in data:
                raise _missing("move")
            seq = _int_field(data, "seq")
            try:
                move = Move.from_json(data["move"])
            except (EngineError, TypeError, ValueError):
                raise ProtocolError("invalid_move") from None
        except ProtocolError as exc:
            exc.id = move_id
            raise
        return MoveMsg(move, seq, move_id)
    if kind == "takeover":
        level = data.get("level")
        if level is None:
            raise _missing("level")
        if not isinstance(level, str) or level not in LEVELS:
            raise ProtocolError("bad_level")
        confirmed = data.get("confirmed", False)
        if not isinstance(confirmed, bool):
            raise _missing("confirmed")
        return Takeover(level, confirmed)
    if kind == "rematch":
        return Rematch()
    if kind == "ping":
        return Ping()
    if kind == "watch":
        code = data.get("code")
        if (
            not isinstance(code, str)
            or len(code) > MAX_WATCH_CODE
            or not is_plain(normalize_watch_code(code) or " ")
        ):
            raise _missing("code")
        since = None if data.get("since") is None else _int_field(data, "since")
        return WatchMsg(normalize_watch_code(code), since)
    if kind == "react":
        react_id = None if data.get("id") is None else plain_field(data, "id", MAX_ID)
        reaction = data.get("reaction")
        if reaction is None:
            raise ProtocolError(
                "missing_field", "Falta el dato «reaction» o no es válido.", id=react_id
            )
        if not isinstance(reaction, str) or reaction not in REACTIONS:
            raise ProtocolError("bad_reaction", id=react_id)
        return React(reaction, react_id)
    raise ProtocolError("unknown_type")


def message_id(text: str | bytes) -> str | None:
    """The ``id`` of a frame that is refused before it is read (rate limit), if it has a
    valid one: every answer to a message with an id carries it back."""
    try:
        data = loads(text)
    except (ValueError, TypeError):
        return None
    if not isinstance(data, dict):
        return None
    try:
        return plain_field(data, "id", MAX_ID)
    except ProtocolError:
        return None


# -- server → client ----------------------------------------------------------------------

Json = dict[str, Any]
Raw = orjson.Fragment  # JSON text already encoded (an event of the room's history, a view)


@dataclass(frozen=True, slots=True)
class Welcome:
    room: str
    seat: int
    seq: int
    view: Json
    events: list[tuple[int, Raw]]  # (seq, event) after the client's ``since``


@dataclass(frozen=True, slots=True)
class Events:
    """One change: the events of a move (or a rematch) with the seat's view after it; the
    mover's copy carries its move ``id`` and is its acknowledgement."""

    seq: int
    events: list[Raw]
    view: Json | Raw
    id: str | None = None


@dataclass(frozen=True, slots=True)
class Ack:
    """The answer to a move id already played (a retry)."""

    id: str
    seq: int


@dataclass(frozen=True, slots=True)
class State:
    """A view change that is not a move: a join, a takeover beginning or ending, a rematch
    asked."""

    seq: int
    view: Json


@dataclass(frozen=True, slots=True)
class Presence:
    seat: int
    presence: Json


@dataclass(frozen=True, slots=True)
class Error:
    code: str
    message: str
    id: str | None = None
    reason: str | None = None


@dataclass(frozen=True, slots=True)
class SeatMoved:
    pass


@dataclass(frozen=True, slots=True)
class Pong:
    pass


@dataclass(frozen=True, slots=True)
class Watching:
    """A watcher's welcome: the watcher view (``Room.view_for_watcher``) and the events
    after its ``since``."""

    room: str
    seq: int
    view: Json
    events: list[tuple[int, Raw]]


@dataclass(frozen=True, slots=True)
class Watchers:
    """How many are watching the room now (to the seats and the watchers)."""

    count: int


@dataclass(frozen=True, slots=True)
class Reaction:
    """A seat's quick reaction (to the other seat and the watchers; never stored)."""

    seat: int
    reaction: str


ServerMessage = (
    Welcome
    | Events
    | Ack
    | State
    | Presence
    | Error
    | SeatMoved
    | Pong
    | Watching
    | Watchers
    | Reaction
)


def _json(message: ServerMessage) -> Json:
    match message:
        case Welcome(room, seat, seq, view, events):
            return {
                "type": "welcome",
                "room": room,
                "seat": seat,
                "seq": seq,
                "view": view,
                "events": [{"seq": n, "event": e} for n, e in events],
            }
        case Events(seq, events, view, move_id):
            data: Json = {"type": "events", "seq": seq, "events": events, "view": view}
            if move_id is not None:
                data["id"] = move_id
            return data
        case Ack(move_id, seq):
            return {"type": "ack", "id": move_id, "seq": seq}
        case State(seq, view):
            return {"type": "state", "seq": seq, "view": view}
        case Presence(seat, presence):
            return {"type": "presence", "seat": seat, "presence": presence}
        case Error(code, text, move_id, reason):
            data = {"type": "error", "code": code, "message": text}
            if move_id is not None:
                data["id"] = move_id
            if reason is not None:
                data["reason"] = reason
            if code in FATAL_CODES:
                data["fatal"] = True
            return data
        case SeatMoved():
            return {"type": "seat_moved"}
        case Pong():
            return {"type": "pong"}
        case Watching(room, seq, view, events):
            return {
                "type": "watching",
                "room": room,
                "seq": seq,
                "view": view,
                "events": [{"seq": n, "event": e} for n, e in events],
            }
        case Watchers(count):
            return {"type": "watchers", "count": count}
        case Reaction(seat, reaction):
            return {"type": "reaction", "seat": seat, "reaction": reaction}


def encode(message: ServerMessage) -> str:
    """THE encoder of server messages: compact UTF-8 JSON text (orjson)."""
    return dumps(_json(message))


def dumps(value: Any) -> str:
    """Compact JSON text (UTF-8, not escaped): orjson, several times faster than ``json``
    on the hot path where every move sends each seat its view."""
    return orjson.dumps(value).decode()


def raw(value: Any) -> Raw:
    """``value`` encoded once, to be spliced into messages without encoding it again."""
    return orjson.Fragment(orjson.dumps(value))
