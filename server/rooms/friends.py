"""A friend's seat: joined by the friend (``join``, safe to retry by its key), moved to
another device by a rejoin code (``move_seat``), and handed to the computer while the
friend is away (``takeover``)."""

from __future__ import annotations

from dataclasses import replace

from ..engine.seats import others
from ..protocol import CLOSE_SEAT_MOVED, ProtocolError, SeatMoved
from ..store import CREATOR, RejoinCode, RejoinError, SeatState
from . import alerts, presence, rematch, views
from .actor import Room

FULL = -1  # no seat is free


async def join(room: Room, name: str, token_hash: str, key_hash: str | None) -> int:
    """Sits ``token_hash`` in the first free seat: the seat joined (now, or by this same
    request before: a retry), or ``FULL`` when every seat is someone else's."""
    state = room.state
    if state.mode != "friend":
        return FULL
    free = [s for s, seat in enumerate(state.seats) if seat.name is None]
    if not free:  # this same request again (its key makes the same token), or too late
        held_by = await room.deps.storage.seats.room_of(token_hash)
        if key_hash is None or held_by is None or held_by[0] != state.id:
            return FULL
        held = await room.deps.storage.seats.token(state.id, held_by[1])
        return held_by[1] if held is not None and held.join_key_hash == key_hash else FULL
    seat = free[0]
    new = state.with_seat(seat, SeatState("arriving", room.deps.clock(), name=name))
    await room.write(new, join=(seat, token_hash, key_hash))
    await room.send_state()
    await room.tell_presence()
    alerts.alert(room, CREATOR, "join", seat)
    return seat


async def move_seat(room: Room, code: RejoinCode, token_hash: str, key_hash: str | None) -> None:
    """A rejoin code was used: the seat's token becomes ``token_hash``."""
    seat = code.seat
    if code.used_at is not None:
        held = await room.deps.storage.seats.token(room.id, seat)
        if (
            key_hash is not None
            and code.key_hash == key_hash
            and held is not None
            and held.token_hash == token_hash
        ):
            return  # this same request, retried: the same answer
        raise RejoinError("code_used")
    seat_state = room.state.seats[seat]
    moved = (
        replace(seat_state, presence="arriving", since=room.deps.clock(), takeover=None)
        if seat_state.presence == "here"
        else seat_state
    )
    await room.write(
        room.state.with_seat(seat, moved),
        seats=(seat,),
        new_token=(seat, token_hash),
        use_code=(code.id, key_hash),
    )
    await room.close(seat, SeatMoved(rejoined=True), CLOSE_SEAT_MOVED)
    await room.tell_presence()
    presence.idle_later(room)


async def takeover(room: Room, seat: int, level: str, confirmed: bool = False) -> None:
    """``seat``'s player asks the computer (``level``) to play the other seat, whose friend
    is away and out of grace (a room of two: the other seat)."""
    other = others(seat, room.state.seat_count)[0]
    other_state = room.state.seats[other]
    if (
        room.state.mode != "friend"
        or room.status == "waiting"
        or other_state.presence == "here"
        or other_state.takeover is not None
    ):
        raise ProtocolError("not_absent")
    if views.grace_left(room.moment(), other, confirmed=confirmed) > 0:
        raise ProtocolError("turns_wait" if room.state.turns and not confirmed else "too_early")
    await room.write(room.state.with_seat(other, replace(other_state, takeover=level)))
    if not await rematch.maybe_start(room):
        await room.send_state()
    await room.tell_presence()
