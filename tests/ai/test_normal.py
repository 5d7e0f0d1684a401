"""Normal (RULES.md 7): deterministic for a seed, sees only its seat's view, always plays a
legal move, and plays sensibly in a few clear-cut spots."""

from __future__ import annotations

import gc
import json
import random
import subprocess
import sys
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from server.ai import LEVELS, choose_for_position
from server.ai.normal import Normal, Tuning, _loose_sums
from server.engine import DECK, Match, Move, Pile, Position, legal_moves, view_for
from server.engine.moves import Table

from .helpers import choose, four_player_positions, game_positions, position, shuffle_hidden

NORMAL = LEVELS["normal"]
FACIL = LEVELS["facil"]
ROOT = Path(__file__).resolve().parents[2]


def _mid_game_positions(count: int) -> list[Position]:
    """Positions from seeded Normal-vs-Fácil games with a real choice and unseen cards
    split between the opponent's hand and the deck."""
    found: list[Position] = []
    seed = 0
    while len(found) < count:
        for i, (pos, moves, _) in enumerate(game_positions(seed, (NORMAL, FACIL), limit=60)):
            if i % 7 == 3 and len(moves) > 1 and pos.deck and pos.hands[1 - pos.turn]:
                found.append(pos)
        seed += 1
    return found[:count]


def test_is_registered() -> None:
    assert NORMAL.name == "normal"
    assert type(NORMAL).__name__ == "Normal"


def test_same_view_and_seed_give_the_same_move() -> None:
    for pos in _mid_game_positions(12):
        view = view_for(pos, pos.turn)
        moves = legal_moves(view.as_position())
        first = NORMAL.choose(view, moves, random.Random(42))
        for _ in range(2):
            assert NORMAL.choose(view, list(moves), random.Random(42)) == first
        assert choose_for_position("normal", pos, 7) == choose_for_position("normal", pos, 7)


def test_sees_only_its_view() -> None:
    positions = _mid_game_positions(12)
    changed = 0
    for pos in positions:
        variants = [shuffle_hidden(pos, k) for k in range(3)]
        variants.append(pos.replace(deck=tuple(reversed(pos.deck))))  # only the deck order
        for other in variants:
            if other != pos:
                changed += 1
            assert view_for(other, other.turn) == view_for(pos, pos.turn)
            for seed in (0, 1):
                assert choose_for_position("normal", other, seed) == choose_for_position(
                    "normal", pos, seed
                )
    assert changed >= len(positions)  # the hidden cards really moved


def test_sees_only_its_view_through_the_oracle() -> None:
    requests = []
    positions = _mid_game_positions(4)
    for pos in positions:
        for variant in (pos, shuffle_hidden(pos, 1), shuffle_hidden(pos, 2)):
            requests.append(
                {"op": "choose", "level": "normal", "position": variant.to_json(), "seed": 5}
            )
    lines = "".join(json.dumps(r) + "\n" for r in requests)
    done = subprocess.run(
        [sys.executable, "-m", "server.engine"],
        input=lines,
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
        check=True,
    )
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    assert len(answers) == len(requests)
    for i, pos in enumerate(positions):
        trio = answers[3 * i : 3 * i + 3]
        assert all("move" in a for a in trio), trio
        assert trio[0] == trio[1] == trio[2]
        move = Move.from_json(trio[0]["move"])
        assert move in legal_moves(pos)
        assert move == choose_for_position("normal", pos, 5)


@settings(max_examples=12, deadline=None)
@given(st.integers(0, 100_000), st.booleans())
def test_always_plays_a_listed_legal_move(seed: int, normal_first: bool) -> None:
    players = (NORMAL, FACIL) if normal_first else (FACIL, NORMAL)
    for _pos, moves, move in game_positions(seed, players, limit=120):
        assert move in moves


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10**6), st.integers(0, 150), st.booleans())
def test_any_position_gets_a_legal_move(seed: int, plies: int, drop_deck: bool) -> None:
    """Positions from random play (piles of both owners, doubles, raises, any deal), and
    the same with the deck and captured cards left out, as an oracle request may do."""
    rng = random.Random(seed)
    match = Match.new(f"any-{seed}")
    for _ in range(plies):
        if match.finished:
            break
        match, _ = match.play(rng.choice(legal_moves(match.position)))
    pos = match.position
    if not pos.hands[pos.turn]:
        return
    if drop_deck:
        pos = pos.replace(deck=(), captured=((), ()))
    moves = legal_moves(pos)
    for s in range(3):
        assert choose_for_position("normal", pos, s) in moves


def test_plays_itself_to_the_end() -> None:
    for _pos, moves, move in game_positions(3, (NORMAL, NORMAL), limit=100):
        assert move in moves


