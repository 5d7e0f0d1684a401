"""A seat's sockets and presence: a loaded room's first look at its seats, a socket saying
hello (``attach``) or closing (``detach``), a seat coming back to play, a friend who stays
connected but does not play (the stall check), and a room nobody listens to leaving memory.
"""

from __future__ import annotations

from dataclasses import replace

from ..protocol import CLOSE_SEAT_MOVED, ProtocolError, SeatMoved, Welcome
from . import views
from .actor import Room
from .commands import IdleCheck, StallCheck
from .stops import IDLE


async def start(room: Room) -> None:
    """The first command of a loaded room: a seat stored as here has no socket now."""
    new = room.state
    now = room.deps.clock()
    for seat, seat_state in enumerate(new.seats):
        if seat_state.presence == "here":  # its socket died with a process
            new = new.with_seat(seat, replace(seat_state, presence="away", since=now))
    if new != room.state:
        await room.write(new)
    moment = room.moment()
    for seat in range(room.state.seat_count):
        room.sockets.tell(seat, views.presence(moment, seat))
    idle_later(room)


async def attach(room: Room, seat: int, conn: str, since: int | None) -> bool:
    if not room.sockets.hello_allowed(seat):
        raise ProtocolError("rate_limited")
    old = room.sockets.of(seat)
    if old is not None and old != conn:
        await room.close(seat, SeatMoved(), CLOSE_SEAT_MOVED)
    seat_state = room.state.seats[seat]
    in_takeover = seat_state.takeover is not None
    back = replace(seat_state, presence="here", since=room.deps.clock(), takeover=None)
    if not room.state.computer_seat(seat) and (seat_state.presence != "here" or in_takeover):
        await room.write(room.state.with_seat(seat, back))
    room.sockets.attach(seat, conn)
    room.timers.next_idle()
    view = views.seat_view(room.moment(), seat)
    await room.send(
        seat, Welcome(room.id, seat, room.state.seq, view, await room.events_since(since))
    )
    await room.tell_presence()
    if in_takeover:  # the takeover ended: the others' views change (a state; the watchers'
        await room.send_state(but=seat)  # too: a move's frame no longer brings who plays)
    return True


async def detach(room: Room, seat: int, conn: str) -> None:
    if not room.sockets.detach(seat, conn):
        return  # replaced by a newer connection, or moved away: nothing changes
    seat_state = room.state.seats[seat]
    away = replace(seat_state, presence="away", since=room.deps.clock())
    await room.write(room.state.with_seat(seat, away))
    await room.tell_presence()
    idle_later(room)


async def back(room: Room, seat: int) -> None:
    """A seat whose socket is open plays again (after a stall, maybe a takeover)."""
    seat_state = room.state.seats[seat]
    if room.sockets.of(seat) is None or (
        seat_state.presence == "here" and seat_state.takeover is None
    ):
        return
    in_takeover = seat_state.takeover is not None
    here = replace(seat_state, presence="here", since=room.deps.clock(), takeover=None)
    await room.write(room.state.with_seat(seat, here))
    await room.tell_presence()
    if in_takeover:
        await room.send_state()


def schedule_stall(room: Room, computer_due: bool) -> None:
    """Watches the turn of a friend who is here: if it lasts ``stall_seconds``, the others
    are offered the seat as if they had left (``computer_due``: the computer plays this
    turn, nothing to watch)."""
    state = room.state
    if (
        room.stopped
        or state.mode != "friend"
        or state.turns
        or room.status != "playing"
        or computer_due
        or not room.timers.watch_stall(state.seq)
    ):
        return
    room.after(room.deps.settings.stall_seconds, StallCheck(state.seq), "stall")


async def stall_check(room: Room, seq: int, computer_due: bool) -> None:
    if seq != room.state.seq or room.status != "playing" or computer_due:
        return
    seat = room.match.position.turn
    seat_state = room.state.seats[seat]
    if seat_state.presence != "here":
        return
    # stored as away since a grace time ago: the others may hand the seat over now; the
    # friend's next move makes them here again
    since = room.deps.clock() - room.deps.settings.grace_seconds
    away = replace(seat_state, presence="away", since=since)
    await room.write(room.state.with_seat(seat, away))
    await room.tell_presence()


def idle_later(room: Room) -> None:
    """Leaves memory ``room_idle`` seconds after the last socket (a seat's or a watcher's)
    closed (the room is all in storage; the next visitor loads it again)."""
    if room.listened():
        return
    room.after(room.deps.settings.room_idle, IdleCheck(room.timers.next_idle()), "idle")


async def idle_check(room: Room, generation: int) -> None:
    if generation != room.timers.idle or room.listened():
        return
    if room.timers.thinking() is not None:
        idle_later(room)
        return
    await room.deps.stop(room, IDLE)
