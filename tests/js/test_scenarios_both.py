"""The project's own scenarios (seeds/scenarios/*.yaml, see tests/engine/test_scenarios.py)
through BOTH oracles: every position, move and bad text of a scenario is asked of the
server's oracle and of the browser's, the answers must be the same line for line and must
say what the scenario says; what the oracle does not show (the IllegalMove code, the cards a
move took, the limpia, the deal, the sweep, the counted points, the hints, a bad card or move
read on its own) is asked of the browser engine's harness and held against the scenario and
the server's engine."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import pytest

from server.engine import Card, Move, NotationError, Position
from tests.engine.oracles import Oracle
from tests.engine.test_scenarios import (
    SCENARIOS,
    assert_position_matches,
    cards,
    dealt_hand,
    move_set,
)
from tests.js.test_differential import refusal


def both(py: Oracle, js: Oracle, request: dict[str, Any]) -> dict[str, Any]:
    """The same request to both oracles: the answers must be equal; returns the answer."""
    mine, theirs = js.ask(request), py.ask(request)
    assert mine == theirs, f"the engines disagree on {json.dumps(request)[:300]}"
    return mine


def python_error(parse: Any, bad: Any) -> str:
    with pytest.raises(NotationError) as caught:
        parse(bad)
    return str(caught.value)


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_scenario_in_both_engines(
    scenario: dict[str, Any], py_oracle: Oracle, js_oracle: Oracle, js: Oracle
) -> None:
    checked = False

    if "bad_card" in scenario:
        answer = js.ask({"op": "card", "card": scenario["bad_card"]})
        assert answer["type"] == "NotationError"
        assert answer["error"] == python_error(Card.parse, scenario["bad_card"])
        checked = True
    if "bad_move" in scenario:
        bad = scenario["bad_move"]
        text = isinstance(bad, str)
        answer = js.ask({"op": "move", "text": bad} if text else {"op": "move", "move": bad})
        assert answer["type"] == "InvalidMove"
        assert answer["error"] == python_error(Move.parse if text else Move.from_json, bad)
        checked = True
    if "bad_position" in scenario:
        bad = scenario["bad_position"]
        text = isinstance(bad, str)
        answer = js.ask(
            {"op": "position", "text": bad} if text else {"op": "position", "position": bad}
        )
        assert answer["type"] == "NotationError"
        assert answer["error"] == python_error(Position.parse if text else Position.from_json, bad)
        if not text:  # and through the oracles, the same error
            assert both(py_oracle, js_oracle, {"op": "moves", "position": bad}) == {
                "error": answer["error"]
            }
        checked = True
    if "start_hand" in scenario:
        answer = js.ask({"op": "start_hand", **scenario["start_hand"]})
        assert answer == {"position": dealt_hand(scenario["start_hand"]).to_json()}
        assert_position_matches(Position.from_json(answer["position"]), scenario["after"])
        checked = True
    for key in ("error_is", "error_contains"):
        if key in scenario and "position" not in scenario:
            assert checked

    if "position" not in scenario:
        assert checked
        return
    raw = scenario["position"]
    # the position reads and prints back the same in both engines
    echoed = js.ask({"op": "position", "position": raw})
    position = Position.from_json(raw)
    assert echoed == {"position": position.to_json(), "text": position.to_text(), "again": True}

    listed = both(py_oracle, js_oracle, {"op": "moves", "position": raw})["moves"]
    moves = move_set(listed)
    assert len(moves) == len(set(moves))
    if "moves" in scenario:
        assert set(moves) == set(move_set(scenario["moves"]))
    if "moves_in_order" in scenario:
        assert moves == move_set(scenario["moves_in_order"])
    for code, expected in scenario.get("card_moves", {}).items():
        alone = js.ask({"op": "moves_for_card", "position": raw, "card": code})["moves"]
        assert sorted(move_set(alone), key=Move.sort_key) == sorted(
            move_set(expected), key=Move.sort_key
        )
    for move in scenario.get("legal", []):
        assert Move.from_json(move) in moves
        assert "position" in both(
            py_oracle, js_oracle, {"op": "play", "position": raw, "move": move}
        )
    for entry in scenario.get("illegal", []):
        assert Move.from_json(entry["move"]) not in moves
        request = {"op": "play", "position": raw, "move": entry["move"]}
        answer = both(py_oracle, js_oracle, request)
        detail = js.ask({"op": "step", "position": raw, "move": entry["move"]})
        assert detail["type"] == "IllegalMove" and detail["code"] == entry["error"]
        assert detail == refusal(position, entry["move"])  # the same code and arguments
        assert answer == {"error": detail["error"]}
        assert detail["error"] == entry.get("message", detail["error"])
    for code, expected in scenario.get("llevarte", {}).items():
        options = js.ask({"op": "card_options", "position": raw, "card": code})
        for name in ("llevarte", "llevarte_solo"):
            want, got = expected.get(name), options[name]
            if want is None:
                assert got is None, name
            else:
                assert got is not None and set(got["take"]) == set(want), name
                assert Move.from_json(got) in moves
    checked = checked or any(
        key in scenario for key in ("moves", "moves_in_order", "card_moves", "legal", "illegal")
    )
    checked = checked or "llevarte" in scenario

    if "play" in scenario:
        request = {"op": "play", "position": raw, "move": scenario["play"]}
        answer = both(py_oracle, js_oracle, request)
        detail = js.ask({"op": "step", "position": raw, "move": scenario["play"]})
        if "error" in scenario:
            assert detail["code"] == scenario["error"]
            assert detail == refusal(position, scenario["play"])
            assert answer == {"error": detail["error"]}
            assert detail["error"] == scenario.get("message", detail["error"])
        else:
            assert Move.from_json(scenario["play"]) in moves
            after = Position.from_json(answer["position"])
            assert_position_matches(after, scenario.get("after", {}))
            assert detail["position"] == answer["position"]
            if "limpia" in scenario:
                assert detail["limpia"] == scenario["limpia"]
            if "dealt" in scenario:
                assert detail["dealt"] == scenario["dealt"]
            if "taken" in scenario:
                assert Counter(map(Card.parse, detail["taken"])) == cards(scenario["taken"])
            if "swept" in scenario:
                assert Counter(map(Card.parse, detail["swept"])) == cards(scenario["swept"])
            if "sweeper" in scenario:
                assert detail["sweeper"] == scenario["sweeper"]
            if "result" in scenario:
                want = scenario["result"]
                if want is None:
                    assert "result" not in answer and detail["result"] is None
                else:
                    assert answer["result"] == want
            if "counted" in scenario:
                assert detail["result"]["counted"] == scenario["counted"]
        checked = True

    assert checked, "the scenario checks nothing"
