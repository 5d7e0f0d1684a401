"""What a seat is told, as JSON-ready values: the facts of a hand (tallies, a finished
hand's counts and the points that entered the match), the events of a move and what each
hand card can do. The browser knows no rules: it draws these.

Pure functions of engine values; ``views.py`` puts them together in what each listener is
told.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..engine import (
    CATEGORY_NAMES_ES,
    Card,
    Match,
    Position,
    Step,
)
from ..engine.cards import TEN_OF_DIAMONDS, TWO_OF_SPADES
from ..engine.hints import card_options_json, item_weights
from ..engine.moves import Table, build_masks, hand_without, table_of
from ..engine.scoring import ACE_ORDER, CATEGORIES, LATE_SCORE, category_counts
from ..engine.seats import TEAMS
from ..protocol import dumps

CATEGORIES_ES = list(CATEGORY_NAMES_ES)
MAX_BUILD_TAKES = 200  # per card: a crowded table could list more; the ideas stay whole


_TEN_OF_DIAMONDS, _TWO_OF_SPADES = TEN_OF_DIAMONDS.code, TWO_OF_SPADES.code


def tally(captured: Iterable[Card]) -> dict[str, Any]:
    """What a seat has captured so far, as families count it aloud (cards compared by their
    codes: the same as by rank and suit, without a dataclass's ``__eq__`` per card)."""
    cards = spades = aces = 0
    ten = two = False
    for card in captured:
        cards += 1
        if card.suit == "s":
            spades += 1
        if card.rank == 1:
            aces += 1
        elif card.code == _TEN_OF_DIAMONDS:
            ten = True
        elif card.code == _TWO_OF_SPADES:
            two = True
    return {
        "cards": cards,
        "spades": spades,
        "ten_of_diamonds": ten,
        "two_of_spades": two,
        "aces": aces,
    }


def hand_counts(position: Position, team: int) -> dict[str, Any]:
    """The raw counts of a finished hand for ``team`` (the score sheet's first column)."""
    counts = tally(position.captured[team])
    held = set(position.captured[team])
    counts["aces"] = [ace.code for ace in ACE_ORDER if ace in held]
    counts["limpias"] = position.limpias[team]
    # RULES.md 6: each team's limpias cancel out (the smaller count, on both sides)
    counts["limpias_cancelled"] = min(position.limpias)
    return counts


def step_events(
    step: Step, seat: int, before: Match, after: Match, *, computer: bool = False
) -> list[dict[str, Any]]:
    """The events of one move, in order (docs/protocol.md, "Event E"); ``computer``: the
    computer played it (the seat's own, or for a friend who was away)."""
    events: list[dict[str, Any]] = [
        {
            "kind": "move",
            "seat": seat,
            "by": "computer" if computer else "person",
            "move": step.move.to_json(),
            "taken": [c.code for c in step.taken],
            "limpia": step.limpia,
        }
    ]
    if step.dealt:
        events.append({"kind": "deal"})
    result = step.result
    if result is not None:
        start = before.position.scores
        events.append(
            {
                "kind": "hand_end",
                "hand_number": before.hand_number,
                "result": {
                    "points": [list(result.points[team]) for team in TEAMS],
                    "counted": [list(result.counted[team]) for team in TEAMS],
                    "categories": CATEGORIES_ES,
                    "counts": [hand_counts(step.position, team) for team in TEAMS],
                    "scores_before": list(start),
                    "limited": [start[team] >= LATE_SCORE for team in TEAMS],
                    # per team and category: could it score for that team (RULES.md 6)
                    "eligible": [
                        [category_counts(start[team], k) for k in range(len(CATEGORIES))]
                        for team in TEAMS
                    ],
                    "scores": list(result.scores),
                    "winner": result.winner,
                    "swept": [c.code for c in step.swept],
                    "sweeper": step.sweeper,
                },
            }
        )
        if after.finished:
            events.append(
                {"kind": "match_end", "winner": after.winner, "scores": list(after.scores)}
            )
        else:
            events.append(
                {
                    "kind": "new_hand",
                    "hand_number": after.hand_number,
                    "dealer": after.position.dealer,
                }
            )
    return events


def rematch_event(match_no: int) -> str:
    """The event that opens match ``match_no`` (2 and up), as JSON text."""
    return dumps({"kind": "rematch", "match": match_no})


def build_takes(
    position: Position, table: Table, card: Card, rest: tuple[Card, ...] | None = None
) -> list[dict[str, Any]]:
    """Every set of table items ``card`` can build on, with the values it can make
    (``rest``: the hand without ``card``, when known)."""
    seat = position.turn
    if rest is None:
        rest = hand_without(position.hands[seat], card)
    values: dict[tuple[str, ...], list[int]] = {}
    for mask, value, _double in build_masks(table, card, rest, seat):
        values.setdefault(tuple(sorted(table.names(mask))), []).append(value)
    return [
        {"take": list(take), "values": sorted(set(found))}
        for take, found in list(values.items())[:MAX_BUILD_TAKES]
    ]


def options(position: Position) -> list[dict[str, Any]]:
    """What each card in the hand of the seat to move can do (ideas, takes, build sets)."""
    table = table_of(position)
    weights = item_weights(table)
    result = []
    hand = position.hands[position.turn]
    for card in hand:
        rest = hand_without(hand, card)
        entry = card_options_json(position, card, table, weights, rest)
        entry["build_takes"] = build_takes(position, table, card, rest)
        result.append(entry)
    return result
