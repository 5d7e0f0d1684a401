"""A room's history played again from what is stored: a match is its seed plus its moves.

``replay`` is THE replay of a move log (``Match.new(seed)`` then ``play``, move by move);
``restore`` uses it to give a room's actor back its match, its events and its answers to
move ids (after a restart, on another process, for a summary), and ``lobby/replays.py``
uses it to tell a finished match again step by step. Pure functions of stored values.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from ..ai.inference import Seen
from ..engine import Match, Move, Step
from ..protocol import Ack, dumps, encode
from ..store import MoveRecord, RoomState
from .facts import step_events

MAX_REMEMBERED_IDS = 256  # per seat: the answers to its last move ids

Answered = tuple[OrderedDict[str, str], OrderedDict[str, str]]  # per seat: move id -> answer


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


def replay(seed: str, moves: Iterable[tuple[int, Move, bool]]) -> Iterator[Played]:
    """The match ``seed`` played again, move by move (``moves``: (seat, move, whether the
    computer played it: a person's move always has its client's id, the computer's none))."""
    match = Match.new(seed)
    for seat, move, computer in moves:
        after, step = match.play(move)
        yield Played(seat, move, computer, match, after, step)
        match = after


def ack_text(move_id: str, seq: int) -> str:
    return encode(Ack(move_id, seq))


def forget_oldest(answered: OrderedDict[str, str]) -> None:
    while len(answered) > MAX_REMEMBERED_IDS:
        answered.popitem(last=False)


def rematch_event(match_no: int) -> str:
    """The event that opens match ``match_no`` (2 and up), as JSON text."""
    return dumps({"kind": "rematch", "match": match_no})


@dataclass(slots=True)
class HandPlays:
    """The plays of the hand being played, as public facts (the table before each, the
    deck's size, the move): what Difícil's inference reads. Derived from the move log like
    the rest of a room, so a room restored after a restart, or on another process, has
    them too."""

    hand: tuple[int, int] = (-1, -1)  # (match number, hand number) of ``plays``
    plays: list[Seen] = field(default_factory=list)

    def add(self, match_no: int, before: Match, seat: int, move: Move) -> None:
        """``seat`` played ``move`` in ``before`` (a new hand starts a new list)."""
        hand = (match_no, before.hand_number)
        if self.hand != hand:
            self.hand, self.plays = hand, []
        table = before.position
        self.plays.append(Seen(seat, table.cards, table.piles, len(table.deck), move))

    def of(self, match_no: int, match: Match) -> tuple[Seen, ...]:
        """The plays of ``match``'s current hand (none yet: a hand just dealt)."""
        return tuple(self.plays) if self.hand == (match_no, match.hand_number) else ()


@dataclass(frozen=True, slots=True)
class Restored:
    """What a room's actor holds besides its state: the current match, its events as JSON
    text (seq, event), the last move's event and each seat's answers to its move ids."""

    match: Match
    events: list[tuple[int, str]]
    last_move: dict[str, Any] | None
    answered: Answered
    plays: HandPlays


def restore(state: RoomState, records: list[MoveRecord]) -> Restored:
    """The room of ``state`` as its stored move log makes it (``records``: every move of the
    room, in order; those before the current match only answer their move ids)."""
    answered: Answered = (OrderedDict(), OrderedDict())
    for rec in records:
        if rec.client_id is not None:
            answered[rec.seat][rec.client_id] = ack_text(rec.client_id, rec.seq)
    for seat_answers in answered:
        forget_oldest(seat_answers)
    current = [rec for rec in records if rec.seq > state.match_start_seq]
    events: list[tuple[int, str]] = []
    if state.match_no > 1:
        events.append((state.match_start_seq, rematch_event(state.match_no)))
    last_move: dict[str, Any] | None = None
    match = Match.new(state.seed)
    played = replay(
        state.seed, ((rec.seat, Move.parse(rec.move), rec.client_id is None) for rec in current)
    )
    plays = HandPlays()
    for rec, move in zip(current, played, strict=True):
        plays.add(state.match_no, move.before, move.seat, move.move)
        step_list = move.events()
        last_move = step_list[0]
        events.extend((rec.seq, dumps(e)) for e in step_list)
        match = move.after
    return Restored(match, events, last_move, answered, plays)
