"""What one seat may see of a position (``view_for(position, seat)``), and what anyone may
see, seated or not (``public_view(position)``: a watcher's)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .cards import DECK, Card
from .position import Pile, Position

Hand = tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class View:
    """A seat's view: its own hand, and of the opponent's only the number of cards.
    Never the opponent's cards, never the order of the deck."""

    seat: int
    hand: Hand
    opponent_hand_size: int
    cards: tuple[Card, ...]
    piles: tuple[Pile, ...]
    turn: int
    dealer: int
    deck_size: int
    captured: tuple[Hand, Hand]
    limpias: tuple[int, int]
    last_capturer: int | None
    scores: tuple[int, int]

    def as_position(self) -> Position:
        """A position with what this seat knows: enough to list and check its own moves.
        The opponent's hand and the deck are left empty."""
        hands: list[Hand] = [(), ()]
        hands[self.seat] = self.hand
        return Position(
            hands=(hands[0], hands[1]),
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
        """Cards this seat has not seen: the opponent's hand and the deck, together."""
        seen = set(self.hand) | set(self.cards)
        for pile in self.piles:
            seen.update(pile.cards)
        seen.update(self.captured[0])
        seen.update(self.captured[1])
        return set(DECK) - seen

    def to_json(self) -> dict[str, Any]:
        return {
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
            "captured_counts": [len(self.captured[0]), len(self.captured[1])],
            "limpias": list(self.limpias),
            "last_capturer": self.last_capturer,
            "scores": list(self.scores),
        }


def view_for(position: Position, seat: int) -> View:
    return View(
        seat=seat,
        hand=position.hands[seat],
        opponent_hand_size=len(position.hands[1 - seat]),
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


@dataclass(frozen=True, slots=True)
class PublicView:
    """What is face up for everyone (a watcher): the table, how many cards each hand and the
    deck hold, the counts and scores. Never a card in a hand, never the order of the deck."""

    hand_sizes: tuple[int, int]
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
        hand_sizes=(len(position.hands[0]), len(position.hands[1])),
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
