"""Client → server: one closed set of typed messages (``ClientMessage``), read by
``parse_client`` and nothing else. Every string is checked as text (type, length, valid
Unicode) before it reaches a room or the database."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, TypeGuard

import orjson

from ..ai import LEVELS
from ..engine import EngineError, Move
from ..engine.seats import SEAT_COUNTS
from .errors import ProtocolError

MAX_ID = 64
MAX_TOKEN = 128
MAX_WATCH_CODE = 32  # a watch code is 12 characters; room for separators a person typed

# the quick reactions: a closed set (no free text, so nothing to moderate), id -> what the
# other seat and the watchers read (client/js/ui/reactions.js shows the same texts)
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
MAX_SEQ = 2**53  # exclusive: what a JavaScript number holds exactly


# -- text checks --------------------------------------------------------------------------


def is_plain(value: str) -> bool:
    """Printable ASCII without spaces: what tokens, codes, keys and move ids are made of."""
    return value.isascii() and value.isprintable() and " " not in value


def is_token(raw: object) -> TypeGuard[str]:
    """A seat token's shape, wherever one comes in (a ``hello``, an HTTP body): 1..MAX_TOKEN
    characters of printable ASCII."""
    return isinstance(raw, str) and 0 < len(raw) <= MAX_TOKEN and is_plain(raw)


def plain_field(data: dict[str, Any], name: str, max_len: int) -> str:
    """A required string field of printable ASCII, 1..max_len characters."""
    value = data.get(name)
    if not isinstance(value, str) or not 0 < len(value) <= max_len or not is_plain(value):
        raise _missing(name)
    return value


def _missing(name: str) -> ProtocolError:
    return ProtocolError("missing_field", "error.missing_field.named", args={"field": name})


def _int_field(data: dict[str, Any], name: str) -> int:
    value = data.get(name)
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < MAX_SEQ:
        raise _missing(name)
    return value


def loads(text: str | bytes) -> Any:
    """JSON text to values. Refuses invalid UTF-8, lone surrogates and nesting deeper than
    orjson's limit (1024) with ``ValueError``, never with a crash."""
    return orjson.loads(text)


# -- client → server ----------------------------------------------------------------------

# the version of this protocol: a client says which it speaks in ``hello`` and ``watch``; one
# that speaks an older one (a page or service worker cached before a change of the wire) is
# told ``old_client`` and reloads, never fed frames it cannot read. 2: seats and teams as
# lists (the view's ``opponent`` fields went; tables of four). 3: a move's ``events`` frame
# carries the view's move part alone (issue 31, the delta frame).
PROTOCOL_VERSION = 3


@dataclass(frozen=True, slots=True)
class Hello:
    token: str
    since: int | None
    lang: str | None = None  # the language the client speaks (issue 28), a BCP 47 tag
    version: int = 0  # the protocol the client speaks (``PROTOCOL_VERSION``; 0: none said)

    @property
    def old(self) -> bool:
        """The client speaks an older protocol than this server's: it must reload."""
        return self.version < PROTOCOL_VERSION


@dataclass(frozen=True, slots=True)
class MoveMsg:
    move: Move
    seq: int
    id: str


@dataclass(frozen=True, slots=True)
class TakeoverMsg:
    level: str
    confirmed: bool = False  # por turnos: asked for in so many words (docs/protocol.md)
    seat: int | None = None  # the absent friend's seat (None: the one absent seat)


@dataclass(frozen=True, slots=True)
class GiveChairMsg:
    """The table's creator gives a free chair to the computer while the table waits."""

    seat: int
    level: str
    id: str | None


@dataclass(frozen=True, slots=True)
class RematchMsg:
    pass


@dataclass(frozen=True, slots=True)
class Ping:
    pass


@dataclass(frozen=True, slots=True)
class WatchMsg:
    """The first message of a watcher (instead of ``hello``): the watch link's code."""

    code: str
    since: int | None
    lang: str | None = None
    version: int = 0

    @property
    def old(self) -> bool:
        return self.version < PROTOCOL_VERSION


@dataclass(frozen=True, slots=True)
class ReactMsg:
    """A quick reaction from a seat (``id`` optional: an error about it carries it)."""

    reaction: str
    id: str | None


ClientMessage = (
    Hello | MoveMsg | TakeoverMsg | GiveChairMsg | RematchMsg | Ping | WatchMsg | ReactMsg
)


def _version_field(data: dict[str, Any]) -> int:
    """``hello``'s and ``watch``'s ``version``: absent (a client of before it) is 0."""
    version = data.get("version", 0)
    if not isinstance(version, int) or isinstance(version, bool) or not 0 <= version < 2**31:
        raise _missing("version")
    return version


def _seat_field(data: dict[str, Any], name: str = "seat") -> int:
    value = data.get(name)
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < max(SEAT_COUNTS):
        raise ProtocolError("bad_seat")
    return value


def normalize_watch_code(text: str) -> str:
    """A watch code as stored: capitals, without the spaces or dashes a person may type
    (still to be checked as plain text)."""
    return "".join(ch for ch in text.upper() if ch not in " -_")


MAX_LANG = 35  # a BCP 47 tag as browsers send them ("es-DO", "en-US")


def _lang_field(data: dict[str, Any]) -> str | None:
    """``hello``'s and ``watch``'s optional ``lang``: the language the player reads."""
    if data.get("lang") is None:
        return None
    return plain_field(data, "lang", MAX_LANG)


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
        token = data.get("token")
        if not is_token(token):
            raise _missing("token")
        since = None if data.get("since") is None else _int_field(data, "since")
        return Hello(token, since, _lang_field(data), _version_field(data))
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
        seat = None if data.get("seat") is None else _seat_field(data)
        return TakeoverMsg(level, confirmed, seat)
    if kind == "give_chair":
        give_id = None if data.get("id") is None else plain_field(data, "id", MAX_ID)
        try:
            seat = _seat_field(data)
            level = data.get("level")
            if not isinstance(level, str) or level not in LEVELS:
                raise ProtocolError("bad_level")
        except ProtocolError as exc:
            exc.id = give_id
            raise
        return GiveChairMsg(seat, level, give_id)
    if kind == "rematch":
        return RematchMsg()
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
        return WatchMsg(normalize_watch_code(code), since, _lang_field(data), _version_field(data))
    if kind == "react":
        react_id = None if data.get("id") is None else plain_field(data, "id", MAX_ID)
        reaction = data.get("reaction")
        if reaction is None:
            raise ProtocolError(
                "missing_field",
                "error.missing_field.named",
                args={"field": "reaction"},
                id=react_id,
            )
        if not isinstance(reaction, str) or reaction not in REACTIONS:
            raise ProtocolError("bad_reaction", id=react_id)
        return ReactMsg(reaction, react_id)
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
