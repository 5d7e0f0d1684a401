"""The rules oracle of NOTATION.md: ``python -m server.engine`` as a real subprocess,
one JSON request per line in, one JSON answer per line out, flushed after each."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from server.engine import Match, Move, Position, legal_moves, play_step

ROOT = Path(__file__).resolve().parents[2]
TIMEOUT = 20


class Oracle:
    """Talks to one running oracle process, a line at a time."""

    def __init__(self) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "server.engine"],
            cwd=ROOT,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            encoding="utf-8",
            bufsize=1,
        )
        self.lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(line)
        self.lines.put("")  # end of output

    def ask_line(self, line: str) -> dict[str, Any]:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()
        # the oracle flushes after each answer: it arrives while stdin is still open
        try:
            answer = self.lines.get(timeout=TIMEOUT)
        except queue.Empty:
            raise AssertionError(f"no answer to {line[:200]!r} in {TIMEOUT} s") from None
        assert answer, f"the oracle stopped after {line[:200]!r}"
        data = json.loads(answer)
        assert isinstance(data, dict)
        return data

    def ask(self, request: dict[str, Any]) -> dict[str, Any]:
        return self.ask_line(json.dumps(request))

    def close(self) -> tuple[int, str]:
        assert self.process.stdin is not None
        self.process.stdin.close()
        code = self.process.wait(timeout=TIMEOUT)
        rest = ""
        while (line := self.lines.get(timeout=TIMEOUT)) != "":
            rest += line
        for pipe in (self.process.stdout, self.process.stderr):
            if pipe is not None:
                pipe.close()
        return code, rest


@pytest.fixture(scope="module")
def oracle() -> Iterator[Oracle]:
    running = Oracle()
    yield running
    code, rest = running.close()
    assert code == 0 and rest == ""


POSITION = {
    "hands": [["9s", "2c", "8h"], ["Kd", "2h"]],
    "table": {"cards": ["9d", "5h", "4c", "6d", "3s"]},
    "turn": 0,
}


def test_moves_lists_every_legal_move(oracle: Oracle) -> None:
    answer = oracle.ask({"op": "moves", "position": POSITION})
    moves = [Move.from_json(m) for m in answer["moves"]]
    assert sorted(moves, key=Move.sort_key) == sorted(
        legal_moves(Position.from_json(POSITION)), key=Move.sort_key
    )
    assert len(moves) == len(set(moves))
    assert Move.capture("9s", "9d", "5h", "4c", "6d", "3s") in moves
    assert Move.capture("9s", "5h", "4c") not in moves


def test_play_answers_the_next_position(oracle: Oracle) -> None:
    move = {"kind": "capture", "card": "9s", "take": ["9d", "5h", "4c"]}
    answer = oracle.ask({"op": "play", "position": POSITION, "move": move})
    assert set(answer) == {"position"}
    after = Position.from_json(answer["position"])
    assert after.turn == 1
    assert after.cards == Position.from_json(POSITION).cards[3:]
    assert sorted(c.code for c in after.captured[0]) == sorted(["9s", "9d", "5h", "4c"])


def test_play_of_an_illegal_move_is_an_error(oracle: Oracle) -> None:
    move = {"kind": "capture", "card": "9s", "take": ["5h", "4c"]}
    answer = oracle.ask({"op": "play", "position": POSITION, "move": move})
    assert set(answer) == {"error"} and answer["error"]


def test_play_of_the_last_card_carries_the_result(oracle: Oracle) -> None:
    position = {
        "hands": [[], ["7c"]],
        "table": {"cards": ["7d", "10d"]},
        "turn": 1,
        "dealer": 1,
        "last_capturer": 0,
        "captured": [["2s"], ["As"]],
        "scores": [3, 4],
    }
    move = {"kind": "capture", "card": "7c", "take": ["7d"]}
    answer = oracle.ask({"op": "play", "position": position, "move": move})
    assert answer["result"] == {
        "points": [[0, 0, 0, 1, 0, 0], [0, 0, 2, 0, 1, 0]],
        "scores": [4, 7],
        "winner": None,
    }
    finished = Position.from_json(answer["position"])
    assert finished.hand_over and finished.table_empty
    assert finished.scores == (3, 4)  # still those from the start of the hand
    assert sorted(c.code for c in finished.captured[1]) == sorted(["As", "7c", "7d", "10d"])


def test_oracle_play_follows_a_whole_match(oracle: Oracle) -> None:
    """Every step of a seeded match, asked of the oracle, gives the engine's answer."""
    match = Match.new("oracle")
    for _ in range(48):
        position = match.position
        move = legal_moves(position)[len(position.deck) % len(legal_moves(position))]
        answer = oracle.ask({"op": "play", "position": position.to_json(), "move": move.to_json()})
        step = play_step(position, move)
        assert Position.from_json(answer["position"]) == step.position
        assert ("result" in answer) == (step.result is not None)
        match, _ = match.play(move)


