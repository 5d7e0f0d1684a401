"""A move's own forms (NOTATION.md, Move): its JSON, its compact text (what is stored and
sent), its repr, and the order legal_moves lists moves in (it feeds the seeded players)."""

from __future__ import annotations

import pytest

from server.engine import InvalidMove, Move


def test_json_names_take_and_value_only_where_they_belong() -> None:
    assert Move.trail("2h").to_json() == {"kind": "trail", "card": "2h"}
    assert Move.capture("9s", "p1", "9d", "10c").to_json() == {
        "kind": "capture",
        "card": "9s",
        "take": ["10c", "9d", "p1"],
    }
    assert Move.build("3c", "5d", value=8).to_json() == {
        "kind": "build",
        "card": "3c",
        "take": ["5d"],
        "value": 8,
    }


def test_text_is_compact_json() -> None:
    assert Move.trail("Ah").to_text() == '{"kind":"trail","card":"Ah"}'
    assert Move.build("3c", "p2", "5d", value=8).to_text() == (
        '{"kind":"build","card":"3c","take":["5d","p2"],"value":8}'
    )
    for move in (Move.trail("Ah"), Move.capture("9s", "9d"), Move.build("3c", "5d", value=8)):
        assert Move.parse(move.to_text()) == move


def test_parse_of_what_is_not_json_text() -> None:
    for bad in (None, 5, ["kind"]):
        with pytest.raises(InvalidMove) as caught:
            Move.parse(bad)  # type: ignore[arg-type]
        assert str(caught.value) == f"move is not JSON: {bad!r}"


def test_repr_reads_as_the_call_that_makes_the_move() -> None:
    assert repr(Move.build("3c", "p1", "5d", value=8)) == "Move.build('3c', '5d', 'p1', value=8)"
    assert repr(Move.capture("9s", "9d")) == "Move.capture('9s', '9d')"
    assert repr(Move.trail("2h")) == "Move.trail('2h')"


def test_sort_key_orders_kind_rank_suit_take_then_value() -> None:
    ordered = [
        Move.capture("2c", "2d"),
        Move.capture("2h", "2d"),
        Move.capture("9s", "9d"),
        Move.build("2c", "2d", value=2),
        Move.build("2c", "2d", value=4),
        Move.build("2c", "2d", "3s", value=7),
        Move.build("2h", "2d", value=2),
        Move.trail("Ah"),
        Move.trail("4s"),
    ]
    assert sorted(reversed(ordered), key=Move.sort_key) == ordered
    assert Move.build("2c", "2d", value=2).sort_key() == (1, 2, "c", ("2d",), 2)
    assert Move.trail("4s").sort_key() == (2, 4, "s", (), 0)
