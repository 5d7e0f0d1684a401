"""The raw counts of a finished hand that a seat is told (docs/protocol.md, Event E):
each seat's limpias and how many of them cancelled the other's (RULES.md 6)."""

from __future__ import annotations

import pytest

from server.engine import Position
from server.rooms.facts import hand_counts


@pytest.mark.parametrize(
    ("limpias", "cancelled"), [((0, 0), 0), ((2, 0), 0), ((1, 3), 1), ((2, 2), 2), ((4, 3), 3)]
)
def test_limpias_cancel_out_the_smaller_count_on_both_sides(
    limpias: tuple[int, int], cancelled: int
) -> None:
    position = Position.from_json(
        {
            "hands": [[], []],
            "table": {"cards": [], "piles": []},
            "turn": 0,
            "limpias": list(limpias),
        }
    )
    for seat in (0, 1):
        counts = hand_counts(position, seat)
        assert counts["limpias"] == limpias[seat]
        assert counts["limpias_cancelled"] == cancelled
