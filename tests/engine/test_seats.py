"""Seats and teams (RULES.md 9.1; NOTATION.md, Position): the server's module and the
browser's say the same of every seat of a game of two and of four."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from server.engine import seats
from tests.engine.oracles import NODE

ROOT = Path(__file__).resolve().parents[2]


def test_two_seats_are_two_teams_taking_turns() -> None:
    assert list(seats.seats(2)) == [0, 1]
    assert [seats.next_seat(s, 2) for s in seats.seats(2)] == [1, 0]
    assert [seats.team_of(s) for s in seats.seats(2)] == [0, 1]
    assert seats.others(0, 2) == (1,) and seats.rivals(1, 2) == (0,)
    assert seats.partner(0, 2) is None
    assert seats.first_dealer(2) == 1


def test_four_seats_are_two_pairs_sitting_opposite() -> None:
    # RULES.md 9.1: seats 0 and 2 are team 0, seats 1 and 3 team 1; turns 0 → 1 → 2 → 3 → 0
    assert [seats.next_seat(s, 4) for s in seats.seats(4)] == [1, 2, 3, 0]
    assert seats.team_seats(0, 4) == (0, 2) and seats.team_seats(1, 4) == (1, 3)
    assert [seats.partner(s, 4) for s in seats.seats(4)] == [2, 3, 0, 1]
    assert seats.rivals(0, 4) == (1, 3) and seats.rivals(3, 4) == (0, 2)
    assert seats.others(2, 4) == (3, 0, 1)
    assert seats.first_dealer(4) == 3  # seat 0, the creator, plays first
    assert [seats.other_team(t) for t in seats.TEAMS] == [1, 0]


@pytest.mark.parametrize("count", [0, 1, 3, 5, True])
def test_no_other_game_has_seats(count: int) -> None:
    with pytest.raises(ValueError):
        seats.check_count(count)


@pytest.mark.skipif(NODE is None, reason="needs Node.js")
def test_the_browser_says_the_same() -> None:
    script = """
import * as s from "./client/js/engine/seats.js";
const out = {};
for (const n of s.SEAT_COUNTS) {
  out[n] = s.seatsOf(n).map((seat) => [s.nextSeat(seat, n), s.teamOf(seat), s.others(seat, n),
    s.rivals(seat, n), s.partner(seat, n)]);
  out[n].push([s.firstDealer(n), s.teamSeats(0, n), s.teamSeats(1, n), s.TEAMS.map(s.otherTeam)]);
}
console.log(JSON.stringify(out));
"""
    done = subprocess.run(
        [str(NODE), "--input-type=module", "-e", script],
        cwd=ROOT, capture_output=True, text=True, check=True, timeout=30,
    )  # fmt: skip
    js = json.loads(done.stdout)
    for n in seats.SEAT_COUNTS:
        py = [
            [seats.next_seat(seat, n), seats.team_of(seat), list(seats.others(seat, n)),
             list(seats.rivals(seat, n)), seats.partner(seat, n)]
            for seat in seats.seats(n)
        ]  # fmt: skip
        teams = [list(seats.team_seats(t, n)) for t in seats.TEAMS]
        py.append([seats.first_dealer(n), *teams, [seats.other_team(t) for t in seats.TEAMS]])
        assert js[str(n)] == py