@pytest.mark.parametrize("level", ["facil", "normal", "dificil"])
def test_choose_answers_a_legal_move_and_the_same_each_time(oracle: Oracle, level: str) -> None:
    from server.ai import LEVELS

    assert level in LEVELS
    request = {"op": "choose", "level": level, "position": POSITION, "seed": 7}
    first = oracle.ask(request)
    move = Move.from_json(first["move"])
    assert move in legal_moves(Position.from_json(POSITION))
    assert oracle.ask(request) == first


@pytest.mark.parametrize("level", ["facil", "normal", "dificil"])
@pytest.mark.parametrize("seed", [3, 11, "x"])
def test_choose_sees_neither_the_opponent_hand_nor_the_deck_order(
    oracle: Oracle, level: str, seed: int | str
) -> None:
    from server.ai import LEVELS

    assert level in LEVELS
    table = {
        "cards": ["5h", "4c", "Ad"],
        "piles": [{"id": "p1", "cards": ["6d", "3s"], "value": 9, "owner": 1}],
    }
    base = {
        "hands": [["9s", "2c", "8h", "3h"], ["Kd", "2h", "9c"]],
        "table": table,
        "turn": 0,
        "deck": ["Qs", "Qd", "Jc", "Jd", "5c", "5s", "10d", "2s"],
        "captured": [["Kc"], ["Kh", "Ks"]],
    }
    other = dict(
        base,
        hands=[["9s", "2c", "8h", "3h"], ["Jh", "2d", "10h"]],
        deck=["Jd", "Qs", "2s", "Jc", "9d", "Qd", "5c", "5s"],
    )
    one = oracle.ask({"op": "choose", "level": level, "position": base, "seed": seed})
    two = oracle.ask({"op": "choose", "level": level, "position": other, "seed": seed})
    assert one == two and "move" in one


# a seat that owns a pile of 2 without a card to take it: no legal move (found by
# differential fuzzing; it used to kill the oracle with an IndexError)
NO_MOVE = {
    "hands": [["6c"], []],
    "table": {
        "cards": [],
        "piles": [{"id": "p1", "cards": ["Ad", "Ac"], "value": 2, "owner": 0, "double": False}],
    },
    "turn": 0,
}


@pytest.mark.parametrize("level", ["facil", "normal", "dificil"])
def test_choose_without_a_legal_move_is_an_error_and_the_oracle_goes_on(
    oracle: Oracle, level: str
) -> None:
    assert oracle.ask({"op": "moves", "position": NO_MOVE}) == {"moves": []}
    answer = oracle.ask({"op": "choose", "level": level, "position": NO_MOVE, "seed": 1})
    assert set(answer) == {"error"} and "no legal move" in answer["error"]
    again = oracle.ask({"op": "choose", "level": level, "position": POSITION, "seed": 1})
    assert Move.from_json(again["move"]) in legal_moves(Position.from_json(POSITION))


