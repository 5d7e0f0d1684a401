"""The live match of a room: what its actor holds besides the stored state, all of it
derived from the move log (``history.restore`` makes it for a room loaded from storage):

- ``match``: the current match (the engine's value);
- ``events``: the events of this match's last ``KEPT_SEQS`` seqs as JSON text, so that a
  socket that resumes is sent what it missed (text: no work for the garbage collector);
  a socket that missed more is served from storage (``events_from``: the oldest ``since``
  answered from memory; ``history.events_of`` for the others);
- ``last_move``: the last move's event (every view carries it);
- ``plays``: this hand's plays as public facts (what Difícil's inference reads);
- ``answers``: each seat's answers to its last ``MAX_REMEMBERED_IDS`` move ids (a retried
  move gets the same answer: a client resends its last unanswered move, not an older one).

One value, changed by its own methods, which the room's actor calls once a write is
committed (``actor.Room``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from ..ai.inference import Seen
from ..engine import Match, Move
from ..protocol import Ack, Raw, encode
from ..store import RoomState

MAX_REMEMBERED_IDS = 4  # per seat: the answers to its last move ids
KEPT_SEQS = 16  # the events of the last seqs kept in memory for resumes (older: storage)


def ack_text(move_id: str, seq: int) -> str:
    """The answer to a move id whose move was played at ``seq``."""
    return encode(Ack(move_id, seq))


class MoveAnswers:
    """Per seat, the answers to its last ``MAX_REMEMBERED_IDS`` move ids, oldest first: a
    played move's seq (its answer is its ack, made again when asked) or a refusal's text.
    An older id is answered as a new move would be: its old ``seq`` makes it ``stale``, so
    a move is never played twice."""

    __slots__ = ("_by_seat",)

    def __init__(self, seat_count: int) -> None:
        self._by_seat: tuple[list[tuple[str, int | str]], ...] = tuple(
            [] for _ in range(seat_count)
        )

    def get(self, seat: int, move_id: str) -> str | None:
        for known, answer in self._by_seat[seat]:
            if known == move_id:
                return ack_text(move_id, answer) if isinstance(answer, int) else answer
        return None

    def remember(self, seat: int, move_id: str, answer: int | str) -> None:
        """``answer``: the seq the move was played at, or the text of its refusal."""
        answered = self._by_seat[seat]
        answered.append((move_id, answer))
        if len(answered) > MAX_REMEMBERED_IDS:
            del answered[0]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, MoveAnswers) and self._by_seat == other._by_seat

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"MoveAnswers({self._by_seat!r})"


# the computer's levels whose choice reads the hand's plays (server/ai/inference.py)
READS_PLAYS = frozenset({"dificil"})


def reads_plays(state: RoomState) -> bool:
    """A computer that reads the hand's plays may play a turn of this room (its level, or
    a seat taken over at such a level): only then are the plays kept."""
    return any(state.level_of(seat) in READS_PLAYS for seat in range(state.seat_count))


@dataclass(slots=True)
class HandPlays:
    """The plays of the hand being played, as public facts (the table before each, the
    deck's size, the move): what Difícil's inference reads, kept only where it may play
    (``reads_plays``). ``complete``: every play of the hand is in ``plays`` (else, for a
    room where Difícil took a seat over in the middle of a hand, they are replayed from
    storage: ``history.hand_plays``)."""

    hand: tuple[int, int] = (-1, -1)  # (match number, hand number) of ``plays``
    plays: list[Seen] = field(default_factory=list)
    complete: bool = True

    def add(self, match_no: int, before: Match, seat: int, move: Move, keep: bool) -> None:
        """``seat`` played ``move`` in ``before`` (a new hand starts a new list); ``keep``:
        the plays are kept (``reads_plays``)."""
        hand = (match_no, before.hand_number)
        if self.hand != hand:
            self.hand, self.plays, self.complete = hand, [], keep
        if not (keep and self.complete):
            self.plays, self.complete = [], False
            return
        table = before.position
        self.plays.append(Seen(seat, table.cards, table.piles, len(table.deck), move))

    def of(self, match_no: int, match: Match) -> tuple[Seen, ...] | None:
        """The plays of ``match``'s current hand (none yet: a hand just dealt; None: they
        were not all kept)."""
        if self.hand != (match_no, match.hand_number):
            return ()
        return tuple(self.plays) if self.complete else None


@dataclass(slots=True)
class LiveMatch:
    match: Match
    events: list[tuple[int, str]]  # (seq, event as JSON text) of the last KEPT_SEQS seqs
    last_move: dict[str, Any] | None
    plays: HandPlays
    answers: MoveAnswers
    events_from: int = -1  # the oldest ``since`` whose events are all in ``events``

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
        keep_plays: bool,
    ) -> None:
        """``seat`` played ``move`` at ``seq`` in ``before`` (the room's write has made the
        match the one after): its events (``texts``: the same as JSON text) are told from
        now on; the play is kept for Difícil if ``keep_plays``."""
        self.plays.add(match_no, before, seat, move, keep_plays)
        self.last_move = events[0]
        self.events.extend((seq, text) for text in texts)
        oldest = seq - KEPT_SEQS
        if oldest > self.events_from:
            self.events_from = oldest
            drop = 0
            while self.events[drop][0] <= oldest:
                drop += 1
            del self.events[:drop]

    def rematched(self, start: int, event: str) -> None:
        """A new match began at ``start`` with the event ``event`` (the room's write has
        made it the match): the last match's plays go with it, as a copy rebuilt from
        storage has none."""
        self.events = [(start, event)]
        self.events_from = start - 1
        self.last_move = None
        self.plays = HandPlays()

    def events_since(self, since: int) -> list[tuple[int, Raw]] | None:
        """The events after ``since`` (None: not all of them are in memory)."""
        if since < self.events_from:
            return None
        return [(n, Raw(e)) for n, e in self.events if n > since]
