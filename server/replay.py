"""A finished match told again, move by move, from its stored log alone: its seed and its
moves, played again with the engine (``Match.new(seed)`` then ``play``). The match is over,
so both hands are shown; an unfinished match is never told (``NotFinished``).

Pure: ``build_replay(stored)`` is a plain value, ready for JSON.
"""

from __future__ import annotations

from typing import Any

from .engine import Match, Move, Position
from .storage import StoredMatch
from .views import CATEGORIES_ES, step_events, tally


class NotFinished(Exception):
    """The stored moves do not end the match: nothing of it may be shown."""


def position_json(match: Match) -> dict[str, Any]:
    """Everything on the table at this point, both hands included; of the deck only its
    size (what is left of it at the end of a match was never dealt)."""
    p: Position = match.position
    return {
        "hands": [[c.code for c in hand] for hand in p.hands],
        "table": {
            "cards": [c.code for c in p.cards],
            "piles": [pile.to_json() for pile in p.piles],
        },
        "turn": p.turn,
        "dealer": p.dealer,
        "deck_size": len(p.deck),
        "captured_counts": [len(p.captured[0]), len(p.captured[1])],
        "limpias": list(p.limpias),
        "last_capturer": p.last_capturer,
        "scores": list(match.scores),
        "hand_number": match.hand_number,
        "tally": [tally(p.captured[0]), tally(p.captured[1])],
    }


def build_replay(stored: StoredMatch) -> dict[str, Any]:
    """Step 0 is the first deal; step i the table after the match's i-th move, with that
    move's events (docs/protocol.md, "Event E")."""
    if not stored.finished:
        raise NotFinished(stored.room_id)
    match = Match.new(stored.seed)
    steps: list[dict[str, Any]] = [{"events": [], "position": position_json(match)}]
    for seat, text in stored.moves:
        before = match
        match, step = match.play(Move.parse(text))
        steps.append(
            {"events": step_events(step, seat, before, match), "position": position_json(match)}
        )
    if not match.finished:  # the room says it is over but its log does not: tell nothing
        raise NotFinished(stored.room_id)
    names = [stored.names[0], stored.names[1]]
    return {
        "match": stored.match_no,
        "names": names,
        "mode": stored.mode,
        "level": stored.level,
        "kinds": ["person", "computer" if stored.mode == "computer" else "person"],
        "winner": match.winner,
        "scores": list(match.scores),
        "categories": CATEGORIES_ES,
        "steps": steps,
    }
