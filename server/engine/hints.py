"""What each hand card can do, compactly: the *Llevarte* and *Llevarte solo* takes, the
builds it can make (the build ideas of RULES.md 8) and whether it may be trailed.

A crowded table can have tens of thousands of take-sets; these summaries stay small.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .cards import DECK, TEN_OF_DIAMONDS, TWO_OF_SPADES, Card
from .moves import (
    Move,
    Table,
    capture_groups,
    card_groups,
    hand_without,
    may_trail,
    table_of,
)
from .position import Position

MAX_IDEAS = 12
SEARCH_BUDGET = 2_000  # search steps per best_packing call (see there)
MAX_DOUBLE_TRIES = 24  # played-card groups searched for the biggest double pile of a value


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


def card_weight(card: Card) -> int:
    """``take_rank`` as one additive number: 6-bit fields, most significant first."""
    return (
        (1 << 24)
        + ((card.suit == "s") << 18)
        + ((card == TEN_OF_DIAMONDS) << 12)
        + ((card == TWO_OF_SPADES) << 6)
        + card.is_ace
    )


_WEIGHTS = {c.code: card_weight(c) for c in DECK}


def item_weights(table: Table) -> list[int]:
    """``card_weight`` of each table item (a pile weighs all its cards)."""
    weights = [_WEIGHTS[c.code] for c in table.cards]
    weights.extend(sum(_WEIGHTS[c.code] for c in pile.cards) for pile in table.piles)
    return weights


def mask_weight(mask: int, weights: Sequence[float]) -> float:
    """The weight of the items of ``mask``: their ``weights`` added from the lowest item up
    (the order of ``sum`` over ``enumerate``: the same result), one step per item in it,
    not per item on the table."""
    total: float = 0
    while mask:
        low = mask & -mask
        total += weights[low.bit_length() - 1]
        mask ^= low
    return total


def best_packing(
    groups: Sequence[int], avail: int, weights: Sequence[float], budget: int = SEARCH_BUDGET
) -> tuple[float, int]:
    """The heaviest union of disjoint ``groups`` inside ``avail``: (weight, mask).

    Branch and bound over the lowest coverable item (take it in some group, or leave it),
    heaviest groups first, pruned by the weight still coverable. Deterministic: the first best
    found wins. On a table far more crowded than real games make, the search stops after
    ``budget`` steps with the best found so far (the first tried is the greedy one), so a hint
    or a computer player's decision never stalls the server.
    """

    packer = _Packer(weights, budget)
    usable = sorted(
        ((packer.weight_of(g), g) for g in set(groups) if g and g & avail == g), reverse=True
    )
    packer.search(0, 0, usable)
    return packer.best, packer.best_mask


class _Packer:
    """The state of one ``best_packing`` search (a plain object: no closure cycles)."""

    __slots__ = ("weights", "budget", "best", "best_mask", "steps")

    def __init__(self, weights: Sequence[float], budget: int) -> None:
        self.weights = weights
        self.budget = budget
        self.best: float = 0
        self.best_mask = 0
        self.steps = 0

    def weight_of(self, mask: int) -> float:
        return mask_weight(mask, self.weights)

    def search(self, weight: float, mask: int, fitting: list[tuple[float, int]]) -> None:
        if weight > self.best:
            self.best, self.best_mask = weight, mask
        self.steps += 1
        if not fitting or self.steps > self.budget:
            return
        covered = 0
        for _, g in fitting:
            covered |= g
        if weight + self.weight_of(covered) <= self.best:
            return
        low = covered & -covered
        for w, g in fitting:
            if g & low:
                self.search(weight + w, mask | g, [(v, h) for v, h in fitting if not h & g])
        self.search(weight, mask, [(v, h) for v, h in fitting if not h & low])


def best_take(table: Table, card: Card, weights: list[int] | None = None) -> int | None:
    """The *Llevarte* take-set: the heaviest legal capture (it always holds every pair and
    pile of the card's value, since leaving one out would make it lighter)."""
    groups = capture_groups(table, card)
    if len(groups) <= 1:  # the common case: nothing to weigh
        return groups[0] if groups else None
    weights = weights or item_weights(table)
    everything = (1 << len(table.items)) - 1
    _, mask = best_packing(groups, everything, weights)
    return mask or None


def best_builds(
    table: Table,
    card: Card,
    rest: tuple[Card, ...],
    seat: int,
    weights: list[int] | None = None,
) -> dict[tuple[int, bool], int]:
    """For each (value, double), the build with ``card`` that uses the most cards."""
    held = {c.capture_value for c in rest}
    if any(p.owner == seat and p.value not in held for p in table.piles):
        return {}  # some own pile could not be kept: no build at all (RULES.md 4.4)
    weights = weights or item_weights(table)
    everything = (1 << len(table.items)) - 1
    found: dict[tuple[int, bool], tuple[float, int]] = {}
    for value in sorted(v for v in held if v >= 2):
        candidates = card_groups(table, card, value, seat)
        if not candidates:
            continue
        others = table.other_groups(value)
        groups = sorted(((mask_weight(g, weights), g) for g in candidates), reverse=True)
        simple = [(w, g) for w, g in groups if g]
        if simple:
            found[(value, False)] = simple[0]
        tries = 0
        for weight, group in groups:
            # bound: this group plus every other group that fits beside it
            reach = 0
            for other in others:
                if not other & group:
                    reach |= other
            if not reach:
                continue
            upper = weight + mask_weight(reach, weights)
            if upper <= found.get((value, True), (-1, 0))[0] or tries >= MAX_DOUBLE_TRIES:
                continue
            tries += 1
            extra, union = best_packing(others, everything & ~group, weights)
            if union and (weight + extra, group | union) > found.get((value, True), (-1, 0)):
                found[(value, True)] = (weight + extra, group | union)
    return {key: mask for key, (_, mask) in found.items()}


def card_options(
    position: Position,
    card: Card,
    table: Table | None = None,
    weights: list[int] | None = None,
) -> CardOptions:
    """What ``card`` (in the hand of the seat to move) can do in ``position``."""
    table = table or table_of(position)
    weights = weights or item_weights(table)
    seat = position.turn
    most = best_take(table, card, weights)
    solo_mask = table.rank_mask(card.rank) | table.piles_of_value(card.capture_value)
    rest = hand_without(position.hands[seat], card)
    ideas = tuple(
        BuildIdea(
            Move("build", card, table.names(mask), value),
            double,
            tuple(c for c in rest if c.capture_value == value),
        )
        for (value, double), mask in sorted(best_builds(table, card, rest, seat, weights).items())
    )[:MAX_IDEAS]
    return CardOptions(
        card=card,
        llevarte=Move("capture", card, table.names(most)) if most is not None else None,
        llevarte_solo=Move("capture", card, table.names(solo_mask)) if solo_mask else None,
        builds=ideas,
        trail=may_trail(table, card, seat),
    )


def card_options_json(
    position: Position,
    card: Card,
    table: Table,
    weights: list[int],
    rest: tuple[Card, ...],
) -> dict[str, Any]:
    """``card_options(position, card, table, weights).to_json()`` made straight from the
    masks, without the ``Move``, ``BuildIdea`` and ``CardOptions`` on the way (the mover's
    options in every frame after a move); ``rest``: the hand without ``card``. The same
    keys in the same order, the same values (``tests/engine/test_hints.py``)."""
    seat = position.turn
    code = card.code
    most = best_take(table, card, weights)
    solo_mask = table.rank_mask(card.rank) | table.piles_of_value(card.capture_value)
    ideas = sorted(best_builds(table, card, rest, seat, weights).items())[:MAX_IDEAS]
    builds = [
        {
            "move": {
                "kind": "build", "card": code, "take": sorted(table.names(mask)), "value": value,
            },
            "value": value,
            "double": double,
            "takers": [c.code for c in rest if c.capture_value == value],
        }
        for (value, double), mask in ideas
    ]  # fmt: skip
    return {
        "card": code,
        "llevarte": (
            {"kind": "capture", "card": code, "take": sorted(table.names(most))}
            if most is not None
            else None
        ),
        "llevarte_solo": (
            {"kind": "capture", "card": code, "take": sorted(table.names(solo_mask))}
            if solo_mask
            else None
        ),
        "builds": builds,
        "trail": may_trail(table, card, seat),
    }


def hand_options(position: Position) -> list[CardOptions]:
    """``card_options`` for every card in the hand of the seat to move."""
    table = table_of(position)
    weights = item_weights(table)
    return [card_options(position, c, table, weights) for c in position.hands[position.turn]]
