"""Seats and teams: how many seats a game has, whose turn comes next, a seat's team and the
other team (RULES.md 9.1; NOTATION.md, Position). The one place where seat arithmetic is
written: every other module asks here instead of writing ``1 - seat`` or ``(0, 1)``.

A game has two seats (each its own team) or four (two against two, partners opposite).
Seats are numbered in the order of play; a seat's team is its number mod 2, so with two
seats seat and team are the same number. There are always two teams.
"""

from __future__ import annotations

SEAT_COUNTS = (2, 4)  # the games there are: one against one, two against two
TEAMS = (0, 1)  # always two teams


def check_count(count: int) -> int:
    """``count`` if a game may have that many seats (else ValueError)."""
    if count not in SEAT_COUNTS or isinstance(count, bool):
        raise ValueError(f"a game has 2 or 4 seats, not {count!r}")
    return count


def seats(count: int) -> range:
    """Every seat of a game of ``count`` seats, in the order of play."""
    return range(count)


def next_seat(seat: int, count: int) -> int:
    """The seat that plays after ``seat``."""
    return (seat + 1) % count


def team_of(seat: int) -> int:
    """The team a seat plays for (with two seats: the seat itself)."""
    return seat % len(TEAMS)


def other_team(team: int) -> int:
    """The team that is not ``team``."""
    return (team + 1) % len(TEAMS)


def team_seats(team: int, count: int) -> tuple[int, ...]:
    """The seats of ``team``, in the order of play."""
    return tuple(s for s in seats(count) if team_of(s) == team)


def others(seat: int, count: int) -> tuple[int, ...]:
    """Every seat but ``seat``, in the order of play after it."""
    return tuple((seat + k) % count for k in range(1, count))


def rivals(seat: int, count: int) -> tuple[int, ...]:
    """The seats of the other team, in the order of play after ``seat``."""
    return tuple(s for s in others(seat, count) if team_of(s) != team_of(seat))


def partner(seat: int, count: int) -> int | None:
    """The seat across the table on the same team (None with two seats)."""
    mates = [s for s in others(seat, count) if team_of(s) == team_of(seat)]
    return mates[0] if mates else None


def first_dealer(count: int) -> int:
    """Who deals a match's first hand: the last seat, so that seat 0 (the room's creator)
    plays first (RULES.md 2 and 9.1)."""
    return count - 1
