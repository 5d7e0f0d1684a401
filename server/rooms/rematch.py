"""Another match: asked by a seat (``ask``), started once both seats want it
(``maybe_start``; a seat the computer plays always does)."""

from __future__ import annotations

import secrets
from dataclasses import replace

from ..engine import Match
from ..protocol import ProtocolError
from ..store import FinishedMatch
from . import alerts
from .actor import Room
from .history import rematch_event
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
    """Starts the next match when the match is over and both seats want it."""
    state = room.state
    if room.status != "finished" or not all(wants_rematch(state, s) for s in (0, 1)):
        return False
    seed = secrets.token_hex(16)
    start = state.seq + 1
    finished = FinishedMatch(
        state.match_no, state.seed, room.match.winner, room.match.scores,
        state.match_start_seq + 1, state.seq,
    )  # fmt: skip
    seats = (replace(state.seats[0], rematch=False), replace(state.seats[1], rematch=False))
    match = Match.new(seed)
    new = replace(
        state, seed=seed, match_no=state.match_no + 1, match_start_seq=start, seq=start,
        seats=seats,
    )  # fmt: skip
    await room.write(new, match=match, finished=finished)
    room.match = match
    event = rematch_event(room.state.match_no)
    room.events = [(start, event)]
    room.last_move = None
    await room.broadcast(start, [event], None, None)
    return True
