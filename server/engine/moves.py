"""Moves: their JSON form, every legal move of a position, and playing one.

Items on the table are numbered as bits of one integer: loose card ``i`` is bit
``i``, pile ``j`` is bit ``len(cards) + j``. A take-set is such a mask, which
keeps the enumeration of captures and builds fast and free of duplicates.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Literal

from . import seats
from .cards import Card
from .errors import IllegalMove, InvalidMove, NotationError
from .position import Pile, Position
from .scoring import HandResult, score_hand

Kind = Literal["capture", "build", "trail"]
KINDS: tuple[Kind, ...] = ("capture", "build", "trail")
MAX_VALUE = 14


@dataclass(frozen=True, slots=True)
class Move:
    """A move: play ``card`` to capture or build with the table items ``take``, or trail it."""

    kind: Kind
    card: Card
    take: frozenset[str] = field(default_factory=frozenset)
    value: int | None = None

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"kind": self.kind, "card": self.card.code}
        if self.kind != "trail":
            data["take"] = sorted(self.take)
        if self.kind == "build":
            data["value"] = self.value
        return data

    def to_text(self) -> str:
        return json.dumps(self.to_json(), separators=(",", ":"))

    @classmethod
    def from_json(cls, data: object) -> Move:
        if not isinstance(data, dict):
            raise InvalidMove(f"a move must be an object, not {data!r}")
        kind = data.get("kind")
        if kind not in KINDS:
            raise InvalidMove(f"bad move kind {kind!r}")
        try:
            card = Card.parse(data.get("card"))
        except NotationError as exc:
            raise InvalidMove(str(exc)) from exc
        raw_take = data.get("take", [])
        if not isinstance(raw_take, list) or not all(
            isinstance(item, str) and 0 < len(item) <= 16 for item in raw_take
        ):
            raise InvalidMove(f"take must be a list of table items, not {raw_take!r}")
        take = frozenset(raw_take)
        if len(take) != len(raw_take):
            raise InvalidMove(f"take names an item twice: {raw_take!r}")
        value = data.get("value")
        if kind == "build":
            if not isinstance(value, int) or isinstance(value, bool):
                raise InvalidMove(f"a build must say its value, not {value!r}")
        elif value is not None:
            raise InvalidMove(f"a {kind} has no value, got {value!r}")
        if kind == "trail" and take:
            raise InvalidMove("a trail takes nothing")
        return cls(kind=kind, card=card, take=take, value=value)

    @classmethod
    def parse(cls, text: str) -> Move:
        try:
            data = json.loads(text)
        except (json.JSONDecodeError, TypeError) as exc:
            raise InvalidMove(f"move is not JSON: {text!r}") from exc
        return cls.from_json(data)

    @classmethod
    def capture(cls, card: str, *take: str) -> Move:
        return cls("capture", Card.parse(card), frozenset(take))

    @classmethod
    def build(cls, card: str, *take: str, value: int) -> Move:
        return cls("build", Card.parse(card), frozenset(take), value)

    @classmethod
    def trail(cls, card: str) -> Move:
        return cls("trail", Card.parse(card))

    def sort_key(self) -> tuple[int, int, str, tuple[str, ...], int]:
        return (
            _KIND_ORDER[self.kind],
            self.card.rank,
            self.card.suit,
            tuple(sorted(self.take)),
            self.value or 0,
        )

    def __repr__(self) -> str:
        args = ", ".join(repr(x) for x in [self.card.code, *sorted(self.take)])
        if self.kind == "build":
            return f"Move.build({args}, value={self.value})"
        return f"Move.{self.kind}({args})"


_KIND_ORDER = {kind: i for i, kind in enumerate(KINDS)}


# -- the table, indexed for enumeration -------------------------------------------


def loose_sums(cards: tuple[Card, ...]) -> tuple[list[list[int]], list[list[int]]]:
    """The subsets of loose ``cards`` with a sum of at most 14 (aces 1), as masks by their
    sum: those of one card or more, and those of two or more."""
    subsets: list[tuple[int, int, int]] = [(0, 0, 0)]  # mask, sum, size
    for i, card in enumerate(cards):
        bit, v = 1 << i, card.value
        subsets += [(m | bit, t + v, k + 1) for m, t, k in subsets if t + v <= MAX_VALUE]
    sums: list[list[int]] = [[] for _ in range(MAX_VALUE + 1)]
    multi: list[list[int]] = [[] for _ in range(MAX_VALUE + 1)]
    for mask, total, size in subsets[1:]:
        sums[total].append(mask)
        if size >= 2:
            multi[total].append(mask)
    return sums, multi


class Table:
    """The table of a position with the sums of its loose cards precomputed."""

    def __init__(self, cards: tuple[Card, ...], piles: tuple[Pile, ...]) -> None:
        self.cards = cards
        self.piles = piles
        n = len(cards)
        self.n = n
        self.items: list[str] = [c.code for c in cards] + [p.id for p in piles]
        self.sums, self.multi = loose_sums(cards)
        self._capture_unions: dict[int, set[int]] = {}
        self._other_unions: dict[int, set[int]] = {}
        self._names: dict[int, frozenset[str]] = {}
        self._other_groups: dict[int, list[int]] = {}
        # the groups a card may build with, asked for each card of the hand by the options
        # twice (its build ideas, its build sets): made once per table (never changed)
        self._card_groups: dict[tuple[int, int, int], list[int]] = {}
        self._rank_masks: dict[int, int] = {}
        for i, card in enumerate(cards):
            self._rank_masks[card.rank] = self._rank_masks.get(card.rank, 0) | 1 << i
        self._pile_masks: dict[int, int] = {}
        for j, pile in enumerate(piles):
            bit = 1 << (n + j)
            self._pile_masks[pile.value] = self._pile_masks.get(pile.value, 0) | bit

    def pile_bit(self, j: int) -> int:
        return 1 << (self.n + j)

    def owns_pile(self, seat: int) -> bool:
        return any(pile.owner == seat for pile in self.piles)

    def rank_mask(self, rank: int) -> int:
        """The loose cards of ``rank``."""
        return self._rank_masks.get(rank, 0)

    def piles_of_value(self, value: int) -> int:
        return self._pile_masks.get(value, 0)

    def capture_unions(self, value: int) -> set[int]:
        """Every union of disjoint sums (2+ loose cards) worth ``value``, the empty one included."""
        found = self._capture_unions.get(value)
        if found is None:
            found = disjoint_unions(self.multi[value])
            self._capture_unions[value] = found
        return found

    def other_unions(self, value: int) -> set[int]:
        """Non-empty unions of disjoint groups worth ``value`` not containing the played card."""
        found = self._other_unions.get(value)
        if found is None:
            found = disjoint_unions(self.other_groups(value))
            found.discard(0)
            self._other_unions[value] = found
        return found

    def names(self, mask: int) -> frozenset[str]:
        found = self._names.get(mask)
        if found is None:
            found = frozenset(item for i, item in enumerate(self.items) if mask >> i & 1)
            self._names[mask] = found
        return found

    @cached_property
    def bit_of(self) -> dict[str, int]:
        return {item: 1 << i for i, item in enumerate(self.items)}

    def other_groups(self, value: int) -> list[int]:
        """The groups of a double pile of ``value`` without the played card (RULES.md 4.3):
        sums of 2+ loose cards, one loose card of the value (a lone ace for 14), any pile."""
        groups = self._other_groups.get(value)
        if groups is None:
            groups = list(self.multi[value])
            groups.extend(
                1 << i
                for i, c in enumerate(self.cards)
                if c.value == value or (c.is_ace and value == MAX_VALUE)
            )
            groups.extend(
                self.pile_bit(j) for j, pile in enumerate(self.piles) if pile.value == value
            )
            self._other_groups[value] = groups
        return groups

    def mask_of(self, take: Iterable[str]) -> int | None:
        mask = 0
        for item in take:
            bit = self.bit_of.get(item)
            if bit is None:
                return None
            mask |= bit
        return mask


def disjoint_unions(groups: list[int]) -> set[int]:
    reachable = {0}
    for group in groups:
        for mask in [m for m in reachable if not m & group]:
            reachable.add(mask | group)
    return reachable


# -- enumeration ------------------------------------------------------------------


def capture_masks(table: Table, card: Card) -> set[int]:
    """Every legal take-set (as a mask) for capturing with ``card``."""
    value = card.capture_value
    mandatory = table.rank_mask(card.rank) | table.piles_of_value(value)
    takes = {mandatory | union for union in table.capture_unions(value)}
    takes.discard(0)
    return takes


def build_masks(
    table: Table, card: Card, rest: tuple[Card, ...], seat: int
) -> Iterator[tuple[int, int, bool]]:
    """Every legal build with ``card`` as (mask, value, double); ``rest`` is the hand after it."""
    held = {c.capture_value for c in rest}
    owned = [
        (table.pile_bit(j), pile.value) for j, pile in enumerate(table.piles) if pile.owner == seat
    ]
    for value in sorted(held):
        if value < 2:
            continue
        seen: set[int] = set()
        groups = card_groups(table, card, value, seat)
        for mask in groups:
            if not mask:
                continue
            if _keeps_piles(mask, owned, held):
                seen.add(mask)
                yield mask, value, False
        others = table.other_unions(value)
        if not others:
            continue
        for group in groups:
            for union in others:
                if group & union:
                    continue
                mask = group | union
                if mask in seen or not _keeps_piles(mask, owned, held):
                    continue
                seen.add(mask)
                yield mask, value, True


def _keeps_piles(mask: int, owned: list[tuple[int, int]], held: set[int]) -> bool:
    return all(bit & mask or value in held for bit, value in owned)


def may_trail(table: Table, card: Card, seat: int) -> bool:
    """RULES.md 5: no trail while owning a pile, nor with a card that pairs a loose one."""
    return not table.owns_pile(seat) and not table.rank_mask(card.rank)


def table_of(position: Position) -> Table:
    """The table of ``position``, indexed once for it (kept on the frozen position: its
    options, its legal moves and the move played from it all read the same one)."""
    table: Table | None = position.table_cache
    if table is None:
        table = Table(position.cards, position.piles)
        object.__setattr__(position, "table_cache", table)
    return table


def hand_without(hand: tuple[Card, ...], card: Card) -> tuple[Card, ...]:
    cards = list(hand)
    cards.remove(card)
    return tuple(cards)


def moves_for_card(position: Position, card: Card, table: Table | None = None) -> list[Move]:
    """Every legal move playing ``card`` from the hand of the seat to move."""
    table = table or table_of(position)
    seat = position.turn
    moves = [Move("capture", card, table.names(mask)) for mask in capture_masks(table, card)]
    rest = hand_without(position.hands[seat], card)
    moves.extend(
        Move("build", card, table.names(mask), value)
        for mask, value, _ in build_masks(table, card, rest, seat)
    )
    if may_trail(table, card, seat):
        moves.append(Move("trail", card))
    return moves


def legal_moves(position: Position) -> list[Move]:
    """Every legal move of the seat to move, each once, in a stable order."""
    table = table_of(position)
    moves: list[Move] = []
    for card in dict.fromkeys(position.hands[position.turn]):
        moves.extend(moves_for_card(position, card, table))
    moves.sort(key=Move.sort_key)
    return moves


# -- playing ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Step:
    """What one move did: the next position, and the hand's result if it ended."""

    position: Position
    move: Move
    taken: tuple[Card, ...] = ()
    limpia: bool = False
    dealt: bool = False
    result: HandResult | None = None
    swept: tuple[Card, ...] = ()  # cards the end of the hand gave to ``sweeper``
    sweeper: int | None = None


