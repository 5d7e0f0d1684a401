"""A seat's view as the frames carry it (``view_json``, issue 31: built straight from the
position, no ``View`` on the way) is exactly ``view_for(position, seat).to_json()``: the same
keys in the same order, the same values, for every seat of tables of two and of four, at
every point of whole matches."""

from __future__ import annotations

import random

from server.engine import Match, legal_moves, view_for, view_json


def test_view_json_is_the_views_json() -> None:
    rng = random.Random(31)
    looked = 0
    for seat_count in (2, 4):
        for m in range(6):
            match = Match.new(f"view-json-{seat_count}-{m}", seat_count)
            while not match.finished:
                position = match.position
                for seat in range(seat_count):
                    made = view_json(position, seat)
                    expected = view_for(position, seat).to_json()
                    assert list(made.items()) == list(expected.items())
                    looked += 1
                match, _ = match.play(rng.choice(legal_moves(position)))
    assert looked > 1000
