"""A room's whole state as plain frozen values: everything that decides what happens next,
as stored (``storage.py``) and as held by the room's actor (``rooms.py``). The match itself
is not here: it is the seed plus the stored moves (``Match.replay``).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal

Mode = Literal["computer", "friend"]
PresenceKind = Literal["arriving", "here", "away"]


@dataclass(frozen=True, slots=True)
class SeatState:
    """A person's seat: ``presence`` is "arriving" (not connected since the seat was
    taken), "here" or "away", since ``since`` (epoch seconds; the grace period counts from
    there); ``takeover`` the computer level playing it for now; ``rematch`` whether its
    player asked for another match."""

    presence: PresenceKind = "arriving"
    since: float | None = None
    takeover: str | None = None
    rematch: bool = False


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
    names: tuple[str, str | None]  # seat 1 is None until the friend joins
    invite: str | None
    seats: tuple[SeatState, SeatState]
    # por turnos (friend rooms): played over days; no stall check, and the seat of a friend
    # who left goes to the computer only when the other asks for it (docs/protocol.md)
    turns: bool = False
    watch: str | None = None  # the watch link's code (/v/<code>): set when the room is made

    def seat(self, seat: int) -> SeatState:
        return self.seats[seat]

    def with_seat(self, seat: int, state: SeatState) -> RoomState:
        seats = (state, self.seats[1]) if seat == 0 else (self.seats[0], state)
        return replace(self, seats=seats)

    def computer_seat(self, seat: int) -> bool:
        """The seat is the computer's own (a computer room's seat 1)."""
        return self.mode == "computer" and seat == 1
