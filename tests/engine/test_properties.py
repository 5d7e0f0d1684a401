"""Properties of the engine over positions from seeded random matches and over small
positions made up by hypothesis (tests/engine/strategies.py).

The hypothesis profile is derandomized, so CI runs the same examples every time.
"""

from __future__ import annotations

import random
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from server.engine import (
    DECK,
    Card,
    IllegalMove,
    Match,
    Move,
    Position,
    legal_moves,
    play,
    play_legal,
    play_step,
    shuffled_deck,
    view_for,
)
from server.engine.moves import KINDS

from .reference import build_kind, reference_moves, rescore
from .strategies import (
    MATCH_SEEDS,
    deterministic,
    game_positions,
    random_match,
    small_positions,
)

FAST = deterministic(max_examples=150)
FEWER = settings(FAST, max_examples=60)


def table_items(position: Position) -> list[str]:
    return [c.code for c in position.cards] + [p.id for p in position.piles]


# -- the list of legal moves -------------------------------------------------------


def test_every_game_position_has_a_legal_move_and_no_duplicates() -> None:
    positions = game_positions()
    assert len(positions) > 500
    for position in positions:
        moves = legal_moves(position)
        assert moves, position
        assert len(moves) == len(set(moves)), position
        assert all(m.card in position.hands[position.turn] for m in moves)


def test_every_listed_move_is_accepted_by_play() -> None:
    for position in game_positions()[::3]:
        for move in legal_moves(position):
            after = play(position, move)
            assert after.turn == 1 - position.turn or after.hand_over


def _steps_agree(position: Position) -> int:
    count = 0
    for move in legal_moves(position):
        # each on a fresh copy: neither reads the table the other indexed
        fresh = Position.parse(position.to_text())
        assert play_legal(fresh, move) == play_step(position, move), (position, move)
        count += 1
    return count


def test_a_legal_move_played_unchecked_gives_the_checked_step() -> None:
    """``play_legal`` (a searcher's rollouts) is ``play_step`` without the checks: the
    same step for every legal move, with two players and four (double piles included)."""
    count = 0
    for position in [*game_positions()[::2], *game_positions(4)[::2]]:
        count += _steps_agree(position)
    assert count > 1000


@FAST
@given(small_positions())
def test_a_legal_move_played_unchecked_gives_the_checked_step_on_small_positions(
    position: Position,
) -> None:
    _steps_agree(position)


@FAST
@given(small_positions())
def test_every_listed_move_of_small_positions_is_accepted(position: Position) -> None:
    moves = legal_moves(position)
    assert len(moves) == len(set(moves))
    for move in moves:
        play(position, move)


@FAST
@given(small_positions())
def test_legal_moves_are_what_a_literal_reading_of_the_rules_allows(position: Position) -> None:
    assert set(legal_moves(position)) == reference_moves(position)


def test_game_positions_agree_with_the_literal_reading_too() -> None:
    checked = 0
    for position in game_positions()[::7]:
        if len(position.cards) + len(position.piles) <= 7:
            assert set(legal_moves(position)) == reference_moves(position), position
            checked += 1
    assert checked > 60


@FAST
@given(small_positions())
def test_a_build_makes_a_double_pile_exactly_when_it_is_no_simple_build(
    position: Position,
) -> None:
    for move in legal_moves(position):
        if move.kind != "build":
            continue
        after = play(position, move)
        old_ids = {p.id for p in position.piles}
        new = [p for p in after.piles if p.id not in old_ids]
        assert len(new) == 1, "a build makes exactly one new pile, with a fresh id"
        items = [c for c in position.cards if c.code in move.take] + [
            p for p in position.piles if p.id in move.take
        ]
        assert new[0].double == (
            build_kind(position, move.card, items, move.value or 0) == "double"
        )
        assert new[0].owner == position.turn and new[0].value == move.value


