"""Computer players for a team (RULES.md 9.5): every level plays four-player positions with
a legal move, deterministic for a seed and blind: the same choice when only the other three
hands (their sizes kept, the partner's too) and the order of the deck change."""

from __future__ import annotations

import random
from collections import Counter

import pytest

import server.ai.dificil as dificil_module
from server import engine
from server.ai import LEVELS, choose_for_position
from server.ai.dificil import Dificil, Tuning, _stretch
from server.ai.inference import Inference, Seen
from server.ai.normal import Tuning as NormalTuning
from server.engine import DECK, Card, Move, Pile, Position, legal_moves, view_for
from tests.engine.oracles import oracle

from .helpers import four_player_positions
from .helpers import shuffle_hidden_four as shuffle_hidden

FOUR = 4
SMALL = Dificil(
    Tuning(samples=2, candidates=3, rollout=NormalTuning(samples=2, max_candidates=6, min_builds=2))
)


def test_the_positions_cover_every_seat_and_the_last_deal() -> None:
    positions = four_player_positions()
    assert {p.turn for p in positions} == {0, 1, 2, 3}
    assert any(not p.deck for p in positions) and any(p.deck for p in positions)
    assert all(p.seat_count == FOUR for p in positions)


def test_facil_and_normal_are_legal_deterministic_and_blind() -> None:
    changed = 0
    for n, position in enumerate(four_player_positions()):
        variants = [shuffle_hidden(position, k) for k in range(3)]
        variants.append(position.replace(deck=tuple(reversed(position.deck))))
        changed += sum(v != position for v in variants)
        for level in ("facil", "normal"):
            move = choose_for_position(level, position, n)
            assert move in legal_moves(position)
            assert choose_for_position(level, position, n) == move
            for variant in variants:
                assert Counter(variant.all_cards()) == Counter(DECK)
                assert choose_for_position(level, variant, n) == move, (level, position)
    assert changed >= 2 * len(four_player_positions())


def test_dificil_is_legal_deterministic_and_blind_in_four() -> None:
    positions = four_player_positions()[::6]
    assert any(not p.deck for p in positions)  # the last deal too: no solver with four
    for n, position in enumerate(positions):
        view = view_for(position, position.turn)
        moves = legal_moves(view.as_position())
        move = SMALL.choose(view, moves, random.Random(n))
        assert move in legal_moves(position)
        assert SMALL.choose(view, moves, random.Random(n)) == move
        for k in range(2):
            other = view_for(shuffle_hidden(position, k), position.turn)
            assert other == view  # what the seat sees is the same: so is the choice
            assert SMALL.choose(other, moves, random.Random(n)) == move


def test_the_real_dificil_plays_a_four_player_decision() -> None:
    for n, position in enumerate(four_player_positions()[1:40:13]):
        move = choose_for_position("dificil", position, n)
        assert move in legal_moves(position)
        assert choose_for_position("dificil", shuffle_hidden(position, 5), n) == move


def test_sampled_worlds_deal_three_hidden_hands_of_the_right_sizes() -> None:
    """Difícil's worlds: every other hand drawn from the unseen cards with its size, the
    deck from the rest, a pile owner holding a taker of its pile (RULES.md 4.4)."""
    for n, position in enumerate(four_player_positions()[:30]):
        view = view_for(position, position.turn)
        unseen = sorted(view.unseen(), key=DECK.index)
        for world in SMALL.sample_worlds(view, unseen, random.Random(n), 3):
            assert Counter(world.all_cards()) == Counter(DECK)
            assert world.hands[view.seat] == view.hand
            assert [len(h) for h in world.hands] == [len(h) for h in position.hands]
            assert len(world.deck) == len(position.deck)
            for pile in world.piles:
                held = {c.capture_value for c in world.hands[pile.owner]}
                assert pile.value in held or pile.owner == view.seat


