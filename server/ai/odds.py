"""The chance of winning the match, for Difícil's search (RULES.md 6).

Difícil values outcomes by the match, not by the hand: a capture that brings a player to
21 first is worth everything, and points a player at 18 or more cannot score (aces, the
2♠, limpias) are worth nothing to them.

- ``match_chance(scores, seat)``: at the start of a hand with match ``scores``, the chance
  that ``seat`` wins the match. A simple model of a hand: every scoring item (más cartas,
  más picas, the 10♦, the 2♠, each ace) goes to either player with even odds (más cartas
  to nobody when the 52 cards split 26–26), counted in the rule book's order, the race to
  21 stopping at the first to reach it; and the 18-points rule.
- ``hand_chance(...)``: the same in the middle of a hand, from what has been captured:
  the items already taken are certain, the cards not yet captured go to either player
  with even odds.
- ``result_chance(result, seat)``: a finished hand, counted by the engine.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache, lru_cache
from math import comb

from ..engine import Card, HandResult
from ..engine.cards import TEN_OF_DIAMONDS, TWO_OF_SPADES
from ..engine.scoring import ACE_ORDER, HALF_DECK, LATE_SCORE, TARGET

SPADES_NEEDED = 7
DECK_SIZE = 52
SPADES = 13

# one scoring item: its points and the chance each player gets it (the rest: nobody)
Item = tuple[int, float, float]


def result_chance(result: HandResult, seat: int) -> float:
    """The chance that ``seat`` wins the match after a finished hand."""
    if result.winner is not None:
        return 1.0 if result.winner == seat else 0.0
    return match_chance(result.scores, seat)


def match_chance(scores: tuple[int, int], seat: int) -> float:
    """The chance that ``seat`` wins the match from the start of a hand at ``scores``."""
    a, b = scores
    if a >= TARGET or b >= TARGET:
        return 1.0 if (scores[seat] >= TARGET) else 0.0
    chance = _start_chance(a, b)
    return chance if seat == 0 else 1.0 - chance


@cache
def _start_chance(a: int, b: int) -> float:
    """Player 0's chance to win the match from the start of a hand at ``a``–``b``."""
    cards_one = (1.0 - _BINOMIAL_TIE) / 2
    items: list[Item] = [(3, cards_one, cards_one), (1, 0.5, 0.5), (2, 0.5, 0.5), (1, 0.5, 0.5)]
    items.extend((1, 0.5, 0.5) for _ in ACE_ORDER)
    return _race((a, b), items)


Captured = tuple[tuple[int, int], int, tuple[int, int], int, tuple[int, ...]]


def _captured(captured: tuple[Iterable[Card], Iterable[Card]]) -> Captured:
    """What the odds need of the cards captured: each player's count, the cards left, each
    player's spades, the spades left, and who holds the 10♦, the 2♠ and each ace (0, 1,
    or -1: nobody yet)."""
    mine = (frozenset(captured[0]), frozenset(captured[1]))
    counts = (len(mine[0]), len(mine[1]))
    left = DECK_SIZE - counts[0] - counts[1]
    spades = (sum(1 for c in mine[0] if c.suit == "s"), sum(1 for c in mine[1] if c.suit == "s"))
    owners = tuple(
        0 if card in mine[0] else 1 if card in mine[1] else -1
        for card in (TEN_OF_DIAMONDS, TWO_OF_SPADES, *ACE_ORDER)
    )
    return counts, left, spades, SPADES - spades[0] - spades[1], owners


def hand_chance(
    scores: tuple[int, int],
    captured: tuple[Iterable[Card], Iterable[Card]],
    limpias: tuple[int, int],
    seat: int,
) -> float:
    """The chance that ``seat`` wins the match, in a hand begun at ``scores`` where the
    players have ``captured`` these cards and ``limpias``; every card not yet captured
    goes to either player with even odds."""
    counts, left, spades, spades_left, owners = _captured(captured)
    chance = _hand_chance(
        scores, counts, left, spades, spades_left, owners, limpias[0] - limpias[1]
    )
    return chance if seat == 0 else 1.0 - chance


@lru_cache(maxsize=65_536)
def _hand_chance(
    scores: tuple[int, int],
    counts: tuple[int, int],
    left: int,
    spades: tuple[int, int],
    spades_left: int,
    owners: tuple[int, ...],
    limpia_difference: int,
) -> float:
    cards = (_at_least(HALF_DECK + 1 - counts[0], left), _at_least(HALF_DECK + 1 - counts[1], left))
    spade = (
        _at_least(SPADES_NEEDED - spades[0], spades_left),
        _at_least(SPADES_NEEDED - spades[1], spades_left),
    )
    items: list[Item] = [(3, *cards), (1, *spade)]
    for points, owner in zip((2, 1, 1, 1, 1, 1), owners, strict=True):
        items.append((points, *_owner_odds(owner)))
    if limpia_difference > 0:
        items.append((limpia_difference, 1.0, 0.0))
    elif limpia_difference < 0:
        items.append((-limpia_difference, 0.0, 1.0))
    return _race(scores, items)


def _owner_odds(owner: int) -> tuple[float, float]:
    return (0.5, 0.5) if owner < 0 else ((1.0, 0.0) if owner == 0 else (0.0, 1.0))