def _move_anything(position: Position, data: st.DataObject) -> Move:
    """Any well-formed move of a card of the hand: random kind, take-subset and value."""
    card = data.draw(st.sampled_from(position.hands[position.turn]))
    kind = data.draw(st.sampled_from(KINDS))
    if kind == "trail":
        return Move("trail", card)
    items = table_items(position)
    take = data.draw(st.sets(st.sampled_from(items)) if items else st.just(set()))
    value = data.draw(st.integers(0, 16)) if kind == "build" else None
    return Move(kind, card, frozenset(take), value)


def _check_play_against_listed(position: Position, data: st.DataObject, tries: int) -> None:
    """Drawn moves: a listed one plays; any other is refused with a code and a message."""
    listed = set(legal_moves(position))
    for _ in range(tries):
        move = _move_anything(position, data)
        if move in listed:
            play(position, move)
        else:
            try:
                play(position, move)
            except IllegalMove as exc:
                assert exc.code and exc.message
            else:
                raise AssertionError(f"{move} is not listed but play accepted it in {position}")


@FEWER
@given(small_positions(), st.data())
def test_play_accepts_exactly_the_listed_moves(position: Position, data: st.DataObject) -> None:
    _check_play_against_listed(position, data, tries=12)


@FEWER
@given(st.sampled_from(range(10_000)), st.data())
def test_play_accepts_exactly_the_listed_moves_in_games(index: int, data: st.DataObject) -> None:
    positions = game_positions()
    position = positions[index % len(positions)]
    _check_play_against_listed(position, data, tries=6)


def test_a_card_not_in_the_hand_is_never_played() -> None:
    for position in game_positions()[::25]:
        hand = set(position.hands[position.turn])
        other = next(c for c in DECK if c not in hand)
        try:
            play(position, Move("trail", other))
        except IllegalMove as exc:
            assert exc.code == "not_in_hand"
        else:
            raise AssertionError("played a card not in the hand")


# -- whole matches -----------------------------------------------------------------


def test_the_52_cards_are_always_all_accounted_for_and_hands_scored_right() -> None:
    for seed in MATCH_SEEDS:
        rng = random.Random(seed)
        match = Match.new(seed)
        while not match.finished:
            assert sorted(match.position.all_cards()) == sorted(DECK)
            match, step = match.play(rng.choice(legal_moves(match.position)))
            assert Counter(step.position.all_cards()) == Counter(DECK)
            if step.result is not None:
                assert step.position.hand_over
                assert step.position.table_empty
                assert sum(len(c) for c in step.position.captured) == 52
                points, scores, winner = rescore(step.position)
                assert step.result.to_json() == {
                    "points": points,
                    "scores": scores,
                    "winner": winner,
                }


def test_every_seeded_random_match_ends_with_one_winner() -> None:
    for seed in MATCH_SEEDS:
        match, moves, _ = random_match(seed)
        assert match.finished and match.winner in (0, 1)
        final = match.results[-1]
        assert final.winner == match.winner
        assert match.scores[match.winner] >= 21
        assert match.scores[1 - match.winner] < 21
        for earlier in match.results[:-1]:
            assert earlier.winner is None and max(earlier.scores) < 21
        assert match.move_count == len(moves)
        assert len(match.results) == match.hand_number + 1


def test_hands_alternate_the_dealer_and_carry_the_scores() -> None:
    match, moves, _ = random_match("alternate")
    assert len(match.results) >= 2
    replayed = Match.new("alternate")
    assert replayed.position.dealer == 1 and replayed.position.turn == 0  # seat 0 leads
    assert len(replayed.position.hands[0]) == len(replayed.position.hands[1]) == 4
    assert len(replayed.position.cards) == 4 and len(replayed.position.deck) == 40
    hand = 0
    for move in moves:
        replayed, step = replayed.play(move)
        if step.result is not None and not replayed.finished:
            hand += 1
            new = replayed.position
            assert new.dealer == (hand + 1) % 2 == 1 - new.turn  # hand 0: dealer 1
            assert new.scores == step.result.scores
            assert new.captured == ((), ()) and new.limpias == (0, 0)
            assert new.last_capturer is None


