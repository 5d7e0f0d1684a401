"""Another match: asked by a seat (``ask``), started once every seat wants it
(``maybe_start``; a seat the computer plays always does)."""

from __future__ import annotations

import secrets
from dataclasses import replace

from ..engine import Match
from ..protocol import ProtocolError
from ..store import FinishedMatch
from . import alerts
from .actor import Room
from .facts import rematch_event
from .views import wants_rematch


async def ask(room: Room, seat: int) -> None:
    if room.status != "finished":
        raise ProtocolError("not_over")
    seat_state = room.state.seats[seat]
    if not seat_state.rematch:
        await room.write(room.state.with_seat(seat, replace(seat_state, rematch=True)))
    if not await maybe_start(room):
        await room.send_state()
    alerts.rematch(room, seat)


async def maybe_start(room: Room) -> bool:
    """Starts the next match when the match is over and every seat wants it."""
    state = room.state
    if room.status != "finished" or not all(
        wants_rematch(state, s) for s in range(state.seat_count)
    ):
        return False
    seed = secrets.token_hex(16)
    start = state.seq + 1
    finished = FinishedMatch(
        state.match_no, state.seed, room.match.winner, room.match.scores,
        state.match_start_seq + 1, state.seq,
    )  # fmt: skip
    seats = tuple(replace(seat, rematch=False) for seat in state.seats)
    new = replace(
        state, seed=seed, match_no=state.match_no + 1, match_start_seq=start, seq=start,
        seats=seats,
    )  # fmt: skip
    await room.write(new, match=Match.new(seed, state.seat_count), finished=finished)
    event = rematch_event(room.state.match_no)
    room.live.rematched(start, event)
    await room.broadcast(start, [event], None, None, whole=True)  # a new match: whole views
    return True
