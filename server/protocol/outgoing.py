"""Server → client: typed messages (``ServerMessage``), written by ``encode`` and nothing
else. Events and views already encoded (a room keeps its history as text) travel as
``orjson.Fragment`` and are not encoded again."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import orjson

# -- server → client ----------------------------------------------------------------------

# errors after which the socket is closed and this device cannot use that seat or watch
# link again (docs/protocol.md: "fatal": true); the client keeps no list of its own
FATAL_CODES = frozenset({"bad_token", "bad_origin", "watch_unknown", "watchers_full", "old_client"})

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
    args: Mapping[str, object] | None = None  # the values the message was worded with


@dataclass(frozen=True, slots=True)
class SeatMoved:
    """This socket no longer holds the seat: ``rejoined`` when a rejoin code moved it to
    another device (this token no longer works), else the same token said hello elsewhere
    (another tab, a reload: the token still works)."""

    rejoined: bool = False


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
        case Error(code, text, move_id, reason, args):
            data = {"type": "error", "code": code, "message": text}
            if move_id is not None:
                data["id"] = move_id
            if reason is not None:
                data["reason"] = reason
            if args:
                data["args"] = dict(args)
            if code in FATAL_CODES:
                data["fatal"] = True
            return data
        case SeatMoved(rejoined):
            return {"type": "seat_moved", "rejoined": rejoined}
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
