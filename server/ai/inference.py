"""What the opponent's plays of this deal say about the cards it holds (issue 19).

Difícil samples the opponent's hand from the cards its seat has not seen. The opponent's
plays are public, and each says something about the hand that made it:

- **Certain** (hard constraints, weight 0 otherwise). After every play the player still
  holds a card of the value of every pile it owns (RULES.md 4.4): one who built or raised
  a pile to ``v`` held a ``v`` card then, and holds it still unless it has played one
  since. A hand that breaks this for any play of the deal gets no weight.
- **Likely** (soft weights, with Normal as the model of the opponent's policy). One who
  trailed while a card of its hand would have captured something probably held no such
  card: each such card multiplies the hand's weight by ``Model.trail_with_capture``. One
  whose play left a limpia (virado) on the table probably could not make it: each card of
  the hand that would have swept the table multiplies it by ``Model.missed_limpia``. The
  factors are how often Normal makes such plays, measured over its self-play
  (scripts/fit_dealend.py, shipped in dealend.json).

Only the seat's own view is used: ``Seen`` is the table as this seat saw it before the
opponent's play, and the play itself, both public. The opponent's hand at an earlier play
of this deal is the hand being weighed plus the cards it has played since, which are all
known; so a hand is weighed against every play of the deal.
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from ..engine import Card, Move, NotationError, Pile, View
from ..engine.moves import Table, capture_masks
from ..engine.seats import SEAT_COUNTS, next_seat, seats

SUITS = "shdc"


@dataclass(frozen=True, slots=True)
class Seen:
    """One play by ``seat`` as the other seat saw it: the table before it (loose cards,
    piles), the deck's size then (which names the deal) and the move."""

    seat: int
    cards: tuple[Card, ...]
    piles: tuple[Pile, ...]
    deck_size: int
    move: Move

    @classmethod
    def before(cls, view: View, move: Move) -> Seen:
        """The play ``move`` of the seat to move, as ``view`` (another seat's) saw it."""
        return cls(view.turn, view.cards, view.piles, view.deck_size, move)

    def to_json(self) -> dict[str, Any]:
        return {
            "seat": self.seat,
            "cards": [c.code for c in self.cards],
            "piles": [p.to_json() for p in self.piles],
            "deck_size": self.deck_size,
            "move": self.move.to_json(),
        }

    @classmethod
    def from_json(cls, data: Any) -> Seen:
        """A play from ``to_json``'s form; raises NotationError (or KeyError, TypeError)
        on anything else."""
        seat, deck_size = data["seat"], data["deck_size"]
        if seat not in seats(max(SEAT_COUNTS)) or not isinstance(deck_size, int):
            raise NotationError(f"bad play {data!r}")
        return cls(
            seat,
            tuple(Card.parse(c) for c in data["cards"]),
            tuple(Pile.from_json(p) for p in data["piles"]),
            deck_size,
            Move.from_json(data["move"]),
        )


def seen_to_text(seen: Sequence[Seen]) -> str:
    return json.dumps([s.to_json() for s in seen], separators=(",", ":"))


def seen_from_text(text: str) -> tuple[Seen, ...]:
    return tuple(Seen.from_json(item) for item in json.loads(text))


@dataclass(frozen=True, slots=True)
class Model:
    """Likelihood factors of the opponent model (one per card of the hand)."""

    trail_with_capture: float = 0.3
    missed_limpia: float = 0.15


@dataclass(frozen=True, slots=True)
class Fact:
    """What one play of the deal needs of the hand that made it: the card played, the
    pile values it must hold after the play, the ranks that would have captured (if it
    trailed) and the ranks that would have swept the table (if it did not)."""

    card: Card
    owned_after: tuple[int, ...]
    captures: frozenset[int]
    sweeps: frozenset[int]