def play(position: Position, move: Move) -> Position:
    """The position after ``move``; raises IllegalMove if the rules forbid it."""
    return play_step(position, move).position


def check_move(position: Position, move: Move) -> tuple[Table, int, bool]:
    """Raises IllegalMove unless ``move`` is legal; returns the indexed table, the take
    mask and whether a build makes a double pile."""
    seat = position.turn
    card = move.card
    if position.hand_over:
        raise IllegalMove("hand_over", "La mano ya terminó.")
    if card not in position.hands[seat]:
        raise IllegalMove(
            "not_in_hand", f"No tienes {short_es(card)} en la mano.", {"card": card.code}
        )
    table = table_of(position)
    mask = table.mask_of(move.take)
    if mask is None:
        missing = sorted(item for item in move.take if item not in table.bit_of)
        raise IllegalMove(
            "not_on_table", f"En la mesa no hay {', '.join(missing)}.", {"items": missing}
        )
    if move.kind == "trail":
        if not may_trail(table, card, seat):
            raise _trail_error(position, card)
        return table, 0, False
    if move.kind == "capture":
        if not is_capture(table, card, mask):
            raise _capture_error(table, card, mask)
        return table, mask, False
    rest = hand_without(position.hands[seat], card)
    value = move.value or 0
    kind = build_kind(table, card, rest, seat, mask, value)
    if kind is None:
        raise _build_error(position, table, card, mask, value, rest)
    return table, mask, kind


