"""The rules oracle of NOTATION.md: one JSON request per line in, one JSON answer out."""

from __future__ import annotations

import io
import json
import sys
from typing import Any, TextIO

from .errors import EngineError
from .moves import Move, legal_moves, play_step
from .position import Position


def answer(request: object) -> dict[str, Any]:
    if not isinstance(request, dict):
        return {"error": f"a request must be a JSON object, not {request!r}"}
    op = request.get("op")
    try:
        if op == "moves":
            position = Position.from_json(request.get("position"))
            return {"moves": [m.to_json() for m in legal_moves(position)]}
        if op == "play":
            position = Position.from_json(request.get("position"))
            move = Move.from_json(request.get("move"))
            step = play_step(position, move)
            reply: dict[str, Any] = {"position": step.position.to_json()}
            if step.result is not None:
                reply["result"] = step.result.to_json()
            return reply
        if op == "choose":
            from ..ai import LEVELS, choose_for_position

            level = request.get("level")
            if level not in LEVELS:
                return {"error": f"unknown level {level!r}"}
            seed = request.get("seed", 0)
            if not isinstance(seed, (int, str)) or isinstance(seed, bool):
                return {"error": f"bad seed {seed!r}"}
            position = Position.from_json(request.get("position"))
            if not position.hands[position.turn]:
                return {"error": "the seat to move has no cards"}
            return {"move": choose_for_position(str(level), position, seed).to_json()}
        return {"error": f"unknown op {op!r}"}
    except EngineError as exc:
        return {"error": str(exc)}
    except RecursionError:
        return {"error": "request too deeply nested"}
    except Exception as exc:  # a fault of ours must not stop the oracle: say so, go on
        return {"error": f"internal error: {type(exc).__name__}: {exc}"}


def serve(lines: TextIO, out: TextIO) -> None:
    for line in lines:
        if not line.strip():
            continue
        try:
            request = json.loads(line)
        except (json.JSONDecodeError, UnicodeDecodeError, RecursionError) as exc:
            reply: dict[str, Any] = {"error": f"not JSON: {exc}"}
        else:
            reply = answer(request)
        out.write(json.dumps(reply, ensure_ascii=False) + "\n")
        out.flush()


def main() -> None:
    # JSON is UTF-8 whatever the locale; bytes that are not UTF-8 get an error, not a crash
    if isinstance(sys.stdin, io.TextIOWrapper):
        sys.stdin.reconfigure(encoding="utf-8", errors="replace")
    if isinstance(sys.stdout, io.TextIOWrapper):
        sys.stdout.reconfigure(encoding="utf-8")
    serve(sys.stdin, sys.stdout)


if __name__ == "__main__":
    main()
