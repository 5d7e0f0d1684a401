"""A move's CPU on the server without the socket and the database (issue 31): for
``--matches`` seeded matches of two seats, each move as a room makes it: the engine plays it
(``Match.play``), its events are made and encoded once, each seat's view is built (the
options for the seat to move only; its move part alone where the server has the delta
frame's split, as ``Room.broadcast`` sends it) and each seat's frame encoded. The mover
plays what the load bots play (``benchkit.pick_move`` on its view's options). CPU time per move
(``time.process_time``), this checkout against ``--baseline REV`` (its ``server/`` exported
with ``git archive`` into a temporary folder), in alternating rounds, each in a process of
its own.

    nice -n 10 .venv/bin/python benchmarks/move_cpu.py --matches 20 --rounds 3 --baseline 4ea2201
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent

CHILD = r"""
import json, sys, time
from dataclasses import replace
sys.path.insert(0, sys.argv[1]); sys.path.insert(1, sys.argv[2])
from benchkit import pick_move
from server.config import Settings
from server.engine import Match, Move
from server.protocol import Events, Raw, dumps, encode, raw
from server.rooms import views
from server.rooms.facts import step_events
from server.store import RoomState, SeatState

matches, cpu, moves = int(sys.argv[3]), 0.0, 0
settings = Settings()
# a move's frame as the room sends it: its move part alone where the server has the split
# (issue 31, the delta frame), else the whole view
delta = hasattr(views, "move_view")
for m in range(matches):
    seed = f"move-cpu-{m}"
    state = RoomState(
        id="r", mode="friend", level=None, seed=seed, match_no=1, match_start_seq=0, seq=0,
        version=0, invite=None,
        seats=(SeatState("here", 0.0, name="Ana"), SeatState("here", 0.0, name="Primo")),
    )
    match, last, seq = Match.new(seed), None, 0
    moment = views.Moment(state, match, last, 0, settings, 0.0)
    view = views.seat_view(moment, match.position.turn)
    while not match.finished:
        if match.position.hand_over:
            raise SystemExit("a hand over with the match on")
        move = Move.from_json(pick_move(view))
        started = time.process_time()
        seat = match.position.turn
        after, step = match.play(move)
        seq += 1
        events = step_events(step, seat, match, after, computer=False)
        texts = [dumps(e) for e in events]
        state = replace(state, seq=seq)
        moment = views.Moment(state, after, events[0], 0, settings, 0.0)
        shared = views.common(moment, room=False) if delta else views.common(moment)
        frames = []
        for s in (0, 1):
            seat_view = (views.move_view if delta else views.seat_view)(moment, s, shared)
            frames.append(encode(Events(seq, [Raw(t) for t in texts], raw(seat_view), None)))
            if s == after.position.turn:
                view = seat_view
        cpu += time.process_time() - started
        moves += 1
        match = after
print(json.dumps({"moves": moves, "us_per_move": 1e6 * cpu / moves}))
"""


def run(root: Path, matches: int) -> dict[str, float]:
    out = subprocess.run(
        [sys.executable, "-c", CHILD, str(root), str(HERE), str(matches)],
        capture_output=True,
        text=True,
        check=True,
        cwd=root,
    )
    result: dict[str, float] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--baseline", default="", help="a git revision to compare with")
    args = parser.parse_args()
    roots = {"this": ROOT}
    with tempfile.TemporaryDirectory(prefix="move-cpu-") as tmp:
        if args.baseline:
            base = Path(tmp) / "base"
            base.mkdir()
            # the server, and the catalogs it reads its texts from at import (where it has them)
            paths = ["server"]
            catalogs = ["git", "cat-file", "-e", f"{args.baseline}:client/i18n"]
            if subprocess.run(catalogs, cwd=ROOT, capture_output=True).returncode == 0:
                paths.append("client/i18n")
            command = ["git", "archive", args.baseline, *paths]
            archive = subprocess.run(command, cwd=ROOT, capture_output=True, check=True)
            subprocess.run(["tar", "-x", "-C", str(base)], input=archive.stdout, check=True)
            roots[args.baseline] = base
        found: dict[str, list[float]] = {name: [] for name in roots}
        for r in range(args.rounds):
            for name, root in roots.items():
                result = run(root, args.matches)
                found[name].append(result["us_per_move"])
                print(f"round {r + 1} {name}: {result['us_per_move']:.0f} µs a move "
                      f"({result['moves']:.0f} moves)", flush=True)  # fmt: skip
    medians = {name: statistics.median(values) for name, values in found.items()}
    for name, value in medians.items():
        print(f"{name}: median {value:.0f} µs a move")
    if args.baseline:
        print(f"this / {args.baseline}: {medians['this'] / medians[args.baseline]:.2f}")


if __name__ == "__main__":
    main()
