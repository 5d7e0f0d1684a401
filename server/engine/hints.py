"""What each hand card can do, compactly: the *Llevarte* and *Llevarte solo* takes, the
builds it can make (the build ideas of RULES.md 8) and whether it may be trailed.

A crowded table can have tens of thousands of take-sets; these summaries stay small.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .cards import TEN_OF_DIAMONDS, TWO_OF_SPADES, Card
from .moves import (
    Move,
    Table,
    build_masks,
    capture_masks,
    hand_without,
    may_trail,
)
from .position import Position

MAX_IDEAS = 12


@dataclass(frozen=True, slots=True)
class BuildIdea:
    move: Move
    double: bool
    takers: tuple[Card, ...]  # the hand cards that will take the pile

    def to_json(self) -> dict[str, Any]:
        return {
            "move": self.move.to_json(),
            "value": self.move.value,
            "double": self.double,
            "takers": [c.code for c in self.takers],
        }


@dataclass(frozen=True, slots=True)
class CardOptions:
    card: Card
    llevarte: Move | None
    llevarte_solo: Move | None
    builds: tuple[BuildIdea, ...]
    trail: bool

    @property
    def can_capture(self) -> bool:
        return self.llevarte is not None

    def to_json(self) -> dict[str, Any]:
        return {
            "card": self.card.code,
            "llevarte": self.llevarte.to_json() if self.llevarte else None,
            "llevarte_solo": self.llevarte_solo.to_json() if self.llevarte_solo else None,
            "builds": [idea.to_json() for idea in self.builds],
            "trail": self.trail,
        }


def _cards_in(table: Table, mask: int) -> list[Card]:
    cards = [c for i, c in enumerate(table.cards) if mask >> i & 1]
    for j, pile in enumerate(table.piles):
        if mask & table.pile_bit(j):
            cards.extend(pile.cards)
    return cards


def take_rank(table: Table, card: Card, mask: int) -> tuple[int, int, int, int, int]:
    """How good a take is for *Llevarte*: most cards, then spades, the 10♦, the 2♠, aces."""
    cards = [card, *_cards_in(table, mask)]
    return (
        len(cards),
        sum(1 for c in cards if c.suit == "s"),
        int(TEN_OF_DIAMONDS in cards),
        int(TWO_OF_SPADES in cards),
        sum(1 for c in cards if c.is_ace),
    )


def best_take(table: Table, card: Card, masks: set[int]) -> int | None:
    if not masks:
        return None
    # the final key makes the choice independent of set iteration order
    return max(masks, key=lambda m: (take_rank(table, card, m), -m))


def card_options(position: Position, card: Card, table: Table | None = None) -> CardOptions:
    """What ``card`` (in the hand of the seat to move) can do in ``position``."""
    table = table or Table(position.cards, position.piles)
    seat = position.turn
    takes = capture_masks(table, card)
    most = best_take(table, card, takes)
    solo_mask = table.rank_mask(card.rank) | table.piles_of_value(card.capture_value)
    rest = hand_without(position.hands[seat], card)
    best_builds: dict[tuple[int, bool], int] = {}
    for mask, value, double in build_masks(table, card, rest, seat):
        key = (value, double)
        known = best_builds.get(key)
        if known is None or (len(_cards_in(table, mask)), -mask) > (
            len(_cards_in(table, known)), -known
        ):
            best_builds[key] = mask
    ideas = tuple(
        BuildIdea(
            Move("build", card, table.names(mask), value),
            double,
            tuple(c for c in rest if c.capture_value == value),
        )
        for (value, double), mask in sorted(best_builds.items())
    )[:MAX_IDEAS]
    return CardOptions(
        card=card,
        llevarte=Move("capture", card, table.names(most)) if most is not None else None,
        llevarte_solo=Move("capture", card, table.names(solo_mask)) if solo_mask else None,
        builds=ideas,
        trail=may_trail(position, card),
    )


def hand_options(position: Position) -> list[CardOptions]:
    """``card_options`` for every card in the hand of the seat to move."""
    table = Table(position.cards, position.piles)
    return [card_options(position, c, table) for c in position.hands[position.turn]]
