"""A match: a series of hands from one seed. A match is its seed plus its moves."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass

from . import seats
from .cards import DECK, Card
from .errors import IllegalMove
from .moves import DEAL_SIZE, Move, Step, deal_round, play_step
from .position import Position
from .scoring import HandResult

FIRST_DEALER = seats.first_dealer(2)  # the room creator's opponent deals first: seat 0 leads


def shuffled_deck(seed: str, hand_number: int) -> tuple[Card, ...]:
    """The deck of hand ``hand_number`` of the match ``seed``: a Fisher-Yates shuffle driven
    by SHA-256, so it is the same on every platform and Python version."""
    cards = list(DECK)
    for i in range(len(cards) - 1, 0, -1):
        digest = hashlib.sha256(f"{seed}:{hand_number}:{i}".encode()).digest()
        j = int.from_bytes(digest[:8], "big") % (i + 1)
        cards[i], cards[j] = cards[j], cards[i]
    return tuple(cards)


def start_hand(
    deck: tuple[Card, ...], dealer: int, scores: tuple[int, int], seat_count: int = 2
) -> Position:
    """Deals a new hand: 4 cards to each player from the seat after the dealer around to the
    dealer, then 4 to the table; the seat after the dealer plays first (RULES.md 2, 9.1)."""
    seats.check_count(seat_count)
    empty = Position(hands=((),) * seat_count, dealer=dealer, deck=deck, scores=scores, turn=dealer)
    dealt = deal_round(empty)
    return dealt.replace(
        cards=dealt.deck[:DEAL_SIZE],
        deck=dealt.deck[DEAL_SIZE:],
        turn=seats.next_seat(dealer, seat_count),
    )


@dataclass(frozen=True, slots=True)
class Match:
    """A match in progress or finished. ``position`` is the hand being played (after the
    last hand of a finished match: that hand, finished)."""

    seed: str
    position: Position
    hand_number: int = 0
    results: tuple[HandResult, ...] = ()
    winner: int | None = None
    move_count: int = 0

    @classmethod
    def new(cls, seed: str, seat_count: int = 2) -> Match:
        """A match of two players, or four (two against two); the last seat deals first."""
        dealer = seats.first_dealer(seats.check_count(seat_count))
        return cls(
            seed=seed,
            position=start_hand(shuffled_deck(seed, 0), dealer, (0, 0), seat_count),
        )

    @property
    def seat_count(self) -> int:
        return self.position.seat_count

    @classmethod
    def replay(cls, seed: str, moves: Iterable[Move], seat_count: int = 2) -> Match:
        match = cls.new(seed, seat_count)
        for move in moves:
            match, _ = match.play(move)
        return match

    @property
    def finished(self) -> bool:
        return self.winner is not None

    @property
    def scores(self) -> tuple[int, int]:
        return self.results[-1].scores if self.results else (0, 0)

    def play(self, move: Move) -> tuple[Match, Step]:
        """Plays ``move``; when the hand ends and nobody reached 21, deals the next hand."""
        if self.finished:
            raise IllegalMove("match_over", "La partida ya terminó.")
        step = play_step(self.position, move)
        if step.result is None:
            return self._replace(step.position), step
        results = (*self.results, step.result)
        if step.result.winner is not None:
            return (
                Match(
                    self.seed,
                    step.position,
                    self.hand_number,
                    results,
                    step.result.winner,
                    self.move_count + 1,
                ),
                step,
            )
        number = self.hand_number + 1
        dealer = seats.next_seat(self.position.dealer, self.seat_count)
        position = start_hand(
            shuffled_deck(self.seed, number), dealer, step.result.scores, self.seat_count
        )
        return Match(self.seed, position, number, results, None, self.move_count + 1), step

    def _replace(self, position: Position) -> Match:
        return Match(
            self.seed,
            position,
            self.hand_number,
            self.results,
            self.winner,
            self.move_count + 1,
        )
