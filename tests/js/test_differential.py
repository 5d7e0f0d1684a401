"""The two engines against each other (issue 18): hypothesis positions (tests/engine/
strategies.py) and every position of seeded random matches, asked of both oracles. The
same legal moves in the same order, the same position after every move (pile ids, card
order, everything: the answers must be the same JSON), the same results at the end of a
hand, the same refusals (with the same Spanish message, and the same reason code and
arguments, which the catalogs word for players) for moves that are not allowed, and the same
Fácil."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from server.engine import IllegalMove, Move, Position, legal_moves, play_step
from tests.engine.oracles import Oracle, ask_both
from tests.engine.strategies import deterministic, game_positions, small_positions

FAST = deterministic(max_examples=150)
WALKS = deterministic(max_examples=60)
MAX_PLAYS = 40  # legal moves played from each position


def same(py: Oracle, js: Oracle, requests: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every request to both oracles: each answer must be the same; returns them."""
    theirs, mine = ask_both(py, js, requests)
    for request, a, b in zip(requests, mine, theirs, strict=True):
        assert a == b, f"the engines disagree on {json.dumps(request)[:400]}:\n{a}\n{b}"
    return mine


def table_items(position: Position) -> list[str]:
    return [c.code for c in position.cards] + [p.id for p in position.piles]


def any_move(position: Position, data: st.DataObject) -> dict[str, Any]:
    """A well-formed move of a card of the hand, legal or not: any kind, take and value."""
    card = data.draw(st.sampled_from(position.hands[position.turn]))
    kind = data.draw(st.sampled_from(["capture", "build", "trail"]))
    if kind == "trail":
        return {"kind": "trail", "card": card.code}
    items = table_items(position)
    take = sorted(data.draw(st.sets(st.sampled_from(items)) if items else st.just(set())))
    move: dict[str, Any] = {"kind": kind, "card": card.code, "take": take}
    if kind == "build":
        move["value"] = data.draw(st.integers(0, 16))
    return move


def refusal(position: Position, move: dict[str, Any]) -> dict[str, Any] | None:
    """The server engine's refusal of ``move`` as the harness shows the browser's: its
    message, code and arguments (as JSON); None for a move it plays."""
    try:
        play_step(position, Move.from_json(move))
    except IllegalMove as exc:
        args = json.loads(json.dumps(exc.reason_args))
        return {"error": exc.message, "code": exc.code, "args": args, "type": "IllegalMove"}
    return None


def same_refusals(js: Oracle, position: Position, moves: list[dict[str, Any]]) -> int:
    """Each move refused by both engines with the same code and arguments, or by neither;
    returns how many were refused."""
    raw = position.to_json()
    details = js.ask_many([{"op": "step", "position": raw, "move": m} for m in moves])
    refused = 0
    for move, detail in zip(moves, details, strict=True):
        mine = refusal(position, move)
        if mine is None:
            assert "error" not in detail, (move, detail)
            continue
        refused += 1
        assert detail == mine, f"the engines word {json.dumps(move)} apart:\n{mine}\n{detail}"
    return refused


def plays(position: Position, moves: list[dict[str, Any]]) -> list[dict[str, Any]]:
    raw = position.to_json()
    return [{"op": "play", "position": raw, "move": move} for move in moves]


@FAST
@given(small_positions(), st.data())
def test_small_positions_the_same_in_both_engines(
    py_oracle: Oracle, js_oracle: Oracle, js: Oracle, position: Position, data: st.DataObject
) -> None:
    raw = position.to_json()
    listed = [m.to_json() for m in legal_moves(position)]
    # moves drawn at random, most of them not allowed: the same refusal, or the same play
    drawn = [any_move(position, data) for _ in range(8)]
    requests = [{"op": "moves", "position": raw}, *plays(position, listed[:MAX_PLAYS])]
    requests += plays(position, drawn)
    requests.append({"op": "choose", "level": "facil", "position": raw, "seed": 1})
    answers = same(py_oracle, js_oracle, requests)
    assert answers[0] == {"moves": listed}
    refusals = answers[-1 - len(drawn) : -1]
    for move, answer in zip(drawn, refusals, strict=True):
        assert ("error" in answer) == (move not in listed)
    # the same reason and arguments (a card, the items a capture must also take, a value)
    same_refusals(js, position, drawn)


