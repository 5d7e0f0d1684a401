"""The rule book as data: every scenario in seeds/scenarios/*.yaml is one test.

A scenario has a ``name``, the ``rule`` (section of RULES.md or NOTATION.md) it illustrates,
and a ``position`` in notation; then any of:

- ``play``: a move; with ``error`` (the IllegalMove code expected), or with what follows:
  ``after`` (the fields of the next position to compare: hands, table, turn, dealer, deck,
  captured, limpias, last_capturer, scores; hands, loose cards and captured cards compare
  as multisets, piles by cards, value, owner, double and, if given, id; a table without
  ``cards`` or ``piles`` means none), ``limpia``,
  ``dealt``, ``taken`` (the cards the move captured, the played one included: none for a
  build or a trail), ``swept``/``sweeper`` (the end-of-hand sweep), and ``result`` (points,
  scores, winner of the finished hand, or null when the hand goes on) and ``counted`` (the
  part of the points that entered the match score, per player and category);
- ``legal``: moves that must be listed by legal_moves and accepted by play;
- ``illegal``: ``{move, error}`` pairs: not listed, and play raises IllegalMove(error);
  with ``message``, the exact Spanish message too (so too a ``play`` with ``error``);
- ``moves``: the exact list of legal moves (in any order); ``moves_in_order``: the same, in
  the order legal_moves gives them; ``card_moves``: the exact list for some cards;
- ``llevarte``: per card, the *Llevarte* and *Llevarte solo* takes of the hints;
- ``start_hand``: ``{deck, dealer, seats, scores}``: the hand ``start_hand`` deals from that
  deck (in order), compared with ``after`` as above;
- ``bad_position`` / ``bad_move`` / ``bad_card``: text or JSON the notation rejects, with
  ``error_contains`` (a piece of the error message, e.g. the quoted bad text) or
  ``error_is`` (the whole message).
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import yaml

from server.engine import (
    Card,
    IllegalMove,
    Move,
    NotationError,
    Position,
    card_options,
    legal_moves,
    moves_for_card,
    play,
    play_step,
    start_hand,
)

SCENARIO_DIR = Path(__file__).resolve().parents[2] / "seeds" / "scenarios"


def load_scenarios() -> list[Any]:
    params = []
    for path in sorted(SCENARIO_DIR.glob("*.yaml")):
        for i, scenario in enumerate(yaml.safe_load(path.read_text(encoding="utf-8"))):
            scenario_id = f"{path.stem}:{i + 1}:{scenario['name']}"
            params.append(pytest.param(scenario, id=scenario_id))
    return params


SCENARIOS = load_scenarios()

KNOWN_KEYS = {
    "name",
    "rule",
    "position",
    "play",
    "error",
    "after",
    "limpia",
    "dealt",
    "taken",
    "swept",
    "counted",
    "sweeper",
    "result",
    "legal",
    "illegal",
    "moves",
    "moves_in_order",
    "card_moves",
    "llevarte",
    "bad_position",
    "bad_move",
    "bad_card",
    "error_contains",
    "error_is",
    "message",
    "start_hand",
}


def test_there_are_scenarios_for_every_part_of_the_rules() -> None:
    files = {p.stem for p in SCENARIO_DIR.glob("*.yaml")}
    assert {"capture", "build", "trail", "hand", "scoring", "notation"} <= files
    assert len(SCENARIOS) >= 80


# -- comparing positions -------------------------------------------------------------


def cards(codes: list[str]) -> Counter[Card]:
    return Counter(Card.parse(code) for code in codes)


def pile_matches(actual: dict[str, Any], expected: dict[str, Any]) -> bool:
    """Same cards (in any order), value, owner, kind, and the id when the scenario gives it."""
    return (
        cards(actual["cards"]) == cards(expected["cards"])
        and actual["value"] == expected["value"]
        and actual["owner"] == expected["owner"]
        and actual["double"] == expected.get("double", False)
        and actual["id"] == expected.get("id", actual["id"])
    )


def assert_position_matches(actual: Position, expected: dict[str, Any]) -> None:
    got = actual.to_json()
    for key, want in expected.items():
        if key in ("hands", "captured"):
            assert [cards(x) for x in got[key]] == [cards(x) for x in want], key
        elif key == "table":
            assert cards(got["table"]["cards"]) == cards(want.get("cards", [])), "table cards"
            left = list(got["table"]["piles"])
            for pile in want.get("piles", []):
                found = [p for p in left if pile_matches(p, pile)]
                assert found, f"no pile like {pile} on the table: {left}"
                left.remove(found[0])
            assert not left, f"unexpected piles {left}"
        elif key == "deck":
            assert got["deck"] == want, "deck (in order)"
        else:
            assert got[key] == want, key


def dealt_hand(spec: dict[str, Any]) -> Position:
    """The hand ``start_hand`` deals from a scenario's ``start_hand``."""
    deck = tuple(Card.parse(code) for code in spec["deck"])
    scores = tuple(spec.get("scores", [0, 0]))
    return start_hand(deck, spec["dealer"], (scores[0], scores[1]), spec.get("seats", 2))


