"""What one seat may see of a position (``view_for(position, seat)``), and what anyone may
see, seated or not (``public_view(position)``: a watcher's)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from . import seats
from .cards import DECK, Card
from .position import Pile, Position

Hand = tuple[Card, ...]
_DECK_SET = frozenset(DECK)


@dataclass(frozen=True, slots=True)
class View:
    """A seat's view: its own hand, and of every other hand only the number of cards (the
    partner's too, RULES.md 9.1). Never another player's cards, never the order of the deck."""

    seat: int
    hand: Hand
    hand_sizes: tuple[int, ...]  # every player's number of cards, this seat's included
    cards: tuple[Card, ...]
    piles: tuple[Pile, ...]
    turn: int
    dealer: int
    deck_size: int
    captured: tuple[Hand, Hand]
    limpias: tuple[int, int]
    last_capturer: int | None
    scores: tuple[int, int]

    @property
    def seat_count(self) -> int:
        return len(self.hand_sizes)

    @property
    def opponent_hand_size(self) -> int:
        """How many cards the next player (always an opponent) holds."""
        return self.hand_sizes[seats.next_seat(self.seat, self.seat_count)]

    def hidden_sizes(self) -> dict[int, int]:
        """How many cards each other player holds, by seat, in the order of play after it."""
        return {s: self.hand_sizes[s] for s in seats.others(self.seat, self.seat_count)}

    def as_position(self) -> Position:
        """A position with what this seat knows: enough to list and check its own moves.
        The other hands and the deck are left empty."""
        hands: list[Hand] = [() for _ in seats.seats(self.seat_count)]
        hands[self.seat] = self.hand
        return Position(
            hands=tuple(hands),
            cards=self.cards,
            piles=self.piles,
            turn=self.turn,
            dealer=self.dealer,
            deck=(),
            captured=self.captured,
            limpias=self.limpias,
            last_capturer=self.last_capturer,
            scores=self.scores,
        )

    def unseen(self) -> set[Card]:
        """Cards this seat has not seen: the other hands and the deck, together."""
        # a copy of a set hashes nothing: the deck's 52 cards are not hashed again at every
        # call (the searchers' rollouts ask this at every play)
        unseen = set(_DECK_SET)
        piles = (p.cards for p in self.piles)
        unseen.difference_update(self.hand, self.cards, *self.captured, *piles)
        return unseen

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "seat": self.seat,
            "hand": [c.code for c in self.hand],
            "opponent_hand_size": self.opponent_hand_size,
            "table": {
                "cards": [c.code for c in self.cards],
                "piles": [p.to_json() for p in self.piles],
            },
            "turn": self.turn,
            "dealer": self.dealer,
            "deck_size": self.deck_size,
            "captured_counts": [len(cards) for cards in self.captured],
            "limpias": list(self.limpias),
            "last_capturer": self.last_capturer,
            "scores": list(self.scores),
        }
        if self.seat_count != 2:  # the two-seat form is the wire's, unchanged
            data["hand_sizes"] = list(self.hand_sizes)
        return data


def view_for(position: Position, seat: int) -> View:
    return View(
        seat=seat,
        hand=position.hands[seat],
        hand_sizes=tuple(len(hand) for hand in position.hands),
        cards=position.cards,
        piles=position.piles,
        turn=position.turn,
        dealer=position.dealer,
        deck_size=len(position.deck),
        captured=position.captured,
        limpias=position.limpias,
        last_capturer=position.last_capturer,
        scores=position.scores,
    )


def view_json(position: Position, seat: int) -> dict[str, Any]:
    """``view_for(position, seat).to_json()``, built straight from the position (a seat's
    frame after every move: no ``View`` made on the way). The same keys, in the same order,
    with the same values (``tests/engine/test_view_json.py``)."""
    hands = position.hands
    count = len(hands)
    data: dict[str, Any] = {
        "seat": seat,
        "hand": [c.code for c in hands[seat]],
        "opponent_hand_size": len(hands[seats.next_seat(seat, count)]),
        "table": {
            "cards": [c.code for c in position.cards],
            "piles": [p.to_json() for p in position.piles],
        },
        "turn": position.turn,
        "dealer": position.dealer,
        "deck_size": len(position.deck),
        "captured_counts": [len(cards) for cards in position.captured],
        "limpias": list(position.limpias),
        "last_capturer": position.last_capturer,
        "scores": list(position.scores),
    }
    if count != 2:  # the two-seat form is the wire's, unchanged
        data["hand_sizes"] = [len(hand) for hand in hands]
    return data


@dataclass(frozen=True, slots=True)
class PublicView:
    """What is face up for everyone (a watcher): the table, how many cards each hand and the
    deck hold, the counts and scores. Never a card in a hand, never the order of the deck."""

    hand_sizes: tuple[int, ...]
    cards: tuple[Card, ...]
    piles: tuple[Pile, ...]
    turn: int
    dealer: int
    deck_size: int
    captured_counts: tuple[int, int]
    limpias: tuple[int, int]
    last_capturer: int | None
    scores: tuple[int, int]

    def to_json(self) -> dict[str, Any]:
        return {
            "hand_sizes": list(self.hand_sizes),
            "table": {
                "cards": [c.code for c in self.cards],
                "piles": [p.to_json() for p in self.piles],
            },
            "turn": self.turn,
            "dealer": self.dealer,
            "deck_size": self.deck_size,
            "captured_counts": list(self.captured_counts),
            "limpias": list(self.limpias),
            "last_capturer": self.last_capturer,
            "scores": list(self.scores),
        }


def public_view(position: Position) -> PublicView:
    return PublicView(
        hand_sizes=tuple(len(hand) for hand in position.hands),
        cards=position.cards,
        piles=position.piles,
        turn=position.turn,
        dealer=position.dealer,
        deck_size=len(position.deck),
        captured_counts=(len(position.captured[0]), len(position.captured[1])),
        limpias=position.limpias,
        last_capturer=position.last_capturer,
        scores=position.scores,
    )