def _race(start: tuple[int, int], items: list[Item]) -> float:
    """Player 0's chance to win the match: ``items`` counted in order from ``start`` (the
    scores when the hand began), the first to reach 21 winning; then a new hand."""
    late = (start[0] >= LATE_SCORE, start[1] >= LATE_SCORE)
    states: dict[tuple[int, int], float] = {start: 1.0}
    won = 0.0
    for index, (points, odds0, odds1) in enumerate(items):
        # categories 1-3 (cards, spades, 10♦) are the first three items; a late player
        # scores nothing after them
        after: dict[tuple[int, int], float] = {}
        for (a, b), chance in states.items():
            nobody = 1.0 - odds0 - odds1
            if odds0 > 0.0:
                if late[0] and index >= 3:
                    after[(a, b)] = after.get((a, b), 0.0) + chance * odds0
                elif a + points >= TARGET:
                    won += chance * odds0
                else:
                    after[(a + points, b)] = after.get((a + points, b), 0.0) + chance * odds0
            if odds1 > 0.0:
                if late[1] and index >= 3:
                    after[(a, b)] = after.get((a, b), 0.0) + chance * odds1
                elif b + points < TARGET:
                    after[(a, b + points)] = after.get((a, b + points), 0.0) + chance * odds1
            if nobody > 1e-12:
                after[(a, b)] = after.get((a, b), 0.0) + chance * nobody
        states = after
    for (a, b), chance in states.items():
        if (a, b) == start:  # cannot happen (the spades and the 10♦ always score)
            continue
        won += chance * _start_chance(a, b)
    return won


def _at_least(need: int, trials: int) -> float:
    """The chance of at least ``need`` successes in ``trials`` fair coin tosses."""
    if need <= 0:
        return 1.0
    if need > trials:
        return 0.0
    return _TAILS[trials][need]


_TAILS: list[list[float]] = []
for _n in range(DECK_SIZE + 1):
    _row = [comb(_n, _k) / 2.0**_n for _k in range(_n + 1)]
    _tail = [0.0] * (_n + 2)
    for _k in range(_n, -1, -1):
        _tail[_k] = _tail[_k + 1] + _row[_k]
    _TAILS.append(_tail)
_BINOMIAL_TIE = comb(DECK_SIZE, HALF_DECK) / 2.0**DECK_SIZE


@dataclass(frozen=True, slots=True)
class Shares:
    """What the cards still to come are worth to the dealer, at a deal's end: the share of
    the cards not yet captured that the dealer takes (``cards``), of the spades
    (``spades``), of each of the 10♦, the 2♠ and the aces (``points``), and the chances
    that the dealer / the other player makes more of the hand's remaining limpias. Even
    shares and no limpias are the plain ``hand_chance``."""

    cards: float = 0.5
    spades: float = 0.5
    points: float = 0.5
    limpia_dealer: float = 0.0
    limpia_other: float = 0.0


def deal_end_chance(
    scores: tuple[int, int],
    captured: tuple[Iterable[Card], Iterable[Card]],
    limpias: tuple[int, int],
    dealer: int,
    shares: Shares,
    seat: int,
) -> float:
    """``hand_chance`` with the cards not yet captured going to the dealer with the odds
    of ``shares`` instead of even odds (``dealend``: learned from self-play)."""
    counts, left, spades, spades_left, owners = _captured(captured)
    chance = _deal_end_chance(
        scores, counts, left, spades, spades_left, owners, limpias[0] - limpias[1], dealer, shares
    )
    return chance if seat == 0 else 1.0 - chance


@lru_cache(maxsize=65_536)
def _deal_end_chance(
    scores: tuple[int, int],
    counts: tuple[int, int],
    left: int,
    spades: tuple[int, int],
    spades_left: int,
    owners: tuple[int, ...],
    limpia_difference: int,
    dealer: int,
    shares: Shares,
) -> float:
    def share(p_dealer: float) -> tuple[float, float]:
        return (p_dealer, 1.0 - p_dealer) if dealer == 0 else (1.0 - p_dealer, p_dealer)

    card0, card1 = share(shares.cards)
    spade0, spade1 = share(shares.spades)
    point0, point1 = share(shares.points)
    cards = (
        _tail_p(HALF_DECK + 1 - counts[0], left, card0),
        _tail_p(HALF_DECK + 1 - counts[1], left, card1),
    )
    spade = (
        _tail_p(SPADES_NEEDED - spades[0], spades_left, spade0),
        _tail_p(SPADES_NEEDED - spades[1], spades_left, spade1),
    )
    items: list[Item] = [(3, *cards), (1, *spade)]
    for points, owner in zip((2, 1, 1, 1, 1, 1), owners, strict=True):
        items.append((points, *((point0, point1) if owner < 0 else _owner_odds(owner))))
    # the limpias still to come: one more for whoever makes more of them (an estimate)
    more = (shares.limpia_dealer, shares.limpia_other)
    more0, more1 = more if dealer == 0 else (more[1], more[0])
    if limpia_difference > 0:
        items.append((limpia_difference, 1.0, 0.0))
    elif limpia_difference < 0:
        items.append((-limpia_difference, 0.0, 1.0))
    if more0 > 0.0 or more1 > 0.0:
        items.append((1, more0, more1))
    return _race(scores, items)


@cache
def _tail_p(need: int, trials: int, p: float) -> float:
    """The chance of at least ``need`` successes in ``trials`` tosses of chance ``p``."""
    if need <= 0:
        return 1.0
    if need > trials:
        return 0.0
    return sum(comb(trials, k) * p**k * (1.0 - p) ** (trials - k) for k in range(need, trials + 1))