def move_set(raw: list[dict[str, Any]]) -> list[Move]:
    return [Move.from_json(m) for m in raw]


# -- the scenarios ---------------------------------------------------------------------


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_scenario(scenario: dict[str, Any]) -> None:
    unknown = set(scenario) - KNOWN_KEYS
    assert not unknown, f"unknown scenario keys {unknown}"
    assert scenario.get("rule"), "every scenario names the rule it illustrates"
    checked = False

    for key, parse in (
        ("bad_card", Card.parse),
        ("bad_move", Move.from_json),
        ("bad_position", Position.from_json),
    ):
        if key in scenario:
            bad = scenario[key]
            text_parse = {"bad_move": Move.parse, "bad_position": Position.parse}.get(key)
            with pytest.raises(NotationError) as caught:
                if isinstance(bad, str) and text_parse is not None:
                    text_parse(bad)
                else:
                    parse(bad)
            if "error_is" in scenario:
                assert str(caught.value) == scenario["error_is"]
            else:
                assert scenario["error_contains"] in str(caught.value)
            checked = True

    if "start_hand" in scenario:
        assert_position_matches(dealt_hand(scenario["start_hand"]), scenario["after"])
        checked = True

    if "position" not in scenario:
        assert checked
        return
    position = Position.from_json(scenario["position"])
    listed = legal_moves(position)
    assert len(listed) == len(set(listed)), "legal_moves lists a move twice"

    if "moves" in scenario:
        assert sorted(listed, key=Move.sort_key) == sorted(
            move_set(scenario["moves"]), key=Move.sort_key
        )
        checked = True
    if "moves_in_order" in scenario:
        assert listed == move_set(scenario["moves_in_order"])
        checked = True
    for code, expected in scenario.get("card_moves", {}).items():
        card = Card.parse(code)
        mine = [m for m in listed if m.card == card]
        assert sorted(mine, key=Move.sort_key) == sorted(move_set(expected), key=Move.sort_key)
        alone = moves_for_card(position, card)  # the public call, without a table handed in
        assert sorted(alone, key=Move.sort_key) == sorted(mine, key=Move.sort_key)
        checked = True
    for raw in scenario.get("legal", []):
        move = Move.from_json(raw)
        assert move in listed, f"{move} should be legal"
        play(position, move)  # accepted
        checked = True
    for entry in scenario.get("illegal", []):
        move = Move.from_json(entry["move"])
        assert move not in listed, f"{move} should be illegal"
        with pytest.raises(IllegalMove) as refused:
            play(position, move)
        assert refused.value.code == entry["error"], refused.value
        assert refused.value.message  # a Spanish explanation for the player
        assert refused.value.message == entry.get("message", refused.value.message)
        checked = True
    for code, expected in scenario.get("llevarte", {}).items():
        options = card_options(position, Card.parse(code))
        for name in ("llevarte", "llevarte_solo"):
            want = expected.get(name)
            got = getattr(options, name)
            if want is None:
                assert got is None, name
            else:
                assert got is not None and got.take == frozenset(want), name
                assert got in listed
        checked = True

    if "play" in scenario:
        move = Move.from_json(scenario["play"])
        if "error" in scenario:
            assert move not in listed
            with pytest.raises(IllegalMove) as refused:
                play_step(position, move)
            assert refused.value.code == scenario["error"], refused.value
            assert refused.value.message == scenario.get("message", refused.value.message)
        else:
            assert move in listed
            step = play_step(position, move)
            assert step.move == move
            assert_position_matches(step.position, scenario.get("after", {}))
            if "limpia" in scenario:
                assert step.limpia == scenario["limpia"]
            if "dealt" in scenario:
                assert step.dealt == scenario["dealt"]
            if "taken" in scenario:
                assert isinstance(step.taken, tuple)
                assert Counter(step.taken) == cards(scenario["taken"])
            if "swept" in scenario:
                assert Counter(step.swept) == cards(scenario["swept"])
            if "sweeper" in scenario:
                assert step.sweeper == scenario["sweeper"]
            if "result" in scenario:
                want = scenario["result"]
                if want is None:
                    assert step.result is None
                else:
                    assert step.result is not None
                    assert step.result.to_json() == want
            if "counted" in scenario:
                assert step.result is not None
                assert [list(p) for p in step.result.counted] == scenario["counted"]
            # the answer is itself a position of the notation
            assert Position.parse(step.position.to_text()) == step.position
        checked = True

    assert checked, "the scenario checks nothing"


def test_scenario_positions_are_printed_back_unchanged() -> None:
    for param in SCENARIOS:
        scenario = param.values[0]
        if "position" in scenario:
            position = Position.from_json(scenario["position"])
            again = Position.from_json(json.loads(position.to_text()))
            assert again == position