# -- checking one move directly (no enumeration: fast on a crowded table) ------------


def can_partition(mask: int, groups: list[int]) -> bool:
    """Whether ``mask`` is exactly a union of disjoint ``groups``.

    Depth-first over the lowest item left, with an explicit stack (no recursive closure, so
    no reference cycle for the garbage collector on this hot path)."""
    by_low: dict[int, list[int]] = {}
    for group in groups:
        if group and group & mask == group:
            by_low.setdefault(group & -group, []).append(group)
    stack = [mask]
    seen: set[int] = set()
    while stack:
        left = stack.pop()
        if not left:
            return True
        if left in seen:
            continue
        seen.add(left)
        for group in by_low.get(left & -left, ()):
            if group & left == group:
                stack.append(left & ~group)
    return False


def capture_groups(table: Table, card: Card) -> list[int]:
    """The groups a capture with ``card`` may take: pairs, sums and piles of its value."""
    value = card.capture_value
    groups = list(table.multi[value])
    groups.extend(1 << i for i, c in enumerate(table.cards) if c.rank == card.rank)
    groups.extend(table.pile_bit(j) for j, pile in enumerate(table.piles) if pile.value == value)
    return groups


def is_capture(table: Table, card: Card, mask: int) -> bool:
    mandatory = table.rank_mask(card.rank) | table.piles_of_value(card.capture_value)
    if not mask or mandatory & ~mask:
        return False
    return can_partition(mask, capture_groups(table, card))


