"""The hints (RULES.md 3 and 8): *Llevarte*, *Llevarte solo*, the build ideas and the trail
flag of each hand card, checked against the full list of legal moves."""

from __future__ import annotations

from hypothesis import given

from server.engine import Card, Move, Position, card_options, hand_options, legal_moves, play
from server.engine.hints import MAX_IDEAS, card_options_json, item_weights
from server.engine.moves import hand_without, table_of

from .strategies import deterministic, game_positions, small_positions

FAST = deterministic(max_examples=120)


def taken_cards(position: Position, move: Move) -> list[Card]:
    cards = [move.card] + [c for c in position.cards if c.code in move.take]
    for pile in position.piles:
        if pile.id in move.take:
            cards.extend(pile.cards)
    return cards


def rank(position: Position, move: Move) -> tuple[int, int, int, int, int]:
    """RULES.md 3: the most cards, ties broken by spades, the 10♦, the 2♠, then aces."""
    cards = taken_cards(position, move)
    codes = {c.code for c in cards}
    return (
        len(cards),
        sum(1 for c in cards if c.suit == "s"),
        int("10d" in codes),
        int("2s" in codes),
        sum(1 for c in cards if c.rank == 1),
    )


def check_hints(position: Position, optimal: bool) -> None:
    listed = legal_moves(position)
    options = hand_options(position)
    assert [o.card for o in options] == list(position.hands[position.turn])
    for option in options:
        card = option.card
        assert card_options(position, card) == option
        captures = [m for m in listed if m.card == card and m.kind == "capture"]
        builds = [m for m in listed if m.card == card and m.kind == "build"]
        # Llevarte: a legal capture, the best one; none when the card captures nothing
        if not captures:
            assert option.llevarte is None and not option.can_capture
        else:
            assert option.llevarte in captures
            if optimal:
                assert rank(position, option.llevarte) == max(rank(position, m) for m in captures)
        # Llevarte solo: just the pairs and the piles of the value, when there are some
        value = 14 if card.rank == 1 else card.rank
        solo = {c.code for c in position.cards if c.rank == card.rank} | {
            p.id for p in position.piles if p.value == value
        }
        if solo:
            assert option.llevarte_solo == Move("capture", card, frozenset(solo))
            assert option.llevarte_solo in captures
        else:
            assert option.llevarte_solo is None
        # builds: every idea is legal, says whether it is double and which cards take it
        rest = list(position.hands[position.turn])
        rest.remove(card)
        kinds: dict[tuple[int, bool], int] = {}
        for move in builds:
            pile = play(position, move).piles[-1]
            key = (move.value or 0, pile.double)
            kinds[key] = max(kinds.get(key, 0), len(taken_cards(position, move)))
        for idea in option.builds:
            assert idea.move in builds
            assert play(position, idea.move).piles[-1].double == idea.double
            assert set(idea.takers) == {
                c for c in rest if (14 if c.rank == 1 else c.rank) == idea.move.value
            }
            if optimal:
                assert (
                    len(taken_cards(position, idea.move))
                    == kinds[(idea.move.value or 0, idea.double)]
                )
        if optimal:  # one idea per (value, double), by value, simple first, at most 12
            assert [(i.move.value, i.double) for i in option.builds] == sorted(kinds)[:MAX_IDEAS]
        assert option.trail == (Move("trail", card) in listed)
        assert option.to_json()["card"] == card.code


@FAST
@given(small_positions())
def test_hints_of_small_positions(position: Position) -> None:
    check_hints(position, optimal=True)


def test_hints_in_games() -> None:
    for position in game_positions()[::9]:
        small = len(position.cards) + len(position.piles) <= 8
        check_hints(position, optimal=small)


def test_the_rule_books_llevarte_example() -> None:
    position = Position.from_json(
        {"hands": [["9s"], []], "table": {"cards": ["9d", "5h", "4c", "6d", "3s"]}, "turn": 0}
    )
    option = card_options(position, Card.parse("9s"))
    assert option.llevarte == Move.capture("9s", "9d", "5h", "4c", "6d", "3s")
    assert option.llevarte_solo == Move.capture("9s", "9d")


def test_llevarte_breaks_ties_by_spades_then_the_10_of_diamonds() -> None:
    # 10: 6s+4h or 6h+4d, two cards either way: the spade decides
    position = Position.from_json(
        {"hands": [["10c"], []], "table": {"cards": ["6h", "4d", "6s"]}, "turn": 0}
    )
    assert card_options(position, Card.parse("10c")).llevarte == Move.capture("10c", "6s", "4d")
    # 12: 10d+2c or 10h+2c, two cards either way, no spade: the 10 of diamonds decides
    position = Position.from_json(
        {"hands": [["Qc"], []], "table": {"cards": ["10h", "2c", "10d"]}, "turn": 0}
    )
    assert card_options(position, Card.parse("Qc")).llevarte == Move.capture("Qc", "10d", "2c")
    # but more cards come first: 9h+3c beside 10d+2h is four cards
    position = Position.from_json(
        {"hands": [["Qc"], []], "table": {"cards": ["9h", "3c", "10d", "2h"]}, "turn": 0}
    )
    assert card_options(position, Card.parse("Qc")).llevarte == Move.capture(
        "Qc", "10d", "2h", "9h", "3c"
    )


def test_card_options_json_is_card_options_to_json() -> None:
    """The options of every frame (``card_options_json``, issue 31: no ``Move``,
    ``BuildIdea`` or ``CardOptions`` on the way) are exactly ``card_options(...).to_json()``,
    keys in order, for every card of the hand to move in whole games."""
    looked = 0
    for position in game_positions():
        table = table_of(position)
        weights = item_weights(table)
        hand = position.hands[position.turn]
        for card in hand:
            made = card_options_json(position, card, table, weights, hand_without(hand, card))
            expected = card_options(position, card, table, weights).to_json()
            assert list(made.items()) == list(expected.items())
            looked += 1
    assert looked > 100