def test_a_partners_plays_are_read_like_an_opponents() -> None:
    """Inference reads the plays of any other player, the partner's too: a partner who
    built a pile of 8 holds an 8 (RULES.md 4.4 and 9.2)."""
    table = (Card.parse("5h"),)
    before = Position(
        hands=((Card.parse("9c"),), (), (Card.parse("3c"), Card.parse("8d")), ()),
        cards=table,
        turn=2,
    )
    seen = Seen.before(view_for(before, 0), Move.build("3c", "5h", value=8))
    pile = Pile((Card.parse("5h"), Card.parse("3c")), 8, 2, False, "p1")
    now = Position(hands=((Card.parse("9c"),), (), (Card.parse("8d"),), ()), piles=(pile,), turn=0)
    reader = Inference(view_for(now, 0), (seen,), player=2)
    assert reader.informed and reader.player == 2
    assert reader.weight((Card.parse("8d"),)) > 0.0
    assert reader.weight((Card.parse("7d"),)) == 0.0


def test_levels_are_registered_for_four_as_for_two() -> None:
    assert list(LEVELS) == ["facil", "normal", "dificil"]


def test_the_oracle_chooses_for_a_four_player_seat_at_every_level() -> None:
    """NOTATION.md, the rules oracle: ``choose`` on four-player positions, a legal move at
    every level, the same answer to the same request, refused when the seat has no card."""
    positions = four_player_positions()[::10]
    requests = [
        {"op": "choose", "level": level, "position": p.to_json(), "seed": n}
        for n, p in enumerate(positions)
        for level in ("facil", "normal", "dificil")
    ]
    python = oracle("python")
    try:
        answers = python.ask_many(requests)
        again = python.ask_many(requests[:6])
        empty = positions[0].replace(hands=((), *positions[0].hands[1:]), turn=0)
        refused = python.ask({"op": "choose", "level": "normal", "position": empty.to_json()})
    finally:
        assert python.close()[0] == 0
    assert again == answers[:6]
    for request, answer in zip(requests, answers, strict=True):
        position = Position.from_json(request["position"])
        assert Move.from_json(answer["move"]) in legal_moves(position), (request, answer)
    assert refused == {"error": "the seat to move has no cards"}


def test_late_in_a_deal_dificil_plays_more_worlds_for_a_four_player_decision() -> None:
    """``four_stretch``: a decision with few plays left in the deal (short rollouts) gets
    more worlds, never fewer than a deal's first play, at most ``four_stretch`` times; the
    count depends on the hands' sizes only (what every seat sees)."""
    tuning = Tuning()
    stretches = {}
    for position in four_player_positions():
        view = view_for(position, position.turn)
        stretches[sum(view.hand_sizes)] = _stretch(view, tuning)
    assert stretches[16] == 1.0 and stretches.get(9, 1.0) == 1.0
    assert all(1.0 <= s <= tuning.four_stretch for s in stretches.values())
    small = [s for left, s in stretches.items() if left <= 4]
    assert small and all(s > 2.0 for s in small)
    assert _stretch(view, Tuning(four_stretch=1.0)) == 1.0


def test_a_four_player_decision_spends_at_most_four_plays_rollout_plays(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``four_plays`` caps the rollout plays of a decision, the extra worlds included (a
    count, so the same move on any machine); a deal's first plays cost more without it."""
    played = [0]
    play_legal = engine.play_legal

    def counted(position: Position, move: Move) -> object:
        played[0] += 1
        return play_legal(position, move)

    monkeypatch.setattr(dificil_module, "play_legal", counted)
    rollout = NormalTuning(samples=1, max_candidates=4, min_builds=1)
    capped = Dificil(Tuning(four_share=1.0, four_plays=400, four_rollout=rollout))
    free = Dificil(Tuning(four_share=1.0, four_plays=0, four_rollout=rollout))
    first = [
        p
        for p in four_player_positions()
        if sum(len(h) for h in p.hands) >= 15 and len(legal_moves(p)) >= 3
    ][:3]
    assert first
    for n, position in enumerate(first):
        view = view_for(position, position.turn)
        moves = legal_moves(view.as_position())
        spent = []
        for player in (capped, free):
            played[0] = 0
            assert player.choose(view, moves, random.Random(n)) in moves
            spent.append(played[0])
        assert 0 < spent[0] <= 400 < spent[1], spent
