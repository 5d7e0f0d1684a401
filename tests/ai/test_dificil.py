"""Difícil (RULES.md 7): registered, deterministic for a seed, blind to the hidden cards,
an exact last-deal solver (checked against a plain minimax), and values by the match."""

from __future__ import annotations

import itertools
import random
from pathlib import Path

from server.ai import LEVELS, choose_for_position
from server.ai.dificil import Dificil, Tuning
from server.ai.normal import Tuning as NormalTuning
from server.ai.odds import hand_chance, match_chance, result_chance
from server.ai.solver import solve
from server.engine import DECK, Card, Move, Pile, Position, legal_moves, play_step, view_for

from .helpers import cards, game_positions, shuffle_hidden

NORMAL = LEVELS["normal"]
FACIL = LEVELS["facil"]
# a small budget: the tests check behaviour, not strength
SMALL = Dificil(
    Tuning(samples=2, candidates=3, rollout=NormalTuning(samples=2, max_candidates=6, min_builds=2))
)
ROOT = Path(__file__).resolve().parents[2]


def _positions(count: int, *, deck: bool, every: int = 5) -> list[Position]:
    """Positions with a real choice from seeded Normal-vs-Fácil games: with cards still in
    the deck (and in the opponent's hand), or in the last deal."""
    found: list[Position] = []
    seed = 0
    while len(found) < count:
        for i, (pos, moves, _) in enumerate(game_positions(seed, (NORMAL, FACIL), limit=200)):
            if i % every or len(moves) < 2 or not pos.hands[1 - pos.turn]:
                continue
            if bool(pos.deck) == deck:
                found.append(pos)
        seed += 1
    return found[:count]


def _choose(player: Dificil, pos: Position, seed: int) -> Move:
    view = view_for(pos, pos.turn)
    moves = legal_moves(view.as_position())
    move = player.choose(view, moves, random.Random(seed))
    assert move in moves
    return move


def test_registered_with_the_other_levels() -> None:
    assert list(LEVELS) == ["facil", "normal", "dificil"]
    assert type(LEVELS["dificil"]).__name__ == "Dificil"
    # a plain import: a broken module must fail loudly, not drop its level
    source = (ROOT / "server" / "ai" / "__init__.py").read_text()
    assert "ImportError" not in source


def test_same_view_and_seed_give_the_same_move() -> None:
    for pos in _positions(4, deck=True) + _positions(2, deck=False):
        first = _choose(SMALL, pos, 11)
        assert _choose(SMALL, pos, 11) == first


def test_the_same_move_whatever_the_hidden_cards() -> None:
    positions = _positions(4, deck=True)
    moved = 0
    for pos in positions:
        mine = _choose(SMALL, pos, 5)
        for other in (shuffle_hidden(pos, 1), pos.replace(deck=tuple(reversed(pos.deck)))):
            moved += other != pos
            assert view_for(other, other.turn) == view_for(pos, pos.turn)
            assert _choose(SMALL, other, 5) == mine
    assert moved >= len(positions)  # the hidden cards really moved


def test_the_real_level_is_blind_too() -> None:
    pos = _positions(1, deck=True, every=7)[0]
    other = shuffle_hidden(pos, 3)
    assert other != pos
    assert choose_for_position("dificil", other, "s") == choose_for_position("dificil", pos, "s")


def _minimax(pos: Position, seat: int) -> float:
    """The plain game value for ``seat``: every move, no pruning, no table."""
    values = []
    for move in legal_moves(pos):
        step = play_step(pos, move)
        if step.result is not None:
            values.append(result_chance(step.result, seat))
        else:
            values.append(_minimax(step.position, seat))
    return max(values) if pos.turn == seat else min(values)


def _after(pos: Position, move: Move, seat: int) -> float:
    step = play_step(pos, move)
    return result_chance(step.result, seat) if step.result else _minimax(step.position, seat)


def test_the_last_deal_solver_finds_the_minimax_value() -> None:
    checked = 0
    for pos in _positions(40, deck=False, every=1):
        if len(pos.hands[0]) + len(pos.hands[1]) > 5:
            continue
        seat = pos.turn
        moves = legal_moves(pos)
        values = [_after(pos, m, seat) for m in moves]
        chosen = solve(pos, moves, seat, 100_000)
        assert chosen is not None
        assert abs(_after(pos, chosen, seat) - max(values)) < 1e-9
        assert chosen == moves[values.index(max(values))]  # ties: the first
        checked += 1
    assert checked >= 10


def test_the_last_deal_takes_the_table_with_the_last_capture() -> None:
    # deck empty; the opponent holds the 9d; the table 4s 5s. Trailing the 3c would let the
    # opponent's 9 take 4s+5s and the sweep; taking 4s+5s with the 9c first leaves the
    # opponent nothing, and the 3c can still go down after.
    mine, theirs = cards("9c 3c"), cards("9d 2h")
    loose = cards("4s 5s")
    used = set(mine) | set(theirs) | set(loose)
    rest = tuple(c for c in DECK if c not in used)
    pos = Position(
        hands=(mine, theirs),
        cards=loose,
        turn=0,
        dealer=1,
        captured=(rest[:24], rest[24:]),
        last_capturer=1,
        scores=(10, 10),
    )
    dificil = LEVELS["dificil"]
    assert isinstance(dificil, Dificil)
    assert _choose(dificil, pos, 0) == Move.capture("9c", "4s", "5s")