@WALKS
@given(small_positions(max_loose=6, max_piles=3), st.data())
def test_a_hand_played_out_step_by_step_the_same_in_both_engines(
    py_oracle: Oracle, js_oracle: Oracle, position: Position, data: st.DataObject
) -> None:
    """From a made-up position, moves picked by hypothesis to the end of the hand (or 16
    plies): after every move both engines give the same position, at the end the same
    result."""
    raw: dict[str, Any] = position.to_json()
    for _ in range(16):
        listed = same(py_oracle, js_oracle, [{"op": "moves", "position": raw}])[0]["moves"]
        if not listed:
            return
        move = data.draw(st.sampled_from(listed))
        request = {"op": "play", "position": raw, "move": move}
        answer = same(py_oracle, js_oracle, [request])[0]
        if "result" in answer:
            return
        raw = answer["position"]
        if not any(raw["hands"]):
            return


def test_every_position_of_seeded_matches_the_same_in_both_engines(
    py_oracle: Oracle, js_oracle: Oracle
) -> None:
    """A third of the positions met in 12 seeded random matches (tests/engine/strategies.py)
    and the last play of every hand: the moves, the play of each of them, Fácil's choice;
    hands ended and scored."""
    positions = [
        p
        for i, p in enumerate(game_positions())
        if i % 3 == 0 or (not p.deck and len(p.hands[0]) + len(p.hands[1]) == 1)
    ]
    assert len(positions) > 500
    requests: list[dict[str, Any]] = []
    for position in positions:
        raw = position.to_json()
        requests.append({"op": "moves", "position": raw})
        requests.append({"op": "choose", "level": "facil", "position": raw, "seed": 3})
        requests.extend(plays(position, [m.to_json() for m in legal_moves(position)[:MAX_PLAYS]]))
    answers = []
    for start in range(0, len(requests), 2000):
        answers += same(py_oracle, js_oracle, requests[start : start + 2000])
    results = [a for a in answers if "result" in a]
    assert len(results) > 20  # hand ends were played, and scored the same
    assert not [a for a in answers if "error" in a]


# -- four players, two against two (RULES.md 9) ----------------------------------------------


@FAST
@given(small_positions(seat_count=4), st.data())
def test_small_four_player_positions_the_same_in_both_engines(
    py_oracle: Oracle, js_oracle: Oracle, js: Oracle, position: Position, data: st.DataObject
) -> None:
    raw = position.to_json()
    listed = [m.to_json() for m in legal_moves(position)]
    drawn = [any_move(position, data) for _ in range(8)]
    requests = [{"op": "moves", "position": raw}, *plays(position, listed[:MAX_PLAYS])]
    requests += plays(position, drawn)
    requests.append({"op": "choose", "level": "facil", "position": raw, "seed": 1})
    answers = same(py_oracle, js_oracle, requests)
    assert answers[0] == {"moves": listed}
    refusals = answers[-1 - len(drawn) : -1]
    for move, answer in zip(drawn, refusals, strict=True):
        assert ("error" in answer) == (move not in listed)
    # the same reason and arguments (a card, the items a capture must also take, a value)
    same_refusals(js, position, drawn)


@WALKS
@given(small_positions(max_loose=6, max_piles=3, seat_count=4), st.data())
def test_a_four_player_hand_played_out_step_by_step_the_same_in_both_engines(
    py_oracle: Oracle, js_oracle: Oracle, position: Position, data: st.DataObject
) -> None:
    raw: dict[str, Any] = position.to_json()
    for _ in range(16):
        listed = same(py_oracle, js_oracle, [{"op": "moves", "position": raw}])[0]["moves"]
        if not listed:
            return
        move = data.draw(st.sampled_from(listed))
        answer = same(py_oracle, js_oracle, [{"op": "play", "position": raw, "move": move}])[0]
        if "result" in answer:
            return
        raw = answer["position"]
        if not any(raw["hands"]):
            return


def test_every_position_of_seeded_four_player_matches_the_same_in_both_engines(
    py_oracle: Oracle, js_oracle: Oracle
) -> None:
    """A third of the positions met in 12 seeded random matches of four, and the last play
    of every hand: the moves, the play of each, Fácil's choice; hands ended,
    new deals made and hands scored the same."""
    positions = [
        p
        for i, p in enumerate(game_positions(4))
        if i % 3 == 0 or (not p.deck and sum(len(h) for h in p.hands) == 1)
    ]
    assert len(positions) > 300 and all(p.seat_count == 4 for p in positions)
    requests: list[dict[str, Any]] = []
    for position in positions:
        raw = position.to_json()
        requests.append({"op": "moves", "position": raw})
        requests.append({"op": "choose", "level": "facil", "position": raw, "seed": 3})
        requests.extend(plays(position, [m.to_json() for m in legal_moves(position)[:MAX_PLAYS]]))
    answers = []
    for start in range(0, len(requests), 2000):
        answers += same(py_oracle, js_oracle, requests[start : start + 2000])
    assert len([a for a in answers if "result" in a]) > 20
    assert not [a for a in answers if "error" in a]
