"""The commands a room's actor handles, one closed set (``Command``), and the wire form of
those that may come from another process (``to_payload`` / ``from_payload``: the class's
wire name and its fields as JSON-able data)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, get_type_hints

from ..cluster import Payload
from ..engine import Move
from ..store import RejoinCode


@dataclass(frozen=True, slots=True)
class Start:
    """The first command of a loaded room: a seat stored as here has no socket now."""


@dataclass(frozen=True, slots=True)
class Attach:
    """A socket ``conn`` says hello to the seat (``since``: the last seq it saw)."""

    seat: int
    conn: str
    since: int | None


@dataclass(frozen=True, slots=True)
class Detach:
    """The seat's socket ``conn`` closed."""

    seat: int
    conn: str


@dataclass(frozen=True, slots=True)
class Submit:
    """A person's move, decided from ``seq``, with the client's move id."""

    seat: int
    move: Move
    seq: int
    id: str


@dataclass(frozen=True, slots=True)
class Takeover:
    """The seat's player asks the computer to play an absent friend's seat (``target``;
    None: the one absent seat out of grace, as a room of two always had)."""

    seat: int
    level: str
    confirmed: bool = False  # por turnos: the player asked for it in so many words
    target: int | None = None


@dataclass(frozen=True, slots=True)
class Rematch:
    """The seat's player asks for another match."""

    seat: int


@dataclass(frozen=True, slots=True)
class Join:
    """The friend sits in the chair ``seat`` (None: the first free one); ``name`` None:
    named after the seat; ``key_hash``: the join request's retry key. Answers the seat, or
    one of ``JOIN_REFUSED``'s numbers (None: no such room)."""

    name: str | None
    token_hash: str
    key_hash: str | None
    seat: int | None = None


# Join's answers that are not a seat, by the error they are
FULL, FULL_FOUR, SEAT_TAKEN, BAD_SEAT = -1, -2, -3, -4
JOIN_REFUSED: dict[int, tuple[str, str | None]] = {
    FULL: ("room_full", None),
    FULL_FOUR: ("room_full", "error.room_full.four"),
    SEAT_TAKEN: ("seat_taken", None),
    BAD_SEAT: ("bad_seat", None),
}


@dataclass(frozen=True, slots=True)
class GiveChair:
    """The creator (``seat``) gives the free chair ``chair`` to the computer at ``level``,
    while the table waits."""

    seat: int
    chair: int
    level: str


@dataclass(frozen=True, slots=True)
class MoveSeat:
    """A rejoin code was used: the seat's token becomes ``token_hash``."""

    code: RejoinCode
    token_hash: str
    key_hash: str | None


@dataclass(frozen=True, slots=True)
class ComputerDue:
    """Time for the computer to think about the turn that began at ``seq`` (a timer)."""

    seq: int


@dataclass(frozen=True, slots=True)
class ComputerMove:
    """The computer's decision for the turn that began at ``seq``."""

    seq: int
    move: Move


@dataclass(frozen=True, slots=True)
class StallCheck:
    """The turn that began at ``seq`` has lasted ``stall_seconds``."""

    seq: int


@dataclass(frozen=True, slots=True)
class IdleCheck:
    """Nobody has listened to the room for ``ROOM_IDLE`` seconds since ``generation``."""

    generation: int


@dataclass(frozen=True, slots=True)
class HandoffCheck:
    """The room has been quiet since ``generation`` with all its listeners on one other
    process: time to let that process have it (a timer)."""

    generation: int


@dataclass(frozen=True, slots=True)
class Summary:
    """The room's public summary (``GET /api/rooms/{room}``)."""


@dataclass(frozen=True, slots=True)
class Snapshot:
    """The room's state as held (tests compare it with what storage rebuilds)."""


@dataclass(frozen=True, slots=True)
class Watch:
    """A watcher's connection ``conn`` starts watching (``since``: the last seq it saw)."""

    conn: str
    since: int | None


@dataclass(frozen=True, slots=True)
class Unwatch:
    conn: str


@dataclass(frozen=True, slots=True)
class TellWatchers:
    """Time to tell the seats and watchers how many watch (a timer)."""


@dataclass(frozen=True, slots=True)
class React:
    """A seat's quick reaction (one of ``protocol.REACTIONS``)."""

    seat: int
    reaction: str


Command = (
    Start | Attach | Detach | Submit | Takeover | Rematch | Join | MoveSeat | GiveChair
    | ComputerDue
    | ComputerMove | StallCheck | IdleCheck | HandoffCheck | Summary | Snapshot | Watch
    | Unwatch | TellWatchers | React
)  # fmt: skip

# the commands that come from outside the room, and may come from another process, by
# their name on the wire (the names of older releases: a rolling deploy mixes releases)
WIRE_NAMES: dict[type[Any], str] = {
    Attach: "Attach", Detach: "Detach", Submit: "Submit", Takeover: "TakeoverCmd",
    Rematch: "RematchCmd", Join: "Join", MoveSeat: "MoveSeat", Summary: "Summary",
    Watch: "Watch", Unwatch: "Unwatch", React: "ReactCmd", GiveChair: "GiveChair",
}  # fmt: skip
_BY_WIRE_NAME = {name: cls for cls, name in WIRE_NAMES.items()}


_FIELD_TYPES = {cls: get_type_hints(cls) for cls in WIRE_NAMES}


def to_payload(command: Command) -> Payload:
    """A routed command as JSON-able data (its wire name and fields)."""
    fields: dict[str, Any] = {}
    for f in dataclasses.fields(command):
        value = getattr(command, f.name)
        if isinstance(value, Move):
            value = value.to_text()
        elif dataclasses.is_dataclass(value) and not isinstance(value, type):
            value = dataclasses.asdict(value)
        fields[f.name] = value
    return {"type": WIRE_NAMES[type(command)], "fields": fields}


def from_payload(data: Payload) -> Command:
    """The command of ``to_payload``'s data; ValueError for anything else."""
    cls = _BY_WIRE_NAME.get(data.get("type", ""))
    if cls is None:
        raise ValueError(f"not a routed command: {data.get('type')!r}")
    types = _FIELD_TYPES[cls]
    fields = dict(data["fields"])
    for name, value in fields.items():
        if types.get(name) is Move:
            fields[name] = Move.parse(value)
        elif types.get(name) is RejoinCode:
            fields[name] = RejoinCode(**value)
    command: Command = cls(**fields)
    return command