def test_replay_of_the_moves_is_the_live_match() -> None:
    for seed in MATCH_SEEDS[:6]:
        live, moves, positions = random_match(seed)
        assert Match.replay(seed, moves) == live
        half = len(moves) // 2
        halfway = Match.replay(seed, moves[:half])
        assert halfway.position == positions[half]  # the live match before its move ``half``
        assert halfway.move_count == half and halfway.seed == seed and not halfway.finished
    assert Match.new("a").position != Match.new("b").position


def test_a_finished_match_keeps_its_seed_and_its_last_hand_finished() -> None:
    for seed in MATCH_SEEDS[:3]:
        _, moves, _ = random_match(seed)
        match = Match.new(seed)
        for move in moves:
            match, step = match.play(move)
        assert match.finished and match.seed == seed and step.result is not None
        assert match.position == step.position  # that hand, finished: not a new deal
        assert match.position.hand_over and match.position.table_empty
        assert match.position.deck == () and sum(map(len, match.position.captured)) == 52
        start = match.results[-2].scores if len(match.results) > 1 else (0, 0)
        assert match.position.scores == start  # the scores from the start of that hand
        assert match.scores == step.result.scores and match.winner == step.result.winner
        assert match.hand_number == len(match.results) - 1 and match.move_count == len(moves)


def test_a_finished_match_takes_no_more_moves() -> None:
    match, _, _ = random_match(MATCH_SEEDS[0])
    try:
        match.play(Move("trail", DECK[0]))
    except IllegalMove as exc:
        assert exc.code == "match_over" and exc.message == "La partida ya terminó."
    else:
        raise AssertionError("played after the end of the match")


def test_turns_alternate_within_a_hand() -> None:
    match = Match.new("turns")
    rng = random.Random(5)
    for _ in range(60):
        before = match.position
        match, step = match.play(rng.choice(legal_moves(before)))
        if step.result is None:
            assert match.position.turn == 1 - before.turn
            # a new deal gives the lead back to the non-dealer, who is next anyway
            if step.dealt:
                assert match.position.turn == 1 - match.position.dealer


# -- notation round-trips ------------------------------------------------------------


def test_every_card_round_trips() -> None:
    codes = {card.code for card in DECK}
    assert len(codes) == 52
    for card in DECK:
        assert Card.parse(card.code) == card
        assert card.value == card.rank and card.capture_value == (
            14 if card.rank == 1 else card.rank
        )


@FAST
@given(small_positions())
def test_small_positions_round_trip(position: Position) -> None:
    assert Position.parse(position.to_text()) == position
    assert Position.parse(position.to_text()).to_json() == position.to_json()  # ids too


def test_game_positions_and_their_moves_round_trip() -> None:
    for position in game_positions()[::7]:
        assert Position.parse(position.to_text()) == position
        for move in legal_moves(position)[:40]:
            assert Move.parse(move.to_text()) == move
            shuffled = move.to_json()
            if "take" in shuffled:
                shuffled["take"] = list(reversed(shuffled["take"]))
            assert Move.from_json(shuffled) == move


@FAST
@given(small_positions())
def test_positions_after_any_move_round_trip(position: Position) -> None:
    for move in legal_moves(position)[:30]:
        step = play_step(position, move)
        assert Position.parse(step.position.to_text()) == step.position


def on_table(position: Position) -> Counter[Card]:
    found = Counter(position.cards)
    for pile in position.piles:
        found.update(pile.cards)
    return found


