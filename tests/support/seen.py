"""What a frame shows and what was true: every card a message names (``cards_in``), and the
true positions of a room, replayed from its stored seed and move log (``positions``)."""

from __future__ import annotations

import contextlib
from typing import Any

from server.engine import Card, Match, Move, NotationError, Position
from tests.support.srvkit import ServerProc


def cards_in(value: Any) -> set[Card]:
    found: set[Card] = set()
    if isinstance(value, str):
        with contextlib.suppress(NotationError):
            found.add(Card.parse(value))
    elif isinstance(value, dict):
        for item in value.values():
            found |= cards_in(item)
    elif isinstance(value, list):
        for item in value:
            found |= cards_in(item)
    return found


def positions(server: ServerProc, room: str) -> tuple[list[Position], list[Move], list[int]]:
    """Position after each seq (index 0: the deal), the move and mover of each seq."""
    seed = server.db_rows("select seed from rooms where id = ?", room)[0][0]
    seat_count = len(server.db_rows("select seat from seats where room_id = ?", room))
    rows = server.db_rows("select seq, seat, move from moves where room_id = ? order by seq", room)
    match = Match.new(seed, seat_count)
    after = [match.position]
    played: list[Move] = [Move.trail("2h")]  # placeholder for seq 0
    movers = [-1]
    for seq, seat, text in rows:
        assert seq == len(after)
        move = Move.parse(text)
        match, _ = match.play(move)
        after.append(match.position)
        played.append(move)
        movers.append(seat)
    return after, played, movers
