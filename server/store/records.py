"""What is stored, as plain frozen values: a room's whole state (``RoomState``: everything
that decides what happens next, as stored and as held by the room's actor), one write of a
room (``RoomWrite``), and the rows the other stores read and write. The match itself is not
here: it is the seed plus the stored moves (``Match.replay``).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Literal

Mode = Literal["computer", "friend"]
PresenceKind = Literal["arriving", "here", "away"]


CREATOR = 0  # the seat of the room's creator: the one seat never the computer's, first to play


@dataclass(frozen=True, slots=True)
class SeatState:
    """A seat, as its row stores it: ``presence`` is "arriving" (not connected since the
    seat was joined), "here" or "away", since ``since`` (epoch seconds; the grace period
    counts from there); ``takeover`` the computer level playing it for now; ``rematch``
    whether its player asked for another match; ``name`` who sits there (None: a friend's
    seat nobody joined yet); ``computer`` the level of the computer that holds this chair
    for good (made so with the room, or given by the creator while the table waited)."""

    presence: PresenceKind = "arriving"
    since: float | None = None
    takeover: str | None = None
    rematch: bool = False
    name: str | None = None
    computer: str | None = None


@dataclass(frozen=True, slots=True)
class RoomState:
    id: str
    mode: Mode
    level: str | None  # the computer's level (computer rooms)
    seed: str  # of the current match
    match_no: int
    match_start_seq: int  # the seq before this match's first move (its rematch event)
    seq: int  # the room's last numbered event
    version: int  # bumped by every write; writes are conditional on it
    invite: str | None
    seats: tuple[SeatState, ...]  # one per seat, in the order of play
    # por turnos (friend rooms): played over days; no stall check, and the seat of a friend
    # who left goes to the computer only when the other asks for it (docs/protocol.md)
    turns: bool = False
    watch: str | None = None  # the watch link's code (/v/<code>): set when the room is made

    @property
    def seat_count(self) -> int:
        return len(self.seats)

    @property
    def names(self) -> tuple[str | None, ...]:
        """Who sits in each seat (None: a friend's seat nobody joined yet)."""
        return tuple(seat.name for seat in self.seats)

    def with_seat(self, seat: int, state: SeatState) -> RoomState:
        seats = list(self.seats)
        seats[seat] = state
        return replace(self, seats=tuple(seats))

    def computer_seat(self, seat: int) -> bool:
        """The chair is the computer's own, for good (in a computer room of two, every seat
        but the creator's; at a table of four, the chairs its creator gave the computer)."""
        return self.seats[seat].computer is not None

    def level_of(self, seat: int) -> str | None:
        """The computer level playing ``seat`` now: its chair's, or a takeover's; None: a
        person plays it."""
        state = self.seats[seat]
        return state.computer or state.takeover

    def free_chairs(self) -> tuple[int, ...]:
        """The friend chairs nobody sat in yet."""
        return tuple(
            seat
            for seat, state in enumerate(self.seats)
            if state.name is None and state.computer is None
        )


@dataclass(frozen=True, slots=True)
class MoveRecord:
    seq: int
    match_no: int
    seat: int
    move: str  # NOTATION.md JSON text
    client_id: str | None


@dataclass(frozen=True, slots=True)
class FinishedMatch:
    match_no: int
    seed: str
    winner: int | None
    scores: tuple[int, ...]  # per team
    first_seq: int
    last_seq: int


@dataclass(frozen=True, slots=True)
class RejoinCode:
    id: int
    room_id: str
    seat: int
    expires_at: float
    used_at: float | None
    key_hash: str | None


@dataclass(frozen=True, slots=True)
class SeatToken:
    token_hash: str
    join_key_hash: str | None


@dataclass(frozen=True, slots=True)
class Owner:
    """Who holds a room: the process (None: nobody) and until when its lease runs, on the
    database's clock, and that clock's time when it was read."""

    node: str | None
    lease_until: float
    db_now: float = 0.0


@dataclass(frozen=True, slots=True)
class Listing:
    """What Mis partidas shows of a room without replaying it, as of a write: the seat to
    move (None unless playing) and the match scores."""

    turn: int | None
    scores: tuple[int, ...]  # per team


@dataclass(frozen=True, slots=True)
class SeatListing:
    """One seat's game, as stored (``Storage.list_seats``). ``scores`` None: the room was
    not written since the listing columns were added (rebuild it to know)."""

    token_hash: str
    room_id: str
    seat: int
    mode: str
    level: str | None
    turns: bool
    status: str
    names: tuple[str | None, ...]  # per seat, as are ``rematch`` and ``takeover``
    match_no: int
    turn: int | None
    scores: tuple[int, ...] | None  # per team
    last_move_at: float | None
    created_at: float
    rematch: tuple[bool, ...]
    takeover: tuple[str | None, ...]
    computers: tuple[str | None, ...] = ()  # per seat: the computer chair's level, or None


@dataclass(frozen=True, slots=True)
class StoredMatch:
    """A match as stored: its seed, its moves (seat, NOTATION.md text, whether the computer
    played it) and whether it is over by the room's own account (``ListingStore.match``)."""

    room_id: str
    match_no: int
    mode: str
    level: str | None
    names: tuple[str | None, ...]
    seed: str
    moves: tuple[tuple[int, str, bool], ...]
    finished: bool
    computers: tuple[str | None, ...] = ()  # per seat: the computer chair's level, or None


@dataclass(frozen=True, slots=True)
class RoomWrite:
    """One write of a room: ``room`` is its state after (``version`` one more than the
    version it was decided from), by the owner that claimed the room at ``epoch``: the
    database refuses it unless both still hold. ``seats`` are the seat rows to update from
    ``room``."""

    room: RoomState
    status: str
    seats: tuple[int, ...] = ()
    move: MoveRecord | None = None
    finished: FinishedMatch | None = None
    join: tuple[int, str, str | None] | None = (
        None  # a seat joined: (seat, token hash, join key hash)
    )
    new_token: tuple[int, str] | None = None  # a seat moved: (seat, new token hash)
    use_code: tuple[int, str | None] | None = None  # the rejoin code used: (id, key hash)
    epoch: int = field(kw_only=True)
    listing: Listing | None = None  # None: the listing columns are left as they are


class StaleRoom(Exception):
    """The room was written by someone else since this copy read it, or another process
    claimed it (a newer epoch): nothing written."""


class RejoinError(Exception):
    def __init__(self, code: str) -> None:
        super().__init__(code)
        self.code = code  # "code_unknown" | "code_expired" | "code_used"
