"""The live match of a room: what its actor holds besides the stored state, all of it
derived from the move log (``history.restore`` makes it for a room loaded from storage):

- ``match``: the current match (the engine's value);
- ``events``: this match's events as JSON text, by seq, so that a socket that resumes is
  sent what it missed (text: thousands of rooms' histories are no work for the garbage
  collector);
- ``last_move``: the last move's event (every view carries it);
- ``plays``: this hand's plays as public facts (what Difícil's inference reads);
- ``answers``: each seat's answers to its last move ids (a retried move gets the same
  answer).

One value, changed by its own methods, which the room's actor calls once a write is
committed (``actor.Room``).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from ..ai.inference import Seen
from ..engine import Match, Move
from ..protocol import Ack, Raw, encode

MAX_REMEMBERED_IDS = 256  # per seat: the answers to its last move ids


def ack_text(move_id: str, seq: int) -> str:
    """The answer to a move id whose move was played at ``seq``."""
    return encode(Ack(move_id, seq))


class MoveAnswers:
    """Per seat, the answers to its last ``MAX_REMEMBERED_IDS`` move ids (move id -> the
    answer's text), oldest first."""

    __slots__ = ("_by_seat",)

    def __init__(self, seat_count: int) -> None:
        self._by_seat: tuple[OrderedDict[str, str], ...] = tuple(
            OrderedDict() for _ in range(seat_count)
        )

    def get(self, seat: int, move_id: str) -> str | None:
        return self._by_seat[seat].get(move_id)

    def remember(self, seat: int, move_id: str, answer: str) -> None:
        answered = self._by_seat[seat]
        answered[move_id] = answer
        while len(answered) > MAX_REMEMBERED_IDS:
            answered.popitem(last=False)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, MoveAnswers) and self._by_seat == other._by_seat

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"MoveAnswers({[dict(a) for a in self._by_seat]!r})"


@dataclass(slots=True)
class HandPlays:
    """The plays of the hand being played, as public facts (the table before each, the
    deck's size, the move): what Difícil's inference reads."""

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


@dataclass(slots=True)
class LiveMatch:
    match: Match
    events: list[tuple[int, str]]  # (seq, event as JSON text) of the current match
    last_move: dict[str, Any] | None
    plays: HandPlays
    answers: MoveAnswers

    @classmethod
    def new(cls, match: Match, seat_count: int) -> LiveMatch:
        return cls(match, [], None, HandPlays(), MoveAnswers(seat_count))

    def played(
        self,
        match_no: int,
        seq: int,
        seat: int,
        move: Move,
        before: Match,
        events: list[dict[str, Any]],
        texts: Iterable[str],
    ) -> None:
        """``seat`` played ``move`` at ``seq`` in ``before`` (the room's write has made the
        match the one after): its events (``texts``: the same as JSON text) are told from
        now on."""
        self.plays.add(match_no, before, seat, move)
        self.last_move = events[0]
        self.events.extend((seq, text) for text in texts)

    def rematched(self, start: int, event: str) -> None:
        """A new match began at ``start`` with the event ``event`` (the room's write has
        made it the match): the last match's plays go with it, as a copy rebuilt from
        storage has none."""
        self.events = [(start, event)]
        self.last_move = None
        self.plays = HandPlays()

    def events_since(self, since: int) -> list[tuple[int, Raw]]:
        return [(n, Raw(e)) for n, e in self.events if n > since]
