"""Piles and positions, with the JSON form of NOTATION.md."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Any

from . import seats
from .cards import DECK, Card
from .errors import NotationError

Hand = tuple[Card, ...]
Pair = tuple[int, int]

MAX_PILE_ID = 16


@dataclass(frozen=True, slots=True)
class Pile:
    """A pile (montón) on the table. Its id is a name only: it takes no part in equality."""

    cards: tuple[Card, ...]
    value: int
    owner: int
    double: bool = False
    id: str = field(default="", compare=False)

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "cards": [card.code for card in self.cards],
            "value": self.value,
            "owner": self.owner,
            "double": self.double,
        }

    @classmethod
    def from_json(cls, data: object) -> Pile:
        if not isinstance(data, dict):
            raise NotationError(f"a pile must be an object, not {data!r}")
        pile_id = data.get("id")
        if not isinstance(pile_id, str) or not pile_id or len(pile_id) > MAX_PILE_ID:
            raise NotationError(f"bad pile id {pile_id!r}")
        cards = _cards(data.get("cards"), f"pile {pile_id}")
        value = data.get("value")
        if not isinstance(value, int) or isinstance(value, bool) or not 2 <= value <= 14:
            raise NotationError(f"pile {pile_id}: bad value {value!r}")
        owner = data.get("owner")
        if not isinstance(owner, int) or isinstance(owner, bool) or owner not in _ANY_SEAT:
            raise NotationError(f"pile {pile_id}: bad owner {owner!r}")
        double = data.get("double", False)
        if not isinstance(double, bool):
            raise NotationError(f"pile {pile_id}: bad double {double!r}")
        pile = cls(cards=cards, value=value, owner=owner, double=double, id=pile_id)
        if not pile_cards_make_value(pile.cards, pile.value, pile.double):
            kind = "double" if double else "simple"
            raise NotationError(
                f"pile {pile_id}: cards {' '.join(c.code for c in cards)} "
                f"cannot make a {kind} pile of {value}"
            )
        return pile

    def __repr__(self) -> str:
        cards = " ".join(card.code for card in self.cards)
        return (
            f"Pile.parse({self.id!r}, {cards!r}, value={self.value}, "
            f"owner={self.owner}, double={self.double})"
        )

    @classmethod
    def parse(
        cls, pile_id: str, cards: str, *, value: int, owner: int, double: bool = False
    ) -> Pile:
        """Builds a pile from space-separated card codes (checked like the JSON form)."""
        return cls.from_json(
            {
                "id": pile_id,
                "cards": cards.split(),
                "value": value,
                "owner": owner,
                "double": double,
            }
        )


@dataclass(frozen=True, slots=True)
class Position:
    """Everything about a hand in progress: the NOTATION.md position. It has two hands or
    four (RULES.md 9): ``hands``, ``turn``, ``dealer``, a pile's ``owner`` and
    ``last_capturer`` are per player; ``captured``, ``limpias`` and ``scores`` per team."""

    hands: tuple[Hand, ...]
    cards: tuple[Card, ...] = ()  # loose cards on the table
    piles: tuple[Pile, ...] = ()
    turn: int = 0
    dealer: int = 1
    deck: tuple[Card, ...] = ()
    captured: tuple[Hand, Hand] = ((), ())
    limpias: Pair = (0, 0)
    last_capturer: int | None = None
    scores: Pair = (0, 0)
    # the table indexed for enumeration (``moves.table_of``), made once for this frozen
    # value: no part of it, never copied by ``replace``
    table_cache: Any = field(default=None, init=False, repr=False, compare=False)

    # -- reading and writing -------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        return {
            "hands": [[c.code for c in hand] for hand in self.hands],
            "table": {
                "cards": [c.code for c in self.cards],
                "piles": [pile.to_json() for pile in self.piles],
            },
            "turn": self.turn,
            "dealer": self.dealer,
            "deck": [c.code for c in self.deck],
            "captured": [[c.code for c in cards] for cards in self.captured],
            "limpias": list(self.limpias),
            "last_capturer": self.last_capturer,
            "scores": list(self.scores),
        }

    def to_text(self) -> str:
        return json.dumps(self.to_json(), separators=(",", ":"))

    @classmethod
    def from_json(cls, data: object) -> Position:
        if not isinstance(data, dict):
            raise NotationError(f"a position must be an object, not {data!r}")
        for key in ("hands", "table", "turn"):
            if key not in data:
                raise NotationError(f"position without {key!r}")
        raw_hands = data["hands"]
        if not isinstance(raw_hands, list) or len(raw_hands) not in seats.SEAT_COUNTS:
            raise NotationError(f"hands must be a list of 2 or 4 hands, not {raw_hands!r}")
        hands = tuple(_cards(v, f"hands[{i}]") for i, v in enumerate(raw_hands))
        count = len(hands)
        table = data["table"]
        if not isinstance(table, dict):
            raise NotationError(f"table must be an object, not {table!r}")
        cards = _cards(table.get("cards", []), "table cards")
        raw_piles = table.get("piles", [])
        if not isinstance(raw_piles, list):
            raise NotationError(f"table piles must be a list, not {raw_piles!r}")
        piles = tuple(Pile.from_json(p) for p in raw_piles)
        turn = _player(data["turn"], "turn", count)
        dealer = _player(data.get("dealer", seats.first_dealer(count)), "dealer", count)
        deck = _cards(data.get("deck", []), "deck")
        captured = _two(data.get("captured", [[], []]), "captured", lambda v, n: _cards(v, n))
        limpias = _two(data.get("limpias", [0, 0]), "limpias", _count)
        scores = _two(data.get("scores", [0, 0]), "scores", _count)
        last = data.get("last_capturer")
        last_capturer = None if last is None else _player(last, "last_capturer", count)
        position = cls(
            hands=hands,
            cards=cards,
            piles=piles,
            turn=turn,
            dealer=dealer,
            deck=deck,
            captured=captured,
            limpias=limpias,
            last_capturer=last_capturer,
            scores=scores,
        )
        position.check()
        return position

    @classmethod
    def parse(cls, text: str) -> Position:
        try:
            data = json.loads(text)
        except (json.JSONDecodeError, TypeError) as exc:
            raise NotationError(f"position is not JSON: {text!r}") from exc
        return cls.from_json(data)

    def check(self) -> None:
        """Raises NotationError if this position cannot happen."""
        count = len(self.hands)
        if count not in seats.SEAT_COUNTS:
            raise NotationError(f"a position has 2 or 4 hands, not {count}")
        for pile in self.piles:
            if pile.owner not in seats.seats(count):
                raise NotationError(f"pile {pile.id}: bad owner {pile.owner!r} (not a player here)")
        seen: set[Card] = set()
        for card in self.all_cards():
            if card in seen:
                raise NotationError(f"card {card.code} appears twice")
            seen.add(card)
        ids: set[str] = set()
        for pile in self.piles:
            if pile.id in ids:
                raise NotationError(f"pile id {pile.id!r} appears twice")
            if pile.id in _CODES:
                raise NotationError(f"pile id {pile.id!r} is a card code")
            ids.add(pile.id)

    def all_cards(self) -> Iterable[Card]:
        for hand in self.hands:
            yield from hand
        yield from self.cards
        for pile in self.piles:
            yield from pile.cards
        yield from self.deck
        for cards in self.captured:
            yield from cards

    # -- conveniences --------------------------------------------------------

    @property
    def seat_count(self) -> int:
        """How many players: 2, or 4 (two against two, RULES.md 9)."""
        return len(self.hands)

    @property
    def table_empty(self) -> bool:
        return not self.cards and not self.piles

    @property
    def hand_over(self) -> bool:
        """Every hand and the deck are empty: the hand (mano) is finished."""
        return not self.deck and not any(self.hands)

    def replace(self, **changes: Any) -> Position:
        return replace(self, **changes)

    def __repr__(self) -> str:
        return f"Position.parse({self.to_text()!r})"


# -- pile arithmetic ----------------------------------------------------------


def pile_cards_make_value(cards: tuple[Card, ...], value: int, double: bool) -> bool:
    """Whether ``cards`` can form a simple (sum) or double (>= 2 groups) pile of ``value``."""
    if len(cards) < 2:
        return False
    if not double:
        return sum(card.value for card in cards) == value
    return _groups_possible(sorted(cards, reverse=True), value) >= 2


def _groups_possible(cards: list[Card], value: int) -> int:
    """The number of groups of a partition of ``cards`` into groups worth ``value``, or 0."""
    if not cards:
        return 0
    first, rest = cards[0], cards[1:]
    # a lone card worth the value (a lone ace worth 14)
    if first.value == value or (first.is_ace and value == 14):
        if not rest:
            return 1
        more = _groups_possible(rest, value)
        if more:
            return more + 1
    # first card together with some of the others, summing to value
    need = value - first.value
    for subset in _subsets_summing(rest, need):
        remaining = [c for i, c in enumerate(rest) if i not in subset]
        if not remaining:
            return 1
        more = _groups_possible(remaining, value)
        if more:
            return more + 1
    return 0


def _subsets_summing(cards: list[Card], target: int, start: int = 0) -> Iterable[set[int]]:
    if target <= 0:
        return
    for i in range(start, len(cards)):
        v = cards[i].value
        if v == target:
            yield {i}
        elif v < target:
            for rest in _subsets_summing(cards, target - v, i + 1):
                yield {i} | rest


# -- JSON helpers ---------------------------------------------------------------

_CODES = frozenset(card.code for card in DECK)
_ANY_SEAT = seats.seats(max(seats.SEAT_COUNTS))  # a pile's owner, before the position is known


def _cards(value: object, what: str) -> tuple[Card, ...]:
    if not isinstance(value, list):
        raise NotationError(f"{what} must be a list of cards, not {value!r}")
    return tuple(Card.parse(item) for item in value)


def _player(value: object, what: str, count: int) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value not in seats.seats(count):
        players = " or ".join(str(s) for s in seats.seats(count))
        if count > 2:
            players = f"from 0 to {count - 1}"
        raise NotationError(f"{what} must be player {players}, not {value!r}")
    return value


def _count(value: object, what: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise NotationError(f"{what} must be a whole number, not {value!r}")
    return value


def _two(value: object, what: str, read: Any) -> Any:
    """One entry per team (there are always two teams)."""
    if not isinstance(value, list) or len(value) != len(seats.TEAMS):
        raise NotationError(f"{what} must be a list of two, not {value!r}")
    return tuple(read(value[team], f"{what}[{team}]") for team in seats.TEAMS)
