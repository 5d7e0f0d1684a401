"""The hints the client draws (RULES.md 3 and 8): Llevarte, Llevarte solo, build ideas and the
green borders, each checked against the full list of legal moves."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from server.engine import Position, card_options, legal_moves, play
from server.engine.hints import take_rank
from server.engine.moves import Table

from .test_reference import random_position


def test_rule_book_example_llevarte_and_llevarte_solo() -> None:
    position = Position.parse(
        '{"hands": [["9s"], []], "table": {"cards": ["9d", "5h", "4c", "6d", "3s"]}, "turn": 0}'
    )
    options = card_options(position, position.hands[0][0])
    assert options.llevarte is not None and options.llevarte_solo is not None
    assert options.llevarte.take == {"9d", "5h", "4c", "6d", "3s"}
    assert options.llevarte_solo.take == {"9d"}


def test_llevarte_breaks_ties_by_spades_first() -> None:
    # 7 takes 4+3 either as 4h+3s or 4h+3d: the spade is preferred
    position = Position.parse(
        '{"hands": [["7c"], []], "table": {"cards": ["4h", "3d", "3s"]}, "turn": 0}'
    )
    options = card_options(position, position.hands[0][0])
    assert options.llevarte is not None
    assert options.llevarte.take == {"4h", "3s"}


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.integers(min_value=0, max_value=2**32))
def test_hints_agree_with_the_legal_moves(seed: int) -> None:
    position = random_position(seed)
    moves = legal_moves(position)
    table = Table(position.cards, position.piles)
    for card in position.hands[position.turn]:
        options = card_options(position, card)
        captures = [m for m in moves if m.card == card and m.kind == "capture"]
        # the green border: exactly the cards that can capture something
        assert options.can_capture == bool(captures)
        if captures:
            assert options.llevarte in captures
            best = max(take_rank(table, card, table.mask_of(m.take) or 0) for m in captures)
            assert take_rank(table, card, table.mask_of(options.llevarte.take) or 0) == best
            if options.llevarte_solo is not None:
                assert options.llevarte_solo in captures
        builds = {m for m in moves if m.card == card and m.kind == "build"}
        for idea in options.builds:
            assert idea.move in builds
            assert idea.takers and all(c.capture_value == idea.move.value for c in idea.takers)
            play(position, idea.move)
        values = {m.value for m in builds}
        assert {idea.move.value for idea in options.builds} == values
        assert options.trail == any(m.card == card and m.kind == "trail" for m in moves)