# The deck of a hand is a function of the match's seed alone, the same on every platform:
# a stored match is replayed from its seed and moves, so these decks may never change.
GOLDEN_DECKS = {
    ("golden", 0): "7d Jc 3d 10c 5h 7s 8d 9d 2h 10s 2d Kh Qh 6c Qs 6h 4c 8c Qd 2s 5d 9s 7c 6d "
    "10d 8s Jh 8h 4h 5s Qc Ks 4s 4d 3h 6s Ac Kd As 3s 2c Kc Ad Ah Js 9h 5c 9c "
    "10h Jd 7h 3c",
    ("golden", 1): "3d 9h 2s 5h 4h 5d 10c 8c Qc Qh Jd Js As Qs Ah 9s Ad Qd Jc 6c 2d 9c 7d 5c "
    "4s Ks 3c Ac 10s 10h Jh Kh 6h 5s Kd 2c 8h 7c Kc 4c 6d 8d 2h 3s 6s 3h 10d 4d "
    "7s 8s 7h 9d",
}


def test_the_decks_of_a_seed_never_change() -> None:
    for (seed, hand), codes in GOLDEN_DECKS.items():
        assert " ".join(c.code for c in shuffled_deck(seed, hand)) == codes


def test_a_hand_deals_4_4_4_then_five_more_rounds_of_4_4() -> None:
    """RULES.md 2 and NOTATION.md, Position: 4 to the non-dealer, 4 to the dealer, 4 to the
    table, in deck order; then, each time both hands are empty, 4 and 4 more: six deals, 48
    plays a hand."""
    match = Match.new("deals")
    deck = shuffled_deck("deals", 0)
    assert sorted(deck) == sorted(DECK)
    start = match.position
    assert start.hands[0] == deck[0:4] and start.hands[1] == deck[4:8]
    assert start.cards == deck[8:12] and start.deck == deck[12:]
    rng = random.Random(1)
    plays = deals = 0
    while True:
        before = match.position
        match, step = match.play(rng.choice(legal_moves(before)))
        plays += 1
        if step.dealt:
            deals += 1
            non_dealer, dealer = 1 - before.dealer, before.dealer
            assert step.position.hands[non_dealer] == before.deck[0:4]
            assert step.position.hands[dealer] == before.deck[4:8]
            assert step.position.deck == before.deck[8:]
            # none to the table: it holds what it held, plus the card played or less the take
            table_before, table_after = on_table(before), on_table(step.position)
            if step.move.kind == "capture":
                assert table_after == table_before - Counter(step.taken[1:])
            else:
                assert table_after == table_before + Counter([step.move.card])
        if step.result is not None:
            break
    assert plays == 48 and deals == 5


def test_positions_are_the_same_whatever_their_pile_ids() -> None:
    pile = {"cards": ["5d", "3c"], "value": 8, "owner": 0}
    one = Position.from_json(
        {"hands": [["8s"], []], "table": {"piles": [dict(pile, id="p1")]}, "turn": 0}
    )
    two = Position.from_json(
        {"hands": [["8s"], []], "table": {"piles": [dict(pile, id="x")]}, "turn": 0}
    )
    assert one == two and one.to_json() != two.to_json()
    three = Position.from_json(
        {"hands": [["8s"], []], "table": {"piles": [dict(pile, id="p1", owner=1)]}, "turn": 0}
    )
    assert one != three


def _codes_in(data: object) -> set[str]:
    if isinstance(data, str):
        return {data}
    if isinstance(data, dict):
        return set().union(*(_codes_in(v) for v in data.values())) if data else set()
    if isinstance(data, list):
        return set().union(*(_codes_in(v) for v in data)) if data else set()
    return set()


def test_a_seat_sees_neither_the_opponent_hand_nor_the_deck() -> None:
    for position in game_positions()[::11]:
        for seat in (0, 1):
            view = view_for(position, seat)
            visible = {c.code for c in position.hands[seat]} | {c.code for c in on_table(position)}
            hidden = {c.code for c in position.hands[1 - seat]} | {c.code for c in position.deck}
            assert not _codes_in(view.to_json()) & hidden
            assert {c.code for c in view.hand} | {c.code for c in view.cards} <= visible
            assert view.opponent_hand_size == len(position.hands[1 - seat])
            assert view.deck_size == len(position.deck)
            if seat == position.turn:
                assert legal_moves(view.as_position()) == legal_moves(position)
