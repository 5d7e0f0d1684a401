"""A seat's sockets and presence: a loaded room's first look at its seats, a socket saying
hello (``attach``) or closing (``detach``), a seat coming back to play, a friend who stays
connected but does not play (the stall check), and a room nobody listens to leaving memory.
"""

from __future__ import annotations

from dataclasses import replace

from ..protocol import CLOSE_SEAT_MOVED, ProtocolError, SeatMoved, State, Welcome
from ..store import SeatState
from . import views
from .actor import Room
from .commands import IdleCheck, StallCheck

HELLO_WINDOW = 10.0  # seconds
HELLO_LIMIT = 12  # hellos per seat in a window: a reconnect loop cannot flood the other seat


async def start(room: Room) -> None:
    """The first command of a loaded room: a seat stored as here has no socket now."""
    new = room.state
    now = room.deps.clock()
    for seat in (0, 1):
        if new.seats[seat].presence == "here":  # its socket died with a process
            new = new.with_seat(seat, replace(new.seats[seat], presence="away", since=now))
    if new != room.state:
        await room.write(new)
    moment = room.moment()
    room.told = [views.presence(moment, 0), views.presence(moment, 1)]
    idle_later(room)


async def attach(room: Room, seat: int, conn: str, since: int | None) -> bool:
    hellos = room.hellos[seat]
    now = room.deps.clock()
    while hellos and hellos[0] < now - HELLO_WINDOW:
        hellos.popleft()
    if len(hellos) >= HELLO_LIMIT:
        raise ProtocolError("rate_limited")
    hellos.append(now)
    old = room.conns[seat]
    if old is not None and old != conn:
        await room.close(seat, SeatMoved(), CLOSE_SEAT_MOVED)
    seat_state = room.state.seats[seat]
    took_over = seat_state.takeover is not None
    back = SeatState("here", now, None, seat_state.rematch)
    if not room.state.computer_seat(seat) and (seat_state.presence != "here" or took_over):
        await room.write(room.state.with_seat(seat, back))
    room.conns[seat] = conn
    room.idle_generation += 1
    view = views.seat_view(room.moment(), seat)
    await room.send(seat, Welcome(room.id, seat, room.state.seq, view, room.events_since(since)))
    await room.tell_presence()
    if took_over:  # the takeover ended: the other seat's view changes (a state)
        other = 1 - seat
        if room.conns[other] is not None:
            view = views.seat_view(room.moment(), other)
            await room.send(other, State(room.state.seq, view))
    return True


async def detach(room: Room, seat: int, conn: str) -> None:
    if room.conns[seat] != conn:
        return  # replaced by a newer connection, or moved away: nothing changes
    room.conns[seat] = None
    seat_state = room.state.seats[seat]
    away = replace(seat_state, presence="away", since=room.deps.clock())
    await room.write(room.state.with_seat(seat, away))
    await room.tell_presence()
    idle_later(room)


async def back(room: Room, seat: int) -> None:
    """A seat whose socket is open plays again (after a stall, maybe a takeover)."""
    seat_state = room.state.seats[seat]
    if room.conns[seat] is None or (seat_state.presence == "here" and seat_state.takeover is None):
        return
    took_over = seat_state.takeover is not None
    here = replace(seat_state, presence="here", since=room.deps.clock(), takeover=None)
    await room.write(room.state.with_seat(seat, here))
    await room.tell_presence()
    if took_over:
        await room.send_state()


def schedule_stall(room: Room, computer_due: bool) -> None:
    """Watches the turn of a friend who is here: if it lasts ``stall_seconds``, the other
    player is offered the seat as if they had left (``computer_due``: the computer plays
    this turn, nothing to watch)."""
    state = room.state
    if (
        room.stopped
        or state.mode != "friend"
        or state.turns
        or room.status != "playing"
        or room.stall_due == state.seq
        or computer_due
    ):
        return
    room.stall_due = state.seq
    room.after(room.deps.settings.stall_seconds, StallCheck(state.seq))


async def stall_check(room: Room, seq: int, computer_due: bool) -> None:
    if seq != room.state.seq or room.status != "playing" or computer_due:
        return
    seat = room.match.position.turn
    seat_state = room.state.seats[seat]
    if seat_state.presence != "here":
        return
    # stored as away since a grace time ago: the other may hand the seat over now; the
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
    room.idle_generation += 1
    room.after(room.deps.settings.room_idle, IdleCheck(room.idle_generation))


def idle_check(room: Room, generation: int) -> None:
    if generation != room.idle_generation or room.listened():
        return
    if room.thinking is not None and not room.thinking.done():
        idle_later(room)
        return
    room.deps.forget(room, True)