def test_match_chance_is_even_at_the_start_and_grows_with_the_score() -> None:
    assert abs(match_chance((0, 0), 0) - 0.5) < 1e-9
    assert abs(match_chance((7, 3), 0) + match_chance((7, 3), 1) - 1) < 1e-9
    row = [match_chance((a, 5), 0) for a in range(21)]
    assert all(x < y for x, y in itertools.pairwise(row[:18]))
    assert all(x < y for x, y in itertools.pairwise(row[18:]))
    # the 18-points rule bites: at 18 only más cartas, más picas and the 10♦ still score
    assert row[17] > row[18]
    assert match_chance((21, 5), 0) == 1.0 and match_chance((21, 5), 1) == 0.0


def test_hand_chance_counts_the_race_to_21_in_order() -> None:
    deck = list(DECK)
    ten = Card.parse("10d")
    others = [c for c in deck if c != ten]
    # both at 19: player 0 has 27 cards, so "más cartas" (counted first) wins the match
    # for it before player 1's 10♦ (counted third) would
    captured = (others[:27], [ten, *others[27:30]])
    assert hand_chance((19, 19), captured, (0, 0), 0) == 1.0
    # with 20 cards each nobody has más cartas yet: player 1's 10♦ makes it likelier
    even = (others[:20], others[20:40])
    with_ten = (others[:20], [ten, *others[20:39]])
    assert hand_chance((19, 19), with_ten, (0, 0), 1) > hand_chance((19, 19), even, (0, 0), 1)


def test_hand_chance_knows_the_18_points_rule() -> None:
    deck = list(DECK)
    aces = [c for c in deck if c.rank == 1 and c.suit != "s"]  # no spade: same picas
    plain = [c for c in deck if c.rank != 1 and c.suit != "s" and c != Card.parse("10d")]
    # when both began the hand at 18 or more, aces and limpias score for nobody; at 10
    # they are worth a lot
    with_aces = (aces + plain[:5], plain[5:13])
    without = (plain[:8], plain[8:16])
    late = hand_chance((18, 19), with_aces, (2, 0), 0), hand_chance((18, 19), without, (0, 0), 0)
    assert abs(late[0] - late[1]) < 1e-9
    early = hand_chance((10, 11), with_aces, (2, 0), 0), hand_chance((10, 11), without, (0, 0), 0)
    assert early[0] > early[1] + 0.1


def test_sampled_worlds_agree_with_the_view_and_the_pile_rule() -> None:
    # the opponent (seat 1) owns piles of 9 and 13: every world gives it a 9 and a king
    piles = (
        Pile.parse("p1", "6d 3s", value=9, owner=1),
        Pile.parse("p2", "Qh Ac", value=13, owner=1),
    )
    mine, loose, theirs = cards("2c 8h 5d"), cards("4c"), cards("9s Ks 2d")
    used = {*mine, *loose, *theirs, *piles[0].cards, *piles[1].cards}
    rest = [c for c in DECK if c not in used]
    pos = Position(
        hands=(mine, theirs),
        cards=loose,
        piles=piles,
        turn=0,
        dealer=1,
        deck=tuple(rest[:16]),
        captured=((), tuple(rest[16:])),
        last_capturer=1,
    )
    pos.check()
    view = view_for(pos, 0)
    rng = random.Random(4)
    dificil = Dificil()
    for _ in range(200):
        world = dificil.sample_world(view, sorted(view.unseen()), rng)
        assert view_for(world, 0) == view
        assert {9, 13} <= {c.capture_value for c in world.hands[1]}
        assert sorted(world.hands[1] + world.deck) == sorted(pos.hands[1] + pos.deck)


def test_the_four_player_rollout_tuning_leaves_two_players_alone() -> None:
    """``four_rollout`` is the rollouts' Normal with four players only: with two, the same
    moves as the rollouts of ``rollout`` whatever it says."""
    rollout = NormalTuning(samples=2, max_candidates=6, min_builds=2)
    plain = Dificil(Tuning(samples=2, candidates=3, rollout=rollout, four_rollout=None))
    other = Dificil(
        Tuning(
            samples=2,
            candidates=3,
            rollout=rollout,
            four_rollout=NormalTuning(samples=1, max_candidates=2, min_builds=0, follow=0.0),
        )
    )
    assert Tuning().four_rollout is not None and Tuning().four_rollout != Tuning().rollout
    for n, pos in enumerate(_positions(4, deck=True)):
        assert _choose(other, pos, n) == _choose(plain, pos, n)