def test_a_seeded_match_against_facil_finishes() -> None:
    match = Match.new("ai-test-match")
    rngs = (random.Random("n"), random.Random("f"))
    players = (NORMAL, FACIL)
    while not match.finished:
        assert match.move_count < 2_000
        pos = match.position
        view = view_for(pos, pos.turn)
        move = players[pos.turn].choose(view, legal_moves(view.as_position()), rngs[pos.turn])
        match, _ = match.play(move)
    assert match.winner in (0, 1)
    assert max(match.scores) >= 21


# -- clear-cut spots ---------------------------------------------------------------


def test_keeps_its_ace_when_it_must_trail() -> None:
    pos = position("9h As Qc", "Kc 5d", "2c 3c 6h")
    assert choose("facil", pos) == Move.trail("As")
    assert choose("normal", pos).card.code != "As"


def test_keeps_the_ten_of_diamonds_when_it_must_trail() -> None:
    pos = position("10d 4h", "Kc Qd", "2c 3c")
    assert choose("normal", pos) == Move.trail("4h")


def test_builds_a_pile_it_can_take() -> None:
    # 3♣ on 5♦ makes 8, taken next turn with the 8♥; trailing leaves the sum to the opponent
    pos = position("3c 8h", "5d Kc", "2c 4c")
    assert choose("normal", pos) == Move.build("3c", "5d", value=8)


def test_takes_a_limpia() -> None:
    pos = position("3c Ks 7h", "3d", "2c 4c 6h")
    assert choose("normal", pos) == Move.capture("3c", "3d")


def test_takes_everything_in_the_rule_book_example() -> None:
    pos = position("9s 2h", "9d 5h 4c 6d 3s", "Kh Qh")
    assert choose("normal", pos) == Move.capture("9s", "9d", "5h", "4c", "6d", "3s")


def test_takes_its_own_pile_before_the_opponent_can() -> None:
    pile = Pile.parse("p1", "3c 5d", value=8, owner=0)
    pos = position("8h 2c", "Kc", "8s 4d", piles=(pile,))
    assert choose("normal", pos) == Move.capture("8h", "p1")


def test_in_the_last_plays_keeps_the_last_capture() -> None:
    # deck empty, Normal deals and holds 5♥ Q♣, the opponent the 9♥ (exactly the unseen
    # card). Taking the 5♠ now lets the 9♥ capture last and sweep the 10♦; trailing the
    # queen first and taking the 5♠ with the last card of the hand keeps the table.
    pos = position("5h Qc", "5s 10d 9c", "9h", deck_size=0, dealer=0)
    assert len(legal_moves(pos)) > 1
    assert choose("normal", pos) == Move.trail("Qc")


def test_does_not_build_a_pile_the_opponent_can_raise_and_take() -> None:
    # deck empty: the opponent holds exactly K♣ 3♥ K♥. Building 7♦+3♣ = 10 lets it raise the
    # pile with the 3♥ to 13 and take it with a king; Normal takes the queen pair instead.
    pos = Position.parse(
        '{"hands":[["10h","7d","Qd"],["Kc","3h","Kh"]],'
        '"table":{"cards":["8c","Qc","3c"],"piles":[]},"turn":0,"dealer":1,"deck":[],'
        '"captured":[["Qs","4h","8d","9d","2d","7c","8s","8h","9c","9s","Ac","As","Js","9h",'
        '"2h","Jc","6h","4d","5d","7s"],["Jd","Jh","10c","5h","4s","Ah","Ks","Qh","Ad","10d",'
        '"10s","7h","3d","4c","6s","6c","Kd","2s","6d","5s","5c","3s","2c"]],'
        '"limpias":[4,1],"last_capturer":0,"scores":[20,3]}'
    )
    build = Move.build("7d", "3c", value=10)
    assert build in legal_moves(pos)
    assert choose("normal", pos) != build
    # the raise is what tips it: without it, the build looks safe (no 10 is unseen)
    blind = Normal(Tuning(steal_weight=0.0))
    view = view_for(pos, 0)
    assert blind.choose(view, legal_moves(pos), random.Random(0)) == build


def test_loose_sums_are_the_engine_tables() -> None:
    """Normal's own sums of loose cards are the engine Table's, in the same order, as
    tuples of ints only: the cache's tables are left alone by the garbage collector."""
    rng = random.Random(5)
    made = []
    for _ in range(400):
        loose = tuple(rng.sample(DECK, rng.randint(0, 10)))
        sums = _loose_sums.__wrapped__(loose)
        assert [list(masks) for masks in sums] == Table(loose, ()).multi
        made.append(sums)
    gc.collect()  # the inner tuples are found to hold ints only,
    gc.collect()  # then the outer ones, made of them
    assert not any(gc.is_tracked(sums) for sums in made)


def test_unseen_is_every_card_not_seen() -> None:
    for pos in [*_mid_game_positions(10), *four_player_positions()[:20]]:
        for seat in range(len(pos.hands)):
            view = view_for(pos, seat)
            seen = {*view.hand, *view.cards, *view.captured[0], *view.captured[1]}
            seen.update(c for pile in view.piles for c in pile.cards)
            assert view.unseen() == set(DECK) - seen
