"""A friend's seat: joined by the friend in the chair they chose (``join``, safe to retry by
its key), given to the computer by the table's creator while nobody sat there
(``give_chair``), moved to another device by a rejoin code (``move_seat``), and handed to the
computer while the friend is away (``takeover``)."""

from __future__ import annotations

from dataclasses import replace

from ..engine.seats import others
from ..protocol import CLOSE_SEAT_MOVED, ProtocolError, SeatMoved
from ..protocol.names import COMPUTER_NAME, default_name
from ..store import CREATOR, RejoinCode, RejoinError, SeatState
from . import alerts, presence, rematch, views
from .actor import Room
from .commands import BAD_SEAT, FULL, FULL_FOUR, SEAT_TAKEN


async def join(
    room: Room, name: str | None, token_hash: str, key_hash: str | None, chosen: int | None
) -> int:
    """Sits ``token_hash`` in the chair ``chosen`` (None: the first free one): the seat
    joined (now, or by this same request before: a retry), or why not (``FULL`` /
    ``FULL_FOUR`` when every chair is someone else's, ``SEAT_TAKEN``, ``BAD_SEAT``)."""
    state = room.state
    full = FULL if state.seat_count == 2 else FULL_FOUR
    if chosen is not None and not 0 < chosen < state.seat_count:
        return BAD_SEAT
    if key_hash is not None:  # this same request again (its key makes the same token)
        held_by = await room.deps.storage.seats.room_of(token_hash)
        if held_by is not None and held_by[0] == state.id:
            held = await room.deps.storage.seats.token(state.id, held_by[1])
            if held is not None and held.join_key_hash == key_hash:
                return held_by[1]
    free = state.free_chairs()
    if not free:
        return full
    if chosen is not None and chosen not in free:
        return SEAT_TAKEN
    seat = free[0] if chosen is None else chosen
    new = state.with_seat(
        seat, SeatState("arriving", room.deps.clock(), name=name or default_name(seat))
    )
    await room.write(new, join=(seat, token_hash, key_hash))
    await room.send_state()
    await room.tell_presence()
    if room.status == "playing":  # the last friend sat down: the creator leads
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


async def give_chair(room: Room, seat: int, chair: int, level: str) -> None:
    """The creator gives the chair nobody sat in to the computer, for good; the match starts
    when no friend's chair is left free. Giving it again at the same level is answered as
    the first time (a retry: the views again, nothing written), also once the match it
    started is under way."""
    state = room.state
    if seat != CREATOR:
        raise ProtocolError("not_creator")
    if not 0 < chair < state.seat_count:
        raise ProtocolError("bad_seat")
    if state.seats[chair].computer == level:
        await room.send_state()
        return
    if room.status != "waiting":
        raise ProtocolError("not_waiting")
    if chair not in state.free_chairs():
        raise ProtocolError("seat_taken")
    given = replace(state.seats[chair], name=COMPUTER_NAME, computer=level)
    await room.write(state.with_seat(chair, given))
    await room.send_state()
    await room.tell_presence()


def absent(room: Room, seat: int, target: int | None) -> int:
    """The friend's seat ``seat``'s player asks the computer to play: ``target``, or the one
    seat whose friend is away (a room of two: the other seat)."""
    state = room.state
    if target is not None:
        if not 0 <= target < state.seat_count or target == seat:
            raise ProtocolError("bad_seat")
        return target
    away = [
        s
        for s in others(seat, state.seat_count)
        if not state.computer_seat(s) and state.seats[s].presence != "here"
    ]
    return away[0] if away else others(seat, state.seat_count)[0]


async def takeover(
    room: Room, seat: int, level: str, confirmed: bool = False, target: int | None = None
) -> None:
    """``seat``'s player asks the computer (``level``) to play the seat ``target`` (None: the
    absent one), whose friend is away and out of grace."""
    other = absent(room, seat, target)
    other_state = room.state.seats[other]
    if (
        room.state.computer_seat(other)
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
