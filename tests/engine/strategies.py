"""Positions to test on: small ones made up by hypothesis (loose cards, simple and double
piles), and every position met in seeded random matches."""

from __future__ import annotations

import random
from functools import cache

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from server.engine import DECK, Card, Match, Move, Pile, Position, legal_moves


def _take(pool: list[Card], test: object) -> Card | None:
    for i, card in enumerate(pool):
        if test(card):  # type: ignore[operator]
            return pool.pop(i)
    return None


def _simple_pile(pool: list[Card], draw: st.DrawFn) -> tuple[tuple[Card, ...], int] | None:
    first = pool.pop()
    size = draw(st.integers(1, 2))
    cards = [first]
    for _ in range(size):
        room = 14 - sum(c.rank for c in cards)
        found = _take(pool, lambda c, room=room: c.rank <= room)
        if found is None:
            break
        cards.append(found)
    if len(cards) < 2:
        return None
    return tuple(cards), sum(c.rank for c in cards)


def _double_pile(pool: list[Card], draw: st.DrawFn) -> tuple[tuple[Card, ...], int] | None:
    value = draw(st.integers(2, 14))
    cards: list[Card] = []
    for _ in range(draw(st.integers(2, 3))):
        if draw(st.booleans()):
            lone = _take(pool, lambda c: c.rank == value or (c.rank == 1 and value == 14))
            if lone is not None:
                cards.append(lone)
                continue
        low = _take(pool, lambda c: c.rank < value)
        if low is None:
            return None
        high = _take(pool, lambda c, need=value - low.rank: c.rank == need)
        if high is None:
            return None
        cards += [low, high]
    return tuple(cards), value


@st.composite
def small_positions(
    draw: st.DrawFn, max_loose: int = 5, max_piles: int = 2, seat_count: int = 2
) -> Position:
    """A position of ``seat_count`` players that satisfies the notation's checks, with up to
    ``max_loose`` loose cards and ``max_piles`` piles (simple or double, any owner). Hands
    need not be realistic: the rules still say exactly which moves are legal."""
    pool = list(draw(st.permutations(DECK)))
    last = seat_count - 1
    turn = draw(st.integers(0, last))
    hand_size = draw(st.integers(1, 4))
    mine = tuple(pool.pop() for _ in range(hand_size))
    others = [tuple(pool.pop() for _ in range(draw(st.integers(0, 4)))) for _ in range(last)]
    piles: list[Pile] = []
    for n in range(draw(st.integers(0, max_piles))):
        double = draw(st.booleans())
        made = _double_pile(pool, draw) if double else _simple_pile(pool, draw)
        if made is None:
            continue
        cards, value = made
        owner = draw(st.integers(0, last))
        piles.append(Pile(cards, value, owner, double, f"p{n + 1}"))
    # aces and small cards make the interesting sums: let them come first sometimes
    if draw(st.booleans()):
        pool.sort(key=lambda c: -c.rank)
    loose = tuple(pool.pop() for _ in range(draw(st.integers(0, max_loose))))
    hands = (*others[:turn], mine, *others[turn:])
    position = Position(
        hands=hands, cards=loose, piles=tuple(piles), turn=turn, dealer=draw(st.integers(0, last))
    )
    # the notation accepts it: this round-trip also checks the generated piles are sound
    return Position.from_json(position.to_json())


MATCH_SEEDS = [f"prop-{n}" for n in range(12)]


def random_match(seed: str, seat_count: int = 2) -> tuple[Match, list[Move], list[Position]]:
    """Plays a whole match of ``seat_count`` players with uniformly random legal moves
    (seeded); returns the finished match, its moves and every position met before a move."""
    rng = random.Random(seed)
    match = Match.new(seed, seat_count)
    moves: list[Move] = []
    positions: list[Position] = []
    while not match.finished:
        positions.append(match.position)
        move = rng.choice(legal_moves(match.position))
        moves.append(move)
        match, _ = match.play(move)
    return match, moves, positions


@cache
def game_positions(seat_count: int = 2) -> list[Position]:
    found: list[Position] = []
    for seed in MATCH_SEEDS:
        found.extend(random_match(seed, seat_count)[2])
    return found


def deterministic(max_examples: int) -> settings:
    """Hypothesis settings for CI: the same examples every run, no example database."""
    return settings(
        max_examples=max_examples,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