def card_groups(table: Table, card: Card, value: int, seat: int) -> list[int]:
    """The groups that may hold the played card in a build of ``value`` (0: the card alone;
    made once per table, card, value and seat: not to be changed)."""
    key = (card.rank, value, seat)
    groups = table._card_groups.get(key)
    if groups is None:
        groups = table._card_groups[key] = _card_groups(table, card, value, seat)
    return groups


def _card_groups(table: Table, card: Card, value: int, seat: int) -> list[int]:
    hv = card.value
    groups: list[int] = []
    if value - hv >= 1:
        groups.extend(table.sums[value - hv])
        groups.extend(
            table.pile_bit(j)
            for j, pile in enumerate(table.piles)
            if pile.owner != seat and not pile.double and pile.value == value - hv
        )
    if hv == value or (card.is_ace and value == MAX_VALUE):
        groups.append(0)
    return groups


def build_kind(
    table: Table, card: Card, rest: tuple[Card, ...], seat: int, mask: int, value: int
) -> bool | None:
    """None if the build is illegal, else whether it makes a double pile."""
    if not 2 <= value <= MAX_VALUE or not mask:
        return None
    held = {c.capture_value for c in rest}
    if value not in held:
        return None
    owned = [
        (table.pile_bit(j), pile.value) for j, pile in enumerate(table.piles) if pile.owner == seat
    ]
    if not _keeps_piles(mask, owned, held):
        return None
    groups = card_groups(table, card, value, seat)
    if mask in groups:
        return False  # a simple build or a raise
    others = table.other_groups(value)
    for group in groups:
        if group & mask == group and mask & ~group and can_partition(mask & ~group, others):
            return True
    return None


def play_step(position: Position, move: Move) -> Step:
    """Plays ``move`` and reports what happened (captures, limpia, deal, end of hand)."""
    table, mask, double = check_move(position, move)
    return _step(position, move, table, mask, double)


