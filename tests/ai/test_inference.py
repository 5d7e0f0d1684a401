"""Difícil's inference from the opponent's plays (issue 19): hands that could not have
made them get no weight, likely ones more than unlikely ones, and the seat stays blind."""

from __future__ import annotations

import random

from server.ai import LEVELS, choose_for_position
from server.ai.dificil import Dificil, Tuning
from server.ai.inference import Inference, Model, Seen, seen_from_text, seen_to_text
from server.ai.normal import Tuning as NormalTuning
from server.ai.pool import AiPool
from server.engine import Match, Move, Pile, legal_moves, view_for

from .helpers import cards, position, shuffle_hidden

SMALL = Dificil(
    Tuning(samples=3, candidates=3, rollout=NormalTuning(samples=2, max_candidates=6, min_builds=2))
)


def _built_eight() -> tuple[Seen, ...]:
    """This deal: the opponent (seat 1) built a pile of 8 (3♣ on 5♦), seat 0 took it."""
    build = Move("build", cards("3c")[0], frozenset({"5d"}), 8)
    pile = Pile(cards("5d 3c"), 8, 1, id="p1")
    take = Move("capture", cards("8h")[0], frozenset({"p1"}))
    return (
        Seen(1, cards("5d 2h"), (), 8, build),
        Seen(0, cards("2h"), (pile,), 8, take),
    )


def test_a_hand_that_could_not_have_built_gets_no_weight() -> None:
    pos = position("Kc 4s 6d", "2h", "8s Jd Qh", deck_size=8)
    view = view_for(pos, 0)
    inference = Inference(view, _built_eight())
    assert inference.informed
    assert inference.weight(cards("8s Jd Qh")) > 0.0
    assert inference.weight(cards("8d 9c 10h")) > 0.0  # any 8 will do
    assert inference.weight(cards("7s Jd Qh")) == 0.0  # no 8: it could not have built
    # a play of an earlier deal (another deck size) says nothing about this hand
    earlier = tuple(Seen(s.seat, s.cards, s.piles, 16, s.move) for s in _built_eight())
    assert not Inference(view, earlier).informed
    assert Inference(view, earlier).weight(cards("7s Jd Qh")) == 1.0
    # the 8 played since (a later play of the opponent this deal) answers for it
    later = Seen(1, cards("2h"), (), 8, Move("trail", cards("8c")[0]))
    assert Inference(view, (*_built_eight(), later)).weight(cards("7s Jd")) > 0.0


def test_sampled_worlds_hold_what_the_plays_require() -> None:
    pos = position("Kc 4s 6d", "2h", "8s Jd Qh", deck_size=8)
    view = view_for(pos, 0)
    inference = Inference(view, _built_eight())
    unseen = sorted(view.unseen(), key=lambda c: (c.rank, c.suit))
    worlds = SMALL.sample_worlds(view, unseen, random.Random(3), 40, inference)
    assert len(worlds) == 40
    assert all(any(c.rank == 8 for c in w.hands[1]) for w in worlds)
    # without the plays, many sampled hands hold no 8
    plain = SMALL.sample_worlds(view, unseen, random.Random(3), 40)
    assert sum(not any(c.rank == 8 for c in w.hands[1]) for w in plain) > 10


def test_trailing_past_a_capture_or_a_limpia_makes_the_capturing_cards_unlikely() -> None:
    model = Model(trail_with_capture=0.3, missed_limpia=0.1)
    pos = position("Kc 4s 6d", "5d 4c", "Jd Qh 2s", deck_size=8)
    view = view_for(pos, 0)
    # the opponent trailed the K♥ on 5♦ 4♣: a 9 (5 + 4), a 5 or a 4 would have taken
    trail = Seen(1, cards("5d 4c"), (), 8, Move("trail", cards("Kh")[0]))
    inference = Inference(view, (trail,), model)
    assert inference.weight(cards("Jd Qh 2s")) == 1.0
    assert abs(inference.weight(cards("9s Qh 2s")) - 0.3 * 0.1) < 1e-12  # 9 also sweeps
    assert abs(inference.weight(cards("5s 4h 2s")) - 0.3 * 0.3) < 1e-12
    # resampling keeps the likely hands far more often
    hands = [list(cards("Jd Qh 2s")), list(cards("9s Qh 2s"))] * 50
    picked = inference.pick(hands, 50, random.Random(1))
    assert len(picked) == 50
    assert sum(h[0].rank == 9 for h in picked) < 5
    # no hand with weight: the hands as drawn
    zero = Inference(view, _built_eight())
    assert (
        zero.pick([list(cards("7s Jd Qh"))] * 3, 2, random.Random(1))
        == [list(cards("7s Jd Qh"))] * 2
    )


def test_blind_with_the_plays_seen() -> None:
    """The same view, the same plays seen and the same seed give the same move, whatever
    the hidden cards."""
    normal = LEVELS["normal"]
    checked = 0
    for seed in range(6):
        match = Match.new(f"inference-{seed}")
        rng = random.Random(seed)
        seen: list[Seen] = []
        for _ in range(30):
            pos = match.position
            view = view_for(pos, pos.turn)
            moves = legal_moves(view.as_position())
            if pos.turn == 0 and len(moves) > 1 and pos.deck and seen:
                move = SMALL.choose(view, moves, random.Random(seed), seen)
                for k in range(2):
                    other = shuffle_hidden(pos, k)
                    view2 = view_for(other, other.turn)
                    assert SMALL.choose(view2, moves, random.Random(seed), seen) == move
                checked += 1
            else:
                move = normal.choose(view, moves, rng)
            seen.append(Seen(pos.turn, pos.cards, pos.piles, len(pos.deck), move))
            match, _ = match.play(move)
    assert checked >= 20


def test_plays_seen_cross_to_the_workers_as_text() -> None:
    plays = _built_eight()
    assert seen_from_text(seen_to_text(plays)) == plays
    assert [s.move for s in seen_from_text(seen_to_text(plays))] == [s.move for s in plays]
    assert seen_from_text("[]") == ()


async def test_the_pool_passes_the_plays_seen_to_difficil() -> None:
    """Through the pool (the text form), Difícil gets the same plays as in this process."""
    normal = LEVELS["normal"]
    match = Match.new("pool-seen")
    rng = random.Random(5)
    seen: list[Seen] = []
    pool = AiPool(0)
    compared = 0
    try:
        for _ in range(24):
            pos = match.position
            view = view_for(pos, pos.turn)
            moves = legal_moves(view.as_position())
            if pos.turn == 0 and len(moves) > 1 and any(s.seat == 1 for s in seen):
                here = choose_for_position("dificil", pos, "s", seen)
                assert await pool.choose("dificil", pos, "s", seen) == here
                compared += 1
            move = normal.choose(view, moves, rng)
            seen.append(Seen(pos.turn, pos.cards, pos.piles, len(pos.deck), move))
            match, _ = match.play(move)
    finally:
        await pool.close()
    assert compared >= 3
