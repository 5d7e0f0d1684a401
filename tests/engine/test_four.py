"""Four players, two against two (RULES.md 9): the properties that hold for every position
and every match, on the same engine that plays two. Scenarios of each rule are in
seeds/scenarios/four.yaml."""

from __future__ import annotations

import random
from collections import Counter

from hypothesis import assume, given
from hypothesis import strategies as st

from server.engine import (
    DECK,
    IllegalMove,
    Match,
    Move,
    Position,
    legal_moves,
    play_step,
    shuffled_deck,
    view_for,
)
from server.engine.seats import next_seat, team_of

from .reference import reference_moves, rescore
from .strategies import deterministic, random_match, small_positions

FOUR = 4


@deterministic(300)
@given(small_positions(seat_count=FOUR))
def test_four_player_moves_are_what_a_literal_reading_of_the_rules_allows(
    position: Position,
) -> None:
    """RULES.md 9.2: moves per player (raise any other player's pile, keep one's own)."""
    assert set(legal_moves(position)) == reference_moves(position)


@deterministic(200)
@given(small_positions(seat_count=FOUR), st.data())
def test_every_four_player_move_goes_to_the_team_and_passes_the_turn(
    position: Position, data: st.DataObject
) -> None:
    moves = legal_moves(position)
    assume(moves)  # made-up positions may strand a pile (no deal makes them)
    move = data.draw(st.sampled_from(moves))
    step = play_step(position, move)
    after = step.position
    seat, team = position.turn, team_of(position.turn)
    assert after.turn == next_seat(seat, FOUR) and after.seat_count == FOUR
    assert Counter(after.all_cards()) == Counter(position.all_cards())
    gained = [len(a) - len(b) for a, b in zip(after.captured, position.captured, strict=True)]
    expected = [0, 0]
    expected[team] += len(step.taken)
    if step.result is not None:  # the last card: the table goes to the last capturer's team
        assert step.sweeper is not None
        expected[team_of(step.sweeper)] += len(step.swept)
    assert gained == expected
    if move.kind == "capture":
        assert after.limpias[team] == position.limpias[team] + step.limpia
        assert after.last_capturer == seat
    for other in range(FOUR):  # only the mover's hand lost a card (no deal here: empty deck)
        if other != seat:
            assert after.hands[other] == position.hands[other]
    assert Position.parse(after.to_text()) == after


@deterministic(25)
@given(st.integers(0, 10**6))
def test_a_four_player_match_always_ends_every_card_once_and_the_points_add_up(seed: int) -> None:
    rng = random.Random(seed)
    match = Match.new(f"four-{seed}", FOUR)
    dealer = 3
    while not match.finished:
        position = match.position
        assert Counter(position.all_cards()) == Counter(DECK)
        match, step = match.play(rng.choice(legal_moves(position)))
        assert Counter(step.position.all_cards()) == Counter(DECK)
        if step.result is not None:
            finished = step.position
            assert finished.hand_over and finished.table_empty
            assert sum(len(cards) for cards in finished.captured) == 52
            points, scores, winner = rescore(finished)
            assert step.result.to_json() == {"points": points, "scores": scores, "winner": winner}
            counted = [sum(row) for row in step.result.counted]
            assert list(step.result.scores) == [
                s + c for s, c in zip(finished.scores, counted, strict=True)
            ]
            if not match.finished:
                dealer = next_seat(dealer, FOUR)
                assert match.position.dealer == dealer  # the deal passes to the next seat
    assert match.winner in (0, 1) and match.scores[match.winner] >= 21
    assert match.scores[1 - match.winner] < 21


def test_a_four_player_match_deals_from_seat_0_round_to_seat_3_then_the_table() -> None:
    match = Match.new("cuatro", FOUR)
    deck = shuffled_deck("cuatro", 0)
    position = match.position
    assert position.dealer == 3 and position.turn == 0  # seat 3 deals, the creator leads
    assert position.hands == (deck[0:4], deck[4:8], deck[8:12], deck[12:16])
    assert position.cards == deck[16:20] and position.deck == deck[20:]
    assert len(position.deck) == 32  # 52 = 4 + 3 x 16: three deals


def test_a_four_player_hand_has_three_deals_and_the_dealer_plays_each_deals_last_card() -> None:
    match, moves, positions = random_match("three-deals", FOUR)
    replayed = Match.new("three-deals", FOUR)
    deals, order = 0, []
    for move in moves:
        order.append(replayed.position.turn)
        dealer = replayed.position.dealer
        replayed, step = replayed.play(move)
        if step.dealt:
            deals += 1
            assert order[-1] == dealer and step.position.turn == next_seat(dealer, FOUR)
            assert [len(hand) for hand in step.position.hands] == [4, 4, 4, 4]
        if step.result is not None:
            assert order[-1] == dealer and deals == 2 and len(order) == 48
            assert order == [next_seat(dealer, FOUR) + k & 3 for k in range(48)]
            deals, order = 0, []
    assert replayed == match


def test_two_players_stay_the_default() -> None:
    assert Match.new("dos") == Match.new("dos", 2)
    assert Match.new("dos").position.seat_count == 2
    position = Match.new("dos").position
    assert position.dealer == 1 and position.turn == 0 and len(position.deck) == 40


def test_a_seat_sees_its_own_hand_and_only_the_size_of_the_others_the_partners_too() -> None:
    """RULES.md 9.1: a player sees only their own hand, not the partner's."""
    _, _, positions = random_match("blind", FOUR)
    for position in positions[:60]:
        for seat in range(FOUR):
            view = view_for(position, seat)
            text = str(view.to_json())
            assert view.hand == position.hands[seat]
            assert view.hand_sizes == tuple(len(h) for h in position.hands)
            for other in range(FOUR):
                if other != seat:
                    assert not any(f"'{c.code}'" in text for c in position.hands[other])
            assert not any(f"'{c.code}'" in text for c in position.deck)
            known = view.as_position()
            assert known.hands[seat] == position.hands[seat] and known.seat_count == FOUR
            assert set(legal_moves(known)) == set(legal_moves(position)) or seat != position.turn


def test_a_four_player_position_refuses_a_move_of_a_card_another_seat_holds() -> None:
    position = Match.new("refuse", FOUR).position
    card = position.hands[2][0]
    try:
        play_step(position, Move("trail", card))
    except IllegalMove as exc:
        assert exc.code == "not_in_hand"
    else:
        raise AssertionError("seat 0 played seat 2's card")