GARBAGE = [
    "this is not json",
    "{",
    "[1, 2, 3]",
    "42",
    '"moves"',
    "null",
    '{"op": "dance"}',
    '{"op": "moves"}',
    '{"op": "moves", "position": 5}',
    '{"op": "moves", "position": {"hands": [["9s"], ["9s"]], "table": {}, "turn": 0}}',
    '{"op": "moves", "position": {"hands": [["1s"], []], "table": {}, "turn": 0}}',
    '{"op": "play", "position": {"hands": [["9s"], []], "table": {}, "turn": 0}}',
    '{"op": "play", "position": {"hands": [["9s"], []], "table": {}, "turn": 0},'
    ' "move": {"kind": "fly", "card": "9s"}}',
    '{"op": "play", "position": {"hands": [["9s"], []], "table": {}, "turn": 0},'
    ' "move": {"kind": "trail", "card": "8s"}}',
    '{"op": "choose", "level": "impossible", "position": {}, "seed": 1}',
    '{"op": "choose", "level": "facil", "position": {"hands": [[], ["2c"]],'
    ' "table": {}, "turn": 0}, "seed": 1}',
    "[" * 5000 + "]" * 5000,
    '{"op": "moves", "position": ' + "[" * 3000 + "]" * 3000 + "}",
    "\u00ff\u00fe garbage",
]


@pytest.mark.parametrize("line", GARBAGE, ids=range(len(GARBAGE)))
def test_garbage_gets_an_error_and_the_oracle_keeps_going(oracle: Oracle, line: str) -> None:
    answer = oracle.ask_line(line)
    assert set(answer) == {"error"} and isinstance(answer["error"], str) and answer["error"]
    # still alive and still right
    again = oracle.ask({"op": "moves", "position": POSITION})
    assert len(again["moves"]) == len(legal_moves(Position.from_json(POSITION)))


def test_bad_text_is_quoted_in_the_error(oracle: Oracle) -> None:
    answer = oracle.ask(
        {"op": "moves", "position": {"hands": [["9s", "Xq"], []], "table": {}, "turn": 0}}
    )
    assert "Xq" in answer["error"]


def test_blank_lines_are_skipped_and_end_of_input_ends_the_oracle() -> None:
    process = subprocess.run(
        [sys.executable, "-m", "server.engine"],
        cwd=ROOT,
        input="\n" + json.dumps({"op": "moves", "position": POSITION}) + "\n\n" + "oops\n",
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )
    assert process.returncode == 0, process.stderr
    lines = process.stdout.splitlines()
    assert len(lines) == 2
    assert "moves" in json.loads(lines[0]) and "error" in json.loads(lines[1])


def test_the_oracle_speaks_utf8_whatever_the_locale() -> None:
    """Spanish messages and bytes that are not UTF-8 under an ASCII locale: answers, no crash."""
    pile = {"id": "p1", "cards": ["5d", "3c"], "value": 8, "owner": 0}
    illegal = {
        "op": "play",
        "position": {"hands": [["8s", "2c"], []], "table": {"piles": [pile]}, "turn": 0},
        "move": {"kind": "trail", "card": "2c"},
    }
    request = json.dumps(illegal).encode()
    process = subprocess.run(
        [sys.executable, "-m", "server.engine"],
        cwd=ROOT,
        input=b"\xff\xfe garbage\n" + request + b"\n",
        capture_output=True,
        timeout=TIMEOUT,
        check=False,
        env={**os.environ, "LC_ALL": "C", "LANG": "C", "PYTHONUTF8": "0", "PYTHONIOENCODING": ""},
    )
    assert process.returncode == 0, process.stderr
    lines = process.stdout.decode("utf-8").splitlines()
    assert len(lines) == 2
    assert "error" in json.loads(lines[0])
    assert "montón" in json.loads(lines[1])["error"]