class Inference:
    """Weighs the hands of one other player (``player``; by default the next seat, the
    opponent with two players) against that player's plays of the current deal."""

    def __init__(
        self,
        view: View,
        seen: Sequence[Seen],
        model: Model | None = None,
        player: int | None = None,
    ) -> None:
        self.model = model or Model()
        opponent = next_seat(view.seat, view.seat_count) if player is None else player
        self.player = opponent
        # this deal's plays only: the deck's size changes at each deal, never inside one
        plays = [s for s in seen if s.seat == opponent and s.deck_size == view.deck_size]
        self.facts = [fact_of(s) for s in plays]
        # the cards played after play i: still in the hand at play i
        self.later: list[tuple[Card, ...]] = [
            tuple(s.move.card for s in plays[i + 1 :]) for i in range(len(plays))
        ]

    @property
    def informed(self) -> bool:
        return bool(self.facts)

    def weight(self, hand: Sequence[Card]) -> float:
        """The relative likelihood of the opponent's plays of this deal if it now holds
        ``hand``: 0 when they could not have been made with it."""
        weight = 1.0
        model = self.model
        for fact, later in zip(self.facts, self.later, strict=True):
            rest = [*hand, *later]  # the hand after that play
            held = {c.capture_value for c in rest}
            if any(v not in held for v in fact.owned_after):
                return 0.0
            for card in rest:
                if card.rank in fact.captures:
                    weight *= model.trail_with_capture
                if card.rank in fact.sweeps:
                    weight *= model.missed_limpia
        return weight

    def pick(self, hands: list[list[Card]], count: int, rng: random.Random) -> list[list[Card]]:
        """``count`` of ``hands`` drawn in proportion to their weights (systematic
        resampling: one draw of ``rng``); the hands as given when nothing is known or every
        hand has no weight."""
        if not self.facts:
            return hands[:count]
        return resample(hands, [self.weight(h) for h in hands], count, rng)


def fact_of(seen: Seen) -> Fact:
    move, seat = seen.move, seen.seat
    taken = move.take
    owned_after = [p.value for p in seen.piles if p.owner == seat and p.id not in taken]
    if move.kind == "build" and move.value is not None:
        owned_after.append(move.value)
    table = Table(seen.cards, seen.piles)
    everything = (1 << len(table.items)) - 1
    visible = {c.code for c in seen.cards} | {c.code for p in seen.piles for c in p.cards}
    captures: set[int] = set()
    sweeps: set[int] = set()
    swept = move.kind == "capture" and len(taken) == len(table.items)
    for rank in range(1, 14):
        probe = _probe(rank, visible, move.card)
        if probe is None:
            continue
        masks = capture_masks(table, probe)
        if masks and move.kind == "trail":
            captures.add(rank)
        if not swept and everything and everything in masks:
            sweeps.add(rank)
    return Fact(move.card, tuple(sorted(set(owned_after))), frozenset(captures), frozenset(sweeps))


def _probe(rank: int, visible: set[str], played: Card) -> Card | None:
    """A card of ``rank`` not on the table (what it could capture depends on its rank
    only); None if every card of that rank is on the table."""
    for suit in SUITS:
        card = Card(rank, suit)
        if card.code not in visible and card != played:
            return card
    return None


Item = TypeVar("Item")


def resample(items: list[Item], weights: list[float], count: int, rng: random.Random) -> list[Item]:
    """``count`` of ``items`` in proportion to ``weights`` (systematic resampling, one draw
    of ``rng``); the first ``count`` when every weight is zero."""
    total = sum(weights)
    if total <= 0.0:
        return items[:count]
    step = total / count
    point = rng.random() * step
    chosen: list[Item] = []
    running = 0.0
    for item, w in zip(items, weights, strict=True):
        running += w
        while len(chosen) < count and point < running:
            chosen.append(item)
            point += step
    while len(chosen) < count:  # rounding at the very end
        chosen.append(items[max(range(len(items)), key=weights.__getitem__)])
    return chosen
