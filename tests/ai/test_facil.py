"""Fácil (RULES.md 7): captures the most it can, otherwise trails its lowest card, never
builds."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from server.ai import LEVELS
from server.engine import Move, Pile
from server.engine.hints import take_rank
from server.engine.moves import Table

from .helpers import choose, game_positions, position

FACIL = LEVELS["facil"]


def test_takes_the_most_it_can() -> None:
    # RULES.md 3 example: 9♠ takes 9♦ | 5♥+4♣ | 6♦+3♠, not just the pair
    pos = position("9s 2h", "9d 5h 4c 6d 3s")
    assert choose("facil", pos) == Move.capture("9s", "9d", "5h", "4c", "6d", "3s")


def test_prefers_the_card_that_takes_more() -> None:
    # the 7 takes three table cards (the pair 7♦ and the sum 3♣+4♥), the 5 only one
    pos = position("5c 7h", "5d 7d 3c 4h")
    assert choose("facil", pos) == Move.capture("7h", "7d", "3c", "4h")


def test_ties_go_to_spades_and_points() -> None:
    # both take two cards; the 10♦ with the 10♥ is worth more than the 8♦ with the 8♥
    pos = position("10h 8h", "10d 8d")
    assert choose("facil", pos) == Move.capture("10h", "10d")


def test_captures_rather_than_trailing_or_building() -> None:
    # it could build 3+5=8 for its 8, or trail; it takes the 5 with the 5
    pos = position("3c 8h 5s", "5d Kc")
    assert choose("facil", pos) == Move.capture("5s", "5d")


def test_trails_its_lowest_card_when_it_cannot_capture() -> None:
    # no capture: the ace (1) is its lowest card, even though Normal would keep it
    pos = position("9h As Qc", "Kc 5d")
    assert choose("facil", pos) == Move.trail("As")
    pos = position("9h 4s Qc", "Kc 8d")
    assert choose("facil", pos) == Move.trail("4s")


def test_never_builds_even_when_it_could() -> None:
    pos = position("3c 8h", "5d Kc")  # build 3+5 = 8 is legal
    assert any(m.kind == "build" for m in _legal(pos))
    assert choose("facil", pos) == Move.trail("3c")


def test_takes_a_pile_it_can_take() -> None:
    pile = Pile.parse("p1", "3c 5d", value=8, owner=1)
    pos = position("8h 2c", "Kc", piles=(pile,))
    assert choose("facil", pos) == Move.capture("8h", "p1")


def _legal(pos: object) -> list[Move]:
    from server.engine import legal_moves

    return legal_moves(pos)  # type: ignore[arg-type]


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 10_000))
def test_in_real_games_follows_its_rule(seed: int) -> None:
    for pos, moves, move in game_positions(seed, (FACIL, FACIL), limit=200):
        assert move in moves
        assert move.kind != "build"
        captures = [m for m in moves if m.kind == "capture"]
        if captures:
            table = Table(pos.cards, pos.piles)

            def rank(m: Move, table: Table = table) -> tuple[int, ...]:
                return take_rank(table, m.card, table.mask_of(m.take) or 0)

            assert move.kind == "capture"
            assert rank(move) == max(rank(m) for m in captures)
        else:
            trails = [m for m in moves if m.kind == "trail"]
            assert move.kind == "trail"
            assert move.card.value == min(m.card.value for m in trails)
