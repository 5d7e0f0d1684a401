"""The move generator against a second, deliberately naive reading of RULES.md 3-5.

``reference_legal`` checks one move by brute-force partition of its items into the groups the
rule book allows, written straight from the text and sharing no code with the generator. For
small random positions every conceivable move (each hand card, each subset of table items,
each kind and value) is checked both ways: the two readings must list the same moves.
"""

from __future__ import annotations

import random
from itertools import combinations

from hypothesis import given, settings
from hypothesis import strategies as st

from server.engine import DECK, Card, IllegalMove, Move, Pile, Position, legal_moves, play

Item = Card | Pile


def _value_as_one(card: Card) -> int:
    return card.rank  # inside a sum an ace counts 1


def _partitions(items: list[Item]) -> list[list[list[Item]]]:
    """Every partition of ``items`` into non-empty groups (items are few here)."""
    if not items:
        return [[]]
    first, rest = items[0], items[1:]
    found: list[list[list[Item]]] = []
    for partition in _partitions(rest):
        found.append([[first], *partition])
        for i in range(len(partition)):
            found.append(partition[:i] + [[first, *partition[i]]] + partition[i + 1 :])
    return found


def _capture_group_ok(group: list[Item], card: Card) -> bool:
    value = 14 if card.rank == 1 else card.rank
    if len(group) == 1 and isinstance(group[0], Pile):
        return group[0].value == value
    if any(isinstance(item, Pile) for item in group):
        return False
    cards = [item for item in group if isinstance(item, Card)]
    if len(cards) == 1:
        return cards[0].rank == card.rank
    return sum(_value_as_one(c) for c in cards) == value


def _build_group_ok(group: list[Item], card: Card, value: int, seat: int) -> bool:
    """``card`` is in the group as the played card (marked by identity) or not at all."""
    has_card = any(item is card for item in group)
    others = [item for item in group if item is not card]
    if has_card:
        if not others:
            return card.rank == value or (card.rank == 1 and value == 14)
        piles = [item for item in others if isinstance(item, Pile)]
        if piles:
            if len(others) != 1:
                return False
            pile = piles[0]
            return pile.owner != seat and not pile.double and pile.value + card.rank == value
        return card.rank + sum(_value_as_one(c) for c in others if isinstance(c, Card)) == value
    if len(others) == 1:
        item = others[0]
        if isinstance(item, Pile):
            return item.value == value
        return item.rank == value or (item.rank == 1 and value == 14)
    if any(isinstance(item, Pile) for item in others):
        return False
    return sum(_value_as_one(c) for c in others if isinstance(c, Card)) == value


def reference_legal(position: Position, move: Move) -> bool:
    seat = position.turn
    hand = list(position.hands[seat])
    card = move.card
    if card not in hand:
        return False
    rest = list(hand)
    rest.remove(card)
    by_name: dict[str, Item] = {c.code: c for c in position.cards}
    by_name.update({p.id: p for p in position.piles})
    if any(name not in by_name for name in move.take):
        return False
    taken = [by_name[name] for name in move.take]
    if move.kind == "trail":
        owns = any(p.owner == seat for p in position.piles)
        pairs = any(c.rank == card.rank for c in position.cards)
        return not owns and not pairs
    if move.kind == "capture":
        value = 14 if card.rank == 1 else card.rank
        if not taken:
            return False
        for c in position.cards:
            if c.rank == card.rank and c not in taken:
                return False
        for p in position.piles:
            if p.value == value and p not in taken:
                return False
        return any(
            all(_capture_group_ok(g, card) for g in partition) for partition in _partitions(taken)
        )
    value = move.value or 0
    if not 2 <= value <= 14 or not taken:
        return False
    holds = {14 if c.rank == 1 else c.rank for c in rest}
    if value not in holds:
        return False
    for p in position.piles:
        if p.owner == seat and p not in taken and p.value not in holds:
            return False
    simple = (
        all(isinstance(i, Card) for i in taken)
        and card.rank + sum(_value_as_one(c) for c in taken if isinstance(c, Card)) == value
    )
    single = taken[0] if len(taken) == 1 else None
    raise_ = (
        isinstance(single, Pile)
        and single.owner != seat
        and not single.double
        and single.value + card.rank == value
    )
    if simple or raise_:
        return True
    for partition in _partitions([card, *taken]):
        if len(partition) < 2:
            continue
        if sum(1 for g in partition if any(i is card for i in g)) != 1:
            continue
        if all(_build_group_ok(g, card, value, seat) for g in partition):
            return True
    return False


def random_position(seed: int) -> Position:
    rng = random.Random(seed)
    deck = list(DECK)
    if rng.random() < 0.5:  # crowd the deal with aces and small cards: more sums and builds
        deck = [c for c in deck if c.rank <= rng.choice((5, 7, 13))] + [
            c for c in deck if c.rank == 1
        ]
        deck = list(dict.fromkeys(deck))
    rng.shuffle(deck)
    hand = tuple(deck.pop() for _ in range(rng.randint(1, 4)))
    other = tuple(deck.pop() for _ in range(rng.randint(0, 4)))
    loose = tuple(deck.pop() for _ in range(rng.randint(0, 5)))
    piles: list[Pile] = []
    for n in range(rng.randint(0, 2)):
        a, b = deck.pop(), deck.pop()
        owner = rng.randint(0, 1)
        if a.rank == b.rank and rng.random() < 0.5:
            piles.append(Pile((a, b), a.rank, owner, True, f"p{n + 1}"))
        elif a.rank + b.rank <= 14:
            piles.append(Pile((a, b), a.rank + b.rank, owner, False, f"p{n + 1}"))
    turn = rng.randint(0, 1)
    hands = (hand, other) if turn == 0 else (other, hand)
    # a pile owner always holds a card that takes it (the rules keep it so)
    position = Position(hands=hands, cards=loose, piles=tuple(piles), turn=turn)
    held = {14 if c.rank == 1 else c.rank for c in hands[turn]}
    kept = tuple(p for p in piles if p.owner != turn or p.value in held)
    return position.replace(piles=kept)


def every_conceivable_move(position: Position) -> list[Move]:
    items = [c.code for c in position.cards] + [p.id for p in position.piles]
    subsets = [frozenset(s) for r in range(len(items) + 1) for s in combinations(items, r)]
    moves: list[Move] = []
    for card in position.hands[position.turn]:
        moves.append(Move("trail", card))
        for take in subsets:
            moves.append(Move("capture", card, take))
            for value in range(2, 15):
                moves.append(Move("build", card, take, value))
    return moves


@settings(max_examples=400, deadline=None, derandomize=True)
@given(st.integers(min_value=0, max_value=2**32))
def test_generator_agrees_with_the_rule_book_reading(seed: int) -> None:
    position = random_position(seed)
    listed = set(legal_moves(position))
    expected = {m for m in every_conceivable_move(position) if reference_legal(position, m)}
    assert listed == expected, position


@settings(max_examples=60, deadline=None, derandomize=True)
@given(st.integers(min_value=0, max_value=2**32))
def test_play_accepts_exactly_the_listed_moves(seed: int) -> None:
    position = random_position(seed)
    listed = set(legal_moves(position))
    for move in every_conceivable_move(position):
        try:
            play(position, move)
        except IllegalMove:
            assert move not in listed, move
        else:
            assert move in listed, move
