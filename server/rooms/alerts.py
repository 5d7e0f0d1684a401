"""What a room tells by Web Push (``RoomDeps.push``), and to whom: only a friend room's
person seat whose player has no open socket (a connected page says it itself) and whose
turn the computer is not playing. Called where the event happens (``play.apply``: the turn
passes; ``friends.join``: the invited friend came; ``rematch.ask``: a rematch is offered,
or starts), always after the write and the telling, so a push can never delay or fail a
move: ``Pusher.tell`` returns at once."""

from __future__ import annotations

from ..engine.seats import others
from ..protocol.names import is_given
from ..push import Kind, PushEvent
from .actor import Room


def alert(room: Room, seat: int, kind: Kind, about: int) -> None:
    """Tells ``seat`` of ``kind`` by push (``about``: the seat whose name the text says)."""
    state = room.state
    name = state.names[about]
    if (
        state.mode != "friend"
        or state.computer_seat(seat)
        or room.sockets.of(seat) is not None
        or state.seats[seat].takeover is not None
        or name is None
    ):
        return
    given = name if is_given(name, about) else None  # else worded in the seat's language
    computer = state.computer_seat(about)
    room.deps.push.tell(
        PushEvent(state.id, seat, kind, state.seq, room.epoch, given, about, computer)
    )


def turn(room: Room) -> None:
    """The turn is the seat's now (after a move, or as a match starts): "your game with"
    the seat that played before it."""
    if room.status == "playing":
        seat = room.match.position.turn
        alert(room, seat, "turn", others(seat, room.state.seat_count)[-1])


def rematch(room: Room, asker: int) -> None:
    """``asker`` asked for a rematch: it started (the seat to move is told it is their
    turn), or waits for the others (each told that it is offered, unless they asked)."""
    if room.status == "playing":
        turn(room)
        return
    for seat in others(asker, room.state.seat_count):
        if not room.state.seats[seat].rematch:
            alert(room, seat, "rematch", asker)
