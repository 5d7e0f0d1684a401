"""A slow, literal second reading of RULES.md sections 3-6, written apart from the engine.

It decides whether one move is legal by trying every way to split the take-set into the
groups the rule book names, and lists every legal move of a small position by trying every
subset of the table. Property tests compare it with ``legal_moves``; it is only fit for
small tables (it is exponential in the number of table items).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence
from itertools import combinations

from server.engine import Card, Move, Pile, Position

Item = Card | Pile


def capture_value(card: Card) -> int:
    """Section 1: played from the hand to capture, the ace is worth 14."""
    return 14 if card.rank == 1 else card.rank


def sum_value(card: Card) -> int:
    """Section 1: inside a sum of two or more cards, the ace counts 1."""
    return card.rank


def lone_worth(card: Card, value: int) -> bool:
    """A lone card stands as a group of ``value``: its number, or an ace standing as 14."""
    return card.rank == value or (card.rank == 1 and value == 14)


def _partitions_of_sums(cards: Sequence[Card], value: int, allow_single: bool) -> bool:
    """Whether ``cards`` split into groups worth ``value``: sums of two or more cards, and
    (``allow_single``) lone cards worth ``value``."""
    if not cards:
        return True
    first, rest = cards[0], list(cards[1:])
    if allow_single and lone_worth(first, value) and _partitions_of_sums(rest, value, True):
        return True
    for size in range(1, len(rest) + 1):
        for partners in combinations(range(len(rest)), size):
            if sum_value(first) + sum(sum_value(rest[i]) for i in partners) != value:
                continue
            others = [c for i, c in enumerate(rest) if i not in partners]
            if _partitions_of_sums(others, value, allow_single):
                return True
    return False


# -- section 3: capture --------------------------------------------------------------


def capture_is_legal(position: Position, card: Card, take: Sequence[Item]) -> bool:
    value = capture_value(card)
    if not take:  # 3.1
        return False
    piles = [item for item in take if isinstance(item, Pile)]
    loose = [item for item in take if isinstance(item, Card)]
    # 3.3: every pair and every pile of the value is in T
    if any(c.rank == card.rank and c not in loose for c in position.cards):
        return False
    if any(p.value == value and p not in piles for p in position.piles):
        return False
    # 3.2: piles are taken whole, only by their value
    if any(p.value != value for p in piles):
        return False
    # loose cards: pairs, or sums of two or more worth the value; try pairs as singles
    pairs = [c for c in loose if c.rank == card.rank]
    others = [c for c in loose if c.rank != card.rank]
    # a pair card may also sit in a sum (an ace inside a sum of 14): try every choice
    for k in range(len(pairs) + 1):
        for in_sums in combinations(pairs, k):
            rest = others + list(in_sums)
            if _partitions_of_sums(rest, value, allow_single=False):
                return True
    return False


# -- section 4: build ------------------------------------------------------------------


def _h_groups(
    position: Position, card: Card, take: Sequence[Item], value: int
) -> Iterator[tuple[list[Item], bool]]:
    """The ways to choose the group that holds ``card`` (4.3), as (items used, is_plain),
    where is_plain means the group alone is a simple build or a raise (4.1, 4.2)."""
    seat = position.turn
    loose = [item for item in take if isinstance(item, Card)]
    piles = [item for item in take if isinstance(item, Pile)]
    # h alone, when its value is v (an ace alone stands as 14)
    if lone_worth(card, value):
        yield [], False
    # h plus one or more loose cards adding up to v (4.1)
    for size in range(1, len(loose) + 1):
        for chosen in combinations(loose, size):
            if sum_value(card) + sum(sum_value(c) for c in chosen) == value:
                yield list(chosen), True
    # h plus one simple pile of the opponent: a raise (4.2)
    for pile in piles:
        if pile.owner != seat and not pile.double and pile.value + sum_value(card) == value:
            yield [pile], True


def _other_groups_ok(items: Sequence[Item], value: int) -> bool:
    """4.3: groups without h: a pile of v, one loose card of v, two or more loose cards
    adding up to v. At least one group is required by the caller."""
    piles = [item for item in items if isinstance(item, Pile)]
    if any(p.value != value for p in piles):
        return False
    loose = [item for item in items if isinstance(item, Card)]
    return _partitions_of_sums(loose, value, allow_single=True)


def build_kind(position: Position, card: Card, take: Sequence[Item], value: int) -> str | None:
    """``"simple"``, ``"double"`` or None (illegal) for building ``value`` with ``card``."""
    seat = position.turn
    if not 2 <= value <= 14:
        return None
    rest = list(position.hands[seat])
    rest.remove(card)
    held = {capture_value(c) for c in rest}
    if value not in held:  # 4.4: still holds a card of value v (an ace for 14)
        return None
    for pile in position.piles:  # 4.4: never strand an own pile
        if pile.owner == seat and pile not in take and pile.value not in held:
            return None
    if not take:
        return None
    double = False
    for group, plain in _h_groups(position, card, take, value):
        others = [item for item in take if item not in group]
        if not others and plain:
            return "simple"
        if others and _other_groups_ok(others, value):
            double = True
    return "double" if double else None


# -- section 5: trail -------------------------------------------------------------------


def trail_is_legal(position: Position, card: Card) -> bool:
    seat = position.turn
    if any(p.owner == seat for p in position.piles):
        return False
    return all(c.rank != card.rank for c in position.cards)


# -- every legal move ------------------------------------------------------------------


def _names(items: Sequence[Item]) -> frozenset[str]:
    return frozenset(i.code if isinstance(i, Card) else i.id for i in items)


def reference_moves(position: Position) -> set[Move]:
    """Every legal move of the seat to move, by trying every subset of the table."""
    table: list[Item] = [*position.cards, *position.piles]
    moves: set[Move] = set()
    for card in position.hands[position.turn]:
        for size in range(len(table) + 1):
            for take in combinations(table, size):
                if capture_is_legal(position, card, take):
                    moves.add(Move("capture", card, _names(take)))
                for value in range(2, 15):
                    if build_kind(position, card, take, value):
                        moves.add(Move("build", card, _names(take), value))
        if trail_is_legal(position, card):
            moves.add(Move("trail", card))
    return moves


# -- section 6: scoring --------------------------------------------------------------


def rescore(finished: Position) -> tuple[list[list[int]], list[int], int | None]:
    """RULES.md 6, read again: the points by category (after the 18-points rule), and the
    scores counted in category order (aces one by one, ♠ ♣ ♥ ♦) up to the first 21."""
    start = finished.scores
    late = [start[p] >= 18 for p in (0, 1)]
    points = [[0] * 6 for _ in (0, 1)]
    events: list[tuple[int, int]] = []  # (player, points), in counting order

    def give(player: int, category: int, amount: int) -> None:
        if amount and not (late[player] and category >= 3):
            points[player][category] += amount
            events.append((player, amount))

    taken = [Counter(finished.captured[p]) for p in (0, 1)]
    for p in (0, 1):
        give(p, 0, 3 if sum(taken[p].values()) > 26 else 0)
    for p in (0, 1):
        give(p, 1, 1 if sum(n for c, n in taken[p].items() if c.suit == "s") >= 7 else 0)
    for p in (0, 1):
        give(p, 2, 2 if taken[p][Card.parse("10d")] else 0)
    for p in (0, 1):
        give(p, 3, 1 if taken[p][Card.parse("2s")] else 0)
    for suit in "schd":
        for p in (0, 1):
            give(p, 4, 1 if taken[p][Card.parse("A" + suit)] else 0)
    difference = finished.limpias[0] - finished.limpias[1]
    give(0 if difference > 0 else 1, 5, abs(difference))

    scores = list(start)
    for player, amount in events:
        scores[player] += amount
        if scores[player] >= 21:
            return points, scores, player
    return points, scores, None
