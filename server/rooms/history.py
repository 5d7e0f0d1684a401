"""A room's history played again from what is stored: a match is its seed plus its moves.

``replay`` is THE replay of a move log (``Match.new(seed)`` then ``play``, move by move);
``restore`` uses it to give a room's actor back its live match (``live.LiveMatch``: the
match, its events, the hand's plays and the answers to move ids) after a restart, on
another process or for a summary, and ``lobby/replays.py`` uses it to tell a finished match
again step by step. Pure functions of stored values.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from ..ai.inference import Seen
from ..engine import Match, Move, Step
from ..protocol import dumps
from ..store import MoveRecord, RoomState
from .facts import rematch_event, step_events
from .live import HandPlays, LiveMatch, reads_plays


@dataclass(frozen=True, slots=True)
class Played:
    """One move of a replayed match: who played it, and the match before and after."""

    seat: int
    move: Move
    computer: bool
    before: Match
    after: Match
    step: Step

    def events(self) -> list[dict[str, Any]]:
        """The move's events (docs/protocol.md, "Event E")."""
        return step_events(self.step, self.seat, self.before, self.after, computer=self.computer)


def replay(
    seed: str, moves: Iterable[tuple[int, Move, bool]], seat_count: int = 2
) -> Iterator[Played]:
    """The match ``seed`` of ``seat_count`` seats played again, move by move (``moves``:
    (seat, move, whether the computer played it: a person's move always has its client's id,
    the computer's none))."""
    match = Match.new(seed, seat_count)
    for seat, move, computer in moves:
        after, step = match.play(move)
        yield Played(seat, move, computer, match, after, step)
        match = after


def restore(state: RoomState, records: list[MoveRecord]) -> LiveMatch:
    """The live match of ``state`` as its stored move log makes it (``records``: every move
    of the room, in order; those before the current match only answer their move ids)."""
    live = LiveMatch.new(Match.new(state.seed, state.seat_count), state.seat_count)
    for rec in records:
        if rec.client_id is not None:
            live.answers.remember(rec.seat, rec.client_id, rec.seq)
    current = [rec for rec in records if rec.seq > state.match_start_seq]
    if state.match_no > 1:
        live.rematched(state.match_start_seq, rematch_event(state.match_no))
    played = replay(
        state.seed,
        ((rec.seat, Move.parse(rec.move), rec.client_id is None) for rec in current),
        state.seat_count,
    )
    keep = reads_plays(state)
    for rec, move in zip(current, played, strict=True):
        step_list = move.events()
        live.played(
            state.match_no, rec.seq, move.seat, move.move, move.before, step_list,
            [dumps(e) for e in step_list], keep,
        )  # fmt: skip
        live.match = move.after
    return live


def events_of(state: RoomState, records: list[MoveRecord]) -> list[tuple[int, str]]:
    """Every event of the current match of ``state`` as its stored move log makes it
    (``records``: the moves after the match began), as text: a resume older than what
    the live match keeps (``live.KEPT_SEQS``)."""
    events = [(state.match_start_seq, rematch_event(state.match_no))]
    if state.match_no <= 1:
        events = []
    current = [rec for rec in records if rec.seq > state.match_start_seq]
    played = replay(
        state.seed,
        ((rec.seat, Move.parse(rec.move), rec.client_id is None) for rec in current),
        state.seat_count,
    )
    for rec, move in zip(current, played, strict=True):
        events.extend((rec.seq, dumps(e)) for e in move.events())
    return events


def hand_plays(state: RoomState, records: list[MoveRecord]) -> tuple[Seen, ...]:
    """The plays of the current hand of ``state``'s match as its stored move log makes
    them (``records``: the moves after the match began): for Difícil, in a room where
    they were not all kept (``live.HandPlays.complete``)."""
    plays = HandPlays()
    match = Match.new(state.seed, state.seat_count)
    current = [rec for rec in records if rec.seq > state.match_start_seq]
    played = replay(
        state.seed,
        ((rec.seat, Move.parse(rec.move), rec.client_id is None) for rec in current),
        state.seat_count,
    )
    for move in played:
        plays.add(state.match_no, move.before, move.seat, move.move, True)
        match = move.after
    return plays.of(state.match_no, match) or ()