def play_legal(position: Position, move: Move) -> Step:
    """``play_step`` for one of ``legal_moves(position)``, its rules not checked again (a
    searcher's rollouts): a move that is not legal gives a position never reached, or an error."""
    table = table_of(position)
    mask = table.mask_of(move.take) or 0
    double = False
    if move.kind == "build":
        # a legal build is a double pile unless its take is one group with the card
        value = move.value or 0
        double = mask not in card_groups(table, move.card, value, position.turn)
    return _step(position, move, table, mask, double)


def _step(position: Position, move: Move, table: Table, mask: int, double: bool) -> Step:
    seat = position.turn
    card = move.card
    hands = list(position.hands)
    hands[seat] = hand_without(hands[seat], card)
    loose = [c for i, c in enumerate(table.cards) if not mask >> i & 1]
    kept_piles = [p for j, p in enumerate(table.piles) if not mask & table.pile_bit(j)]
    used_cards = [c for i, c in enumerate(table.cards) if mask >> i & 1]
    for j, pile in enumerate(table.piles):
        if mask & table.pile_bit(j):
            used_cards.extend(pile.cards)
    captured = list(position.captured)
    limpias = list(position.limpias)
    last_capturer = position.last_capturer
    taken: tuple[Card, ...] = ()
    limpia = False
    if move.kind == "capture":
        team = seats.team_of(seat)  # what a player captures goes to their team (RULES.md 9.3)
        taken = (card, *used_cards)
        captured[team] = captured[team] + taken
        last_capturer = seat
        if not loose and not kept_piles:
            limpia = True
            limpias[team] += 1
    elif move.kind == "build":
        kept_piles.append(
            Pile(
                tuple(used_cards) + (card,),
                move.value or 0,
                seat,
                double,
                new_pile_id(position.piles),
            )
        )
    else:
        loose.append(card)
    after = Position(
        hands=tuple(hands),
        cards=tuple(loose),
        piles=tuple(kept_piles),
        turn=seats.next_seat(seat, len(hands)),
        dealer=position.dealer,
        deck=position.deck,
        captured=(captured[0], captured[1]),  # per team: always two
        limpias=(limpias[0], limpias[1]),
        last_capturer=last_capturer,
        scores=position.scores,
    )
    if any(after.hands):
        return Step(after, move, taken, limpia)
    if after.deck:
        return Step(deal_round(after), move, taken, limpia, dealt=True)
    finished, swept, sweeper = sweep_table(after)
    return Step(
        finished, move, taken, limpia, result=score_hand(finished), swept=swept, sweeper=sweeper
    )


DEAL_SIZE = 4  # cards to each player per deal, 4 at a time (RULES.md 2 and 9.1)


def deal_round(position: Position) -> Position:
    """Deals 4 cards to each player from the top of the deck, starting with the seat after
    the dealer and ending with the dealer; a short deck runs out on the way (NOTATION.md)."""
    deck = position.deck
    hands = list(position.hands)
    count = len(hands)
    seat = position.dealer
    for _ in seats.seats(count):
        seat = seats.next_seat(seat, count)
        hands[seat] = hands[seat] + deck[:DEAL_SIZE]
        deck = deck[DEAL_SIZE:]
    return position.replace(hands=tuple(hands), deck=deck)


def sweep_table(position: Position) -> tuple[Position, tuple[Card, ...], int]:
    """End of the hand: the table goes to the last capturer's team, or the dealer's (RULES.md
    2 and 9.3). Not a limpia. Returns the finished position, the swept cards and the seat
    they went to (its team keeps them)."""
    receiver = position.last_capturer if position.last_capturer is not None else position.dealer
    team = seats.team_of(receiver)
    swept = list(position.cards)
    for pile in position.piles:
        swept.extend(pile.cards)
    captured = list(position.captured)
    captured[team] = captured[team] + tuple(swept)
    finished = position.replace(cards=(), piles=(), captured=(captured[0], captured[1]))
    return finished, tuple(swept), receiver


def new_pile_id(piles: tuple[Pile, ...]) -> str:
    numbers = [int(p.id[1:]) for p in piles if re.fullmatch(r"p\d{1,6}", p.id)]
    return f"p{max(numbers, default=0) + 1}"


