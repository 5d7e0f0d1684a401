"""The browser's Fácil and Normal (client/js/ai/): legal, blind, the same players as the
server's, and Normal stronger than Fácil.

- Fácil draws nothing at random: its move must be the server's Fácil's, every time.
- Normal draws opponent hands at random, and the browser's random numbers are not Python's
  (client/js/ai/rng.js), so the two Normals may pick different moves for the same seed. Its
  weighing of each move is the server's, though: given the opponent hands the server's Normal
  drew, the browser's gives every candidate move the same expected value.
"""

from __future__ import annotations

import random
from functools import cache
from typing import Any

from server.ai import LEVELS, choose_for_position
from server.ai.normal import Tuning, _Decision
from server.engine import Match, Move, Position, legal_moves, view_for
from tests.ai.helpers import four_player_positions, shuffle_hidden, shuffle_hidden_four
from tests.ai.helpers import game_positions as ai_game_positions
from tests.engine.oracles import Oracle, ask_both
from tests.engine.strategies import game_positions

NORMAL = LEVELS["normal"]
FACIL = LEVELS["facil"]


@cache
def _game(seed: int) -> list[tuple[Position, int]]:
    """A seeded server Normal-vs-Fácil game (Normal in seat ``seed % 2``): each position
    before a move, with the number of legal moves."""
    players = (NORMAL, FACIL) if seed % 2 == 0 else (FACIL, NORMAL)
    return [(pos, len(moves)) for pos, moves, _ in ai_game_positions(seed, players, limit=160)]


def mid_game_positions(count: int, step: int = 5) -> list[Position]:
    """Positions of seeded server Normal-vs-Fácil games where the seat to move has a choice,
    both seats' turns, every stage of a hand."""
    found: list[Position] = []
    seed = 0
    while len(found) < count:
        for i, (pos, choices) in enumerate(_game(seed)):
            if i % step == seed % step and choices > 1:
                found.append(pos)
        seed += 1
    return found[:count]


def choose(level: str, position: Position, seed: int | str) -> dict[str, Any]:
    return {"op": "choose", "level": level, "position": position.to_json(), "seed": seed}


def test_facil_is_the_servers_facil_in_games(py_oracle: Oracle, js_oracle: Oracle) -> None:
    positions = mid_game_positions(120) + game_positions()[::13]
    requests = [choose("facil", p, 5) for p in positions]
    theirs, mine = ask_both(py_oracle, js_oracle, requests)
    assert mine == theirs
    assert all("move" in answer for answer in mine)


def _server_scores(position: Position, seed: int) -> tuple[list[Any], bool, list[Any]]:
    """The server's Normal on ``position``: the opponent hands it draws with ``seed``, and
    the expected value of each of its candidate moves with those hands."""
    view = view_for(position, position.turn)
    decision = _Decision(view, Tuning(), random.Random(seed))
    hands, fresh = decision.opponent_hands()
    decision.opponent_hands = lambda: (hands, fresh)  # type: ignore[method-assign]
    moves = legal_moves(view.as_position())
    return [list(h) for h in hands], fresh, decision.scored(moves)


def test_normal_weighs_every_move_as_the_servers_normal(js: Oracle) -> None:
    """The whole evaluation, move by move: the same candidates (for each card its best
    captures, the heaviest builds, every trail), the same unseen cards in the same order, and
    the same expected value of each candidate, given the same opponent hands."""
    positions = mid_game_positions(160)
    requests = []
    expected = []
    for n, position in enumerate(positions):
        hands, fresh, scored = _server_scores(position, n)
        view = view_for(position, position.turn)
        unseen = [c.code for c in _Decision(view, Tuning(), random.Random(0)).unseen]
        requests.append(
            {"op": "normal_scores", "position": position.to_json(), "hands": hands, "fresh": fresh}
        )
        expected.append((unseen, scored))
    answers = js.ask_many(requests)
    compared = 0
    for position, answer, (unseen, scored) in zip(positions, answers, expected, strict=True):
        assert "scores" in answer, answer
        assert answer["unseen"] == unseen
        got = [(Move.from_json(m), s) for m, s in answer["scores"]]
        assert [m for m, _ in got] == [m for m, _ in scored], position
        for (move, mine), (_, theirs) in zip(got, scored, strict=True):
            assert abs(mine - theirs) <= 1e-9, (position, move, mine, theirs)
            compared += 1
    assert compared > 500


