"""Moves: a person's move (``submit``: checked, played with the engine, stored, then told;
every move id answered once and the same way again), and the computer's turn (scheduled,
decided off the room's loop by ``RoomDeps.choose``, played as a command of its own)."""

from __future__ import annotations

import asyncio
from dataclasses import replace

from ..engine import IllegalMove, Move
from ..protocol import ProtocolError, dumps
from ..store import MoveRecord
from . import alerts, history, presence
from .actor import Room
from .commands import ComputerDue, ComputerMove
from .facts import step_events
from .live import READS_PLAYS, reads_plays


async def submit(room: Room, seat: int, move: Move, seq: int, move_id: str) -> str | None:
    """A person's move: the answer for the sender (a known id's answer, or an error) as
    text; None when the move was played (its events frame, sent already, is the ack)."""
    answered = room.live.answers.get(seat, move_id)
    if answered is not None:
        return answered
    await presence.back(room, seat)
    try:
        if room.status == "waiting":
            raise ProtocolError("waiting_for_friend")
        if room.status == "finished":
            raise ProtocolError("match_over")
        if room.match.position.turn != seat:
            raise ProtocolError("not_your_turn")
        if seq != room.state.seq:
            raise ProtocolError("stale")
        try:
            new_seq = await apply(room, seat, move, move_id)
        except IllegalMove as exc:
            # worded from the catalogs with the refusal's arguments, in each player's language
            raise ProtocolError("illegal", reason=exc.code, args=exc.reason_args) from None
    except ProtocolError as exc:
        exc.id = move_id
        answer = exc.to_text()
        room.live.answers.remember(seat, move_id, answer)
        return answer
    room.live.answers.remember(seat, move_id, new_seq)
    return None


async def apply(room: Room, seat: int, move: Move, move_id: str | None) -> int:
    """Plays, commits, then tells. Raises IllegalMove with nothing changed."""
    before = room.match
    after, step = before.play(move)
    seq = room.state.seq + 1
    # the move as stored: ``Move.to_text``'s text (compact JSON, ASCII), by the faster encoder
    record = MoveRecord(seq, room.state.match_no, seat, dumps(move.to_json()), move_id)
    await room.write(replace(room.state, seq=seq), match=after, move=record)
    # committed: now it happened
    events = step_events(step, seat, before, after, computer=move_id is None)
    texts = [dumps(e) for e in events]
    keep = reads_plays(room.state)
    room.live.played(room.state.match_no, seq, seat, move, before, events, texts, keep)
    await room.broadcast(seq, texts, seat, move_id)
    alerts.turn(room)
    return seq


def computer_level(room: Room) -> str | None:
    """The level of the computer that must move now, if any."""
    if room.status != "playing" or room.match.position.hand_over:
        return None
    return room.state.level_of(room.match.position.turn)


def schedule_computer(room: Room) -> None:
    if room.stopped or computer_level(room) is None or not room.timers.due(room.state.seq):
        return
    room.after(room.deps.settings.computer_delay, ComputerDue(room.state.seq))


def think(room: Room, seq: int) -> None:
    """Starts the computer's decision off the room's loop; its move comes back as a
    command."""
    level = computer_level(room)
    if level is None or seq != room.state.seq:
        return
    position, seed = room.match.position, f"{room.state.seed}:{seq}"
    seen = room.live.plays.of(room.state.match_no, room.match)
    state, storage = room.state, room.deps.storage

    async def decide() -> None:
        plays = seen
        if plays is None and level in READS_PLAYS:  # not all kept: a takeover mid-hand
            records = await storage.rooms.load_moves(state.id, state.match_start_seq)
            plays = await asyncio.to_thread(history.hand_plays, state, records)
        move = await room.deps.choose(level, position, seed, plays or ())
        room.post(ComputerMove(seq, move))

    room.timers.think(decide())


async def computer_move(room: Room, seq: int, move: Move) -> None:
    """The computer's decision (legal: the chooser checks it, server/ai/pool.py)."""
    if computer_level(room) is None or seq != room.state.seq:
        return
    await apply(room, room.match.position.turn, move, None)
