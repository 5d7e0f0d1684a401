"""Scoring a finished hand (RULES.md section 6), per team (RULES.md 9.4: with two players
each player is their own team, so ``player`` below reads as a team)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .cards import TEN_OF_DIAMONDS, TWO_OF_SPADES, Card
from .seats import TEAMS

if TYPE_CHECKING:
    from .position import Position

CATEGORIES = ("cards", "spades", "ten_of_diamonds", "two_of_spades", "aces", "limpias")
CATEGORY_NAMES_ES = ("Cartas", "Picas", "Diez de diamantes", "Dos de picas", "Ases", "Limpias")
ACE_ORDER = tuple(Card(1, suit) for suit in ("s", "c", "h", "d"))  # ♠ ♣ ♥ ♦
TARGET = 21
LATE_SCORE = 18  # from here on a player scores only categories 1-3
HALF_DECK = 26


def category_counts(start: int, category: int) -> bool:
    """Whether ``category`` (its index in ``CATEGORIES``) can score for a player who began
    the hand with ``start`` points: from 18 on, only categories 1-3 (RULES.md 6)."""
    return start < LATE_SCORE or category < 3


def reached(scores: tuple[int, int]) -> int | None:
    """The player whose match score reached 21, if any: only one can, as the count of a
    hand stops the moment somebody gets there (RULES.md 6)."""
    for player in TEAMS:
        if scores[player] >= TARGET:
            return player
    return None


@dataclass(frozen=True, slots=True)
class HandResult:
    """The points of each player by category (after the 18-points rule, in full), the match
    scores after the hand (counted in order, stopping at 21) and the winner, if any."""

    points: tuple[tuple[int, ...], tuple[int, ...]]
    scores: tuple[int, int]
    winner: int | None
    # the part of ``points`` that entered the match score: all of it, unless someone reached
    # 21 during the count (then what came after that moment is not counted)
    counted: tuple[tuple[int, ...], tuple[int, ...]] = ((0,) * 6, (0,) * 6)

    def to_json(self) -> dict[str, Any]:
        return {
            "points": [list(self.points[0]), list(self.points[1])],
            "scores": list(self.scores),
            "winner": self.winner,
        }


def score_hand(position: Position) -> HandResult:
    """Scores a hand whose cards have all been captured (``position.captured``)."""
    captured = position.captured
    start = position.scores
    points = [[0] * 6, [0] * 6]
    # awards in counting order: (player, category index, points)
    awards: list[tuple[int, int, int]] = []

    def award(player: int, category: int, amount: int) -> None:
        if amount <= 0:
            return
        if not category_counts(start[player], category):
            return
        points[player][category] += amount
        awards.append((player, category, amount))

    counts = (len(captured[0]), len(captured[1]))
    for p in TEAMS:
        if counts[p] > HALF_DECK:
            award(p, 0, 3)
    for p in TEAMS:
        if sum(1 for c in captured[p] if c.suit == "s") >= 7:
            award(p, 1, 1)
    for p in TEAMS:
        if TEN_OF_DIAMONDS in captured[p]:
            award(p, 2, 2)
    for p in TEAMS:
        if TWO_OF_SPADES in captured[p]:
            award(p, 3, 1)
    for ace in ACE_ORDER:
        for p in TEAMS:
            if ace in captured[p]:
                award(p, 4, 1)
    difference = position.limpias[0] - position.limpias[1]
    if difference > 0:
        award(0, 5, difference)
    elif difference < 0:
        award(1, 5, -difference)

    scores = list(start)
    counted = [[0] * 6, [0] * 6]
    winner: int | None = None
    for player, category, amount in awards:
        scores[player] += amount
        counted[player][category] += amount
        if scores[player] >= TARGET:
            winner = player
            break
    return HandResult(
        points=(tuple(points[0]), tuple(points[1])),
        scores=(scores[0], scores[1]),
        winner=winner,
        counted=(tuple(counted[0]), tuple(counted[1])),
    )