def test_normal_always_plays_a_legal_move(js_oracle: Oracle) -> None:
    positions = mid_game_positions(80, step=3) + game_positions()[::7]
    # and the same positions told less: no deck order, no captured cards
    positions += [p.replace(deck=(), captured=((), ())) for p in positions[::5]]
    requests = [choose("normal", p, n) for n, p in enumerate(positions)]
    for position, answer in zip(positions, js_oracle.ask_many(requests), strict=True):
        assert Move.from_json(answer["move"]) in legal_moves(position), (position, answer)


def test_the_same_request_gets_the_same_move(js_oracle: Oracle) -> None:
    positions = mid_game_positions(20)
    requests = [choose("normal", p, 7) for p in positions]
    assert js_oracle.ask_many(requests) == js_oracle.ask_many(requests)


def test_both_players_are_blind(js_oracle: Oracle) -> None:
    """A choice never changes when only the opponent's hand and the deck change (their cards
    dealt otherwise, or just the deck's order), for either level and any seed."""
    positions = [p for p in mid_game_positions(60, step=4) if p.deck and p.hands[1 - p.turn]]
    assert len(positions) >= 30
    requests: list[dict[str, Any]] = []
    changed = 0
    for position in positions:
        variants = [position] + [shuffle_hidden(position, k) for k in range(3)]
        variants.append(position.replace(deck=tuple(reversed(position.deck))))
        changed += sum(v != position for v in variants)
        for level in ("facil", "normal"):
            for seed in (0, 1, "x"):
                requests.extend(choose(level, v, seed) for v in variants)
    assert changed >= 3 * len(positions)  # the hidden cards really moved
    answers = js_oracle.ask_many(requests)
    for start in range(0, len(answers), 5):
        group = answers[start : start + 5]
        assert all(a == group[0] for a in group), (requests[start], group)
        assert "move" in group[0]


def server_selfplay(first: str, second: str, pairs: int, prefix: str) -> list[dict[str, Any]]:
    """tests/js/harness.js ``selfplay`` with the server's players: the same decks, seats and
    seeds."""
    results = []
    for index in range(2 * pairs):
        pair, first_seat = divmod(index, 2)
        match = Match.new(f"{prefix}-{pair}")
        levels = (first, second) if first_seat == 0 else (second, first)
        count = 0
        while not match.finished:
            position = match.position
            seed = f"{pair}:{position.turn}:{count}"
            count += 1
            match, _ = match.play(choose_for_position(levels[position.turn], position, seed))
        results.append({"first_seat": first_seat, "winner": match.winner})
    return results


def test_normal_beats_facil_in_the_browser_as_on_the_server(js: Oracle) -> None:
    """12 pairs of matches on the same decks, seats swapped, in each engine (benchmarks/
    selfplay.py plays 400 on the server: Normal wins about 97%): the browser's Normal wins
    nearly all of them, as the server's does on the same deals."""
    request = {"op": "selfplay", "first": "normal", "second": "facil", "pairs": 12, "prefix": "nf"}
    browser = js.ask(request)["matches"]
    server = server_selfplay("normal", "facil", 12, "nf")
    assert len(browser) == len(server) == 24
    mine = sum(1 for m in browser if m["winner"] == m["first_seat"])
    theirs = sum(1 for m in server if m["winner"] == m["first_seat"])
    assert mine >= 21 and theirs >= 21, f"Normal won {mine} (browser), {theirs} (server) of 24"
    assert abs(mine - theirs) <= 2
    assert all(max(m["scores"]) >= 21 for m in browser)


