"""A finished match told again, move by move, from its stored log alone: its seed and its
moves, played again (``rooms.history.replay``). The match is over, so both hands are shown
(``rooms.views.replay_position``); an unfinished match is never told (``NotFinished``).

Pure: ``build_replay(stored)`` is a plain value, ready for JSON.
"""

from __future__ import annotations

from typing import Any

from ..engine import Match, Move
from ..protocol.names import is_given
from ..rooms.facts import CATEGORIES_ES
from ..rooms.history import replay
from ..rooms.views import replay_position
from ..store import StoredMatch


class NotFinished(Exception):
    """The stored moves do not end the match: nothing of it may be shown."""


def build_replay(stored: StoredMatch) -> dict[str, Any]:
    """Step 0 is the first deal; step i the table after the match's i-th move, with that
    move's events (docs/protocol.md, "Event E")."""
    if not stored.finished:
        raise NotFinished(stored.room_id)
    seat_count = len(stored.names)
    match = Match.new(stored.seed, seat_count)
    steps: list[dict[str, Any]] = [{"events": [], "position": replay_position(match)}]
    moves = ((seat, Move.parse(text), computer) for seat, text, computer in stored.moves)
    for played in replay(stored.seed, moves, seat_count):
        match = played.after
        steps.append({"events": played.events(), "position": replay_position(match)})
    if not match.finished:  # the room says it is over but its log does not: tell nothing
        raise NotFinished(stored.room_id)
    return {
        "match": stored.match_no,
        "names": list(stored.names),
        "named": [is_given(name, seat) for seat, name in enumerate(stored.names)],
        "mode": stored.mode,
        "level": stored.level,
        "kinds": ["person" if level is None else "computer" for level in stored.computers],
        "levels": list(stored.computers),  # per seat: a computer chair's level, else None
        "winner": match.winner,
        "scores": list(match.scores),
        "categories": CATEGORIES_ES,
        "steps": steps,
    }
