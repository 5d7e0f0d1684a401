"""What a room tells by Web Push (``RoomDeps.push``), and to whom: only a friend room's
person seat whose player has no open socket (a connected page says it itself) and whose
turn the computer is not playing. Called where the event happens (``play.apply``: the turn
passes; ``friends.join``: the invited friend came; ``rematch.ask``: a rematch is offered,
or starts), always after the write and the telling, so a push can never delay or fail a
move: ``Pusher.tell`` returns at once."""

from __future__ import annotations

from ..push import Kind, PushEvent
from .actor import Room


def alert(room: Room, seat: int, kind: Kind) -> None:
    state = room.state
    if (
        state.mode != "friend"
        or room.conns[seat] is not None
        or state.seats[seat].takeover is not None
        or state.names[1 - seat] is None
    ):
        return
    name = state.names[1 - seat] or ""
    room.deps.push.tell(PushEvent(state.id, seat, kind, state.seq, room.epoch, name))


def turn(room: Room) -> None:
    """The turn is the seat's now (after a move, or as a match starts)."""
    if room.status == "playing":
        alert(room, room.match.position.turn, "turn")


def rematch(room: Room, asker: int) -> None:
    """``asker`` asked for a rematch: it started (the seat to move is told it is their
    turn), or waits for the other seat (told that it is offered)."""
    if room.status == "playing":
        turn(room)
    elif not room.state.seats[1 - asker].rematch:
        alert(room, 1 - asker, "rematch")