def test_the_browsers_normal_holds_its_own_against_the_servers(js_oracle: Oracle) -> None:
    """A small seeded version of the benchmark (benchmarks/js_engine.py, 400 matches): 6
    pairs of matches, the browser's Normal in seat 0 then seat 1 on the same deck, the
    server's Normal in the other seat. Even players win 3 to 9 of 12 about 96% of the time
    (and these seeds are fixed); a browser Normal as weak as Fácil (3% against Normal) would
    win 3 or more about once in 200. A coarse check: the benchmark measures."""
    wins = 0
    for index in range(12):
        pair, js_seat = divmod(index, 2)
        match = Match.new(f"js-vs-py-{pair}")
        count = 0
        while not match.finished:
            position = match.position
            seed = f"{pair}:{position.turn}:{count}"
            count += 1
            if position.turn == js_seat:
                move = Move.from_json(js_oracle.ask(choose("normal", position, seed))["move"])
            else:
                move = choose_for_position("normal", position, seed)
            match, _ = match.play(move)
        wins += match.winner == js_seat
    assert 3 <= wins <= 9, f"the browser's Normal won {wins} of 12 against the server's"


# -- four players: the players for a team (RULES.md 9.5) -------------------------------------


def test_four_player_facil_and_normal_in_the_browser(js: Oracle, js_oracle: Oracle) -> None:
    """On four-player positions: the browser's Fácil is the server's; its Normal weighs
    every candidate as the server's (given the same opponent hands), always plays a legal
    move and is blind to the other three hands (the partner's too) and the deck's order."""
    positions = four_player_positions()
    facil = [choose("facil", p, 5) for p in positions]
    theirs = [{"move": choose_for_position("facil", p, 5).to_json()} for p in positions]
    mine = js_oracle.ask_many(facil)
    assert mine == theirs and all("move" in a for a in mine)
    requests, expected = [], []
    for n, position in enumerate(positions):
        hands, fresh, scored = _server_scores(position, n)
        requests.append(
            {"op": "normal_scores", "position": position.to_json(), "hands": hands, "fresh": fresh}
        )
        expected.append(scored)
    compared = 0
    for answer, scored in zip(js.ask_many(requests), expected, strict=True):
        got = [(Move.from_json(m), s) for m, s in answer["scores"]]
        assert [m for m, _ in got] == [m for m, _ in scored]
        for (_, a), (_, b) in zip(got, scored, strict=True):
            assert abs(a - b) <= 1e-9
            compared += 1
    assert compared > 200
    requests = []
    for n, position in enumerate(positions):
        variants = [position] + [shuffle_hidden_four(position, k) for k in range(3)]
        variants.append(position.replace(deck=tuple(reversed(position.deck))))
        requests.extend(choose("normal", v, n) for v in variants)
    answers = js_oracle.ask_many(requests)
    for start in range(0, len(answers), 5):
        group = answers[start : start + 5]
        assert all(a == group[0] for a in group), (requests[start], group)
        position = positions[start // 5]
        assert Move.from_json(group[0]["move"]) in legal_moves(position)


def test_normal_team_beats_facil_team_in_both_engines(js: Oracle) -> None:
    """6 pairs of four-player matches on the same decks, the teams swapped: Normal's team
    wins most of them in the browser (benchmarks/four.py measures 200)."""
    request = {
        "op": "selfplay",
        "first": "normal",
        "second": "facil",
        "pairs": 6,
        "prefix": "nf4",
        "seats": 4,
    }
    browser = js.ask(request)["matches"]
    assert len(browser) == 12 and all(m["winner"] in (0, 1) for m in browser)
    wins = sum(1 for m in browser if m["winner"] == m["first_seat"])
    assert wins >= 9, f"Normal's team won {wins} of 12 in the browser"