# -- Spanish explanations -----------------------------------------------------------

_SHORT_ES = {1: "el as", 11: "la jota", 12: "la reina", 13: "el rey"}


def short_es(card: Card) -> str:
    """``el 5``, ``el as``, ``la reina``: how a player names a card by its rank."""
    return _SHORT_ES.get(card.rank, f"el {card.rank}")


def value_es(value: int) -> str:  # a build's value as a refusal words it
    return "14 (con un as)" if value == MAX_VALUE else str(value)


def _trail_error(position: Position, card: Card) -> IllegalMove:
    if any(pile.owner == position.turn for pile in position.piles):
        return IllegalMove(
            "trail_owns_pile",
            "No puedes echar una carta mientras tengas un montón en la mesa: "
            "llévatelo o construye.",
        )
    table = table_of(position)
    pairs = table.rank_mask(card.rank)
    pair = table.cards[(pairs & -pairs).bit_length() - 1]  # the first on the table
    return IllegalMove(
        "trail_pairs",
        f"No puedes echar {short_es(card)}: hace pareja con {short_es(card)} de la mesa.",
        {"card": card.code, "pair": pair.code},
    )


def _capture_error(table: Table, card: Card, mask: int) -> IllegalMove:
    if not mask:
        return IllegalMove("capture_empty", "Escoge lo que te vas a llevar de la mesa.")
    value = card.capture_value
    mandatory = table.rank_mask(card.rank) | table.piles_of_value(value)
    missing = mandatory & ~mask
    if missing:
        names = ", ".join(_item_es(table, bit) for bit in _bits(missing))
        return IllegalMove(
            "capture_must_take",
            f"Con {short_es(card)} tienes que llevarte también {names}: "
            "las parejas y los montones de su valor siempre se llevan.",
            {"card": card.code, "items": [_item(table, bit) for bit in _bits(missing)]},
        )
    return IllegalMove(
        "capture_bad_sum",
        f"Con {short_es(card)} solo te llevas parejas, montones de {value} "
        f"y cartas que sumen {value}.",
        {"card": card.code, "value": value},
    )


def _build_error(
    position: Position, table: Table, card: Card, mask: int, value: int, rest: tuple[Card, ...]
) -> IllegalMove:
    seat = position.turn
    if not 2 <= value <= MAX_VALUE:
        return IllegalMove("build_value", "Un montón vale de 2 a 14.")
    if not mask:
        return IllegalMove("build_empty", "Escoge las cartas de la mesa para tu montón.")
    # a pile the move tries to raise: the raise itself is what is not allowed
    for j, pile in enumerate(table.piles):
        if mask & table.pile_bit(j) and pile.value != value:
            if pile.double:
                return IllegalMove("build_raise_double", "Un montón doble no se puede subir.")
            if pile.owner == seat:
                return IllegalMove("build_raise_own", "No puedes subir tu propio montón.")
    if value not in {c.capture_value for c in rest}:
        need = "un as" if value == MAX_VALUE else f"un {value}"
        return IllegalMove(
            "build_no_card",
            f"Para hacer un montón de {value} tienes que quedarte con {need} en la mano.",
            {"value": value},
        )
    held = {c.capture_value for c in rest}
    for j, pile in enumerate(table.piles):
        bit = table.pile_bit(j)
        if pile.owner == seat and not bit & mask and pile.value not in held:
            return IllegalMove(
                "build_strands_pile",
                f"No puedes dejar tu montón de {pile.value} sin carta para llevártelo.",
                {"value": pile.value},
            )
    return IllegalMove(
        "build_invalid",
        f"Con esas cartas no se hace un montón de {value_es(value)}.",
        {"value": value},
    )


def _bits(mask: int) -> Iterator[int]:
    return (i for i in range(mask.bit_length()) if mask >> i & 1)


def _item(table: Table, index: int) -> str | int:
    """A table item as a refusal's arguments name it: a card's code, a pile's value."""
    if index < table.n:
        return table.cards[index].code
    return table.piles[index - table.n].value


def _item_es(table: Table, index: int) -> str:
    if index < table.n:
        return short_es(table.cards[index])
    pile = table.piles[index - table.n]
    return f"el montón de {pile.value}"
