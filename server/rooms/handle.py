"""THE handler of a room's commands: each command to the function of its job (``presence``,
``play``, ``friends``, ``rematch``, ``watchers``), and after each one the timers the room's
new state asks for (the computer's turn, a friend's stalled turn) and the stored wishes
that wait for a condition (a rematch both seats asked for)."""

from __future__ import annotations

from typing import Any, assert_never

from . import friends, handoff, play, presence, rematch, views, watchers
from .actor import Room
from .commands import (
    Attach,
    Command,
    ComputerDue,
    ComputerMove,
    Detach,
    GiveChair,
    HandoffCheck,
    IdleCheck,
    Join,
    MoveSeat,
    React,
    Rematch,
    Snapshot,
    StallCheck,
    Start,
    Submit,
    Summary,
    Takeover,
    TellWatchers,
    Unwatch,
    Watch,
)


async def handle(room: Room, command: Command) -> Any:
    result = await _dispatch(room, command)
    # a wish stored before a restart starts as soon as the room hears anything (both
    # seats asked for a rematch, then the process died before the new match began)
    await rematch.maybe_start(room)
    play.schedule_computer(room)
    presence.schedule_stall(room, play.computer_level(room) is not None)
    if isinstance(command, Join | MoveSeat):
        await handoff.release_unheard(room)  # claimed for an HTTP call: free for its sockets
    elif not isinstance(command, HandoffCheck):
        handoff.schedule(room)
    return result


async def _dispatch(room: Room, command: Command) -> Any:
    match command:
        case Start():
            return await presence.start(room)
        case Attach(seat, conn, since):
            return await presence.attach(room, seat, conn, since)
        case Detach(seat, conn):
            return await presence.detach(room, seat, conn)
        case Submit(seat, move, seq, move_id):
            return await play.submit(room, seat, move, seq, move_id)
        case ComputerDue(seq):
            return play.think(room, seq)
        case ComputerMove(seq, move):
            return await play.computer_move(room, seq, move)
        case StallCheck(seq):
            return await presence.stall_check(room, seq, play.computer_level(room) is not None)
        case IdleCheck(generation):
            return await presence.idle_check(room, generation)
        case HandoffCheck(generation):
            return await handoff.check(room, generation)
        case Join(name, token_hash, key_hash, chosen):
            return await friends.join(room, name, token_hash, key_hash, chosen)
        case GiveChair(seat, chair, level):
            return await friends.give_chair(room, seat, chair, level)
        case MoveSeat(code, token_hash, key_hash):
            return await friends.move_seat(room, code, token_hash, key_hash)
        case Takeover(seat, level, confirmed, target):
            return await friends.takeover(room, seat, level, confirmed, target)
        case Rematch(seat):
            return await rematch.ask(room, seat)
        case Watch(conn, since):
            return await watchers.watch(room, conn, since)
        case Unwatch(conn):
            return await watchers.unwatch(room, conn)
        case TellWatchers():
            return await watchers.tell_count(room)
        case React(seat, reaction):
            return await watchers.react(room, seat, reaction)
        case Summary():
            return views.summary(room.moment())
        case Snapshot():
            return room.state
        case _:
            assert_never(command)
