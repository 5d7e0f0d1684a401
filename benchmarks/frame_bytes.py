"""How many bytes a move's ``events`` frame carries, per seat and per watcher (issue 31, the
delta frame): ``--matches`` seeded matches of two seats and of four, each move as a room
makes it (the engine plays it, its events are made, each seat's view and the watchers' are
built and the frame encoded: ``Room.broadcast``'s pieces, no socket, no database). The mover
plays what the load bots play (``benchkit.pick_move``).

    nice -n 10 .venv/bin/python benchmarks/frame_bytes.py --matches 20

Prints, for two and four seats, the mean bytes of a move's frame to a seat and to a watcher:
the frame with the whole view (what every move sent before the delta frame), and the frame
as this checkout sends it (``views.move_view``: the move part alone, where it has one); then
the mean bytes of each view key (``"key":value,``) in a seat's view, the room part's keys
marked."""

from __future__ import annotations

import argparse
import statistics
import sys
from collections import defaultdict
from dataclasses import replace
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(1, str(HERE))

from benchkit import pick_move  # noqa: E402

from server.config import Settings  # noqa: E402
from server.engine import Match, Move  # noqa: E402
from server.protocol import Events, Raw, dumps, encode, raw  # noqa: E402
from server.rooms import views  # noqa: E402
from server.rooms.facts import step_events  # noqa: E402
from server.store import RoomState, SeatState  # noqa: E402

NAMES = ("Ana", "Primo", "Rosa", "Tío Juan")


def frame(seq: int, texts: list[str], view: dict[str, Any]) -> int:
    return len(encode(Events(seq, [Raw(t) for t in texts], raw(view), None)).encode())


def measure(seat_count: int, matches: int) -> dict[str, Any]:
    settings = Settings()
    seat_whole: list[int] = []
    seat_now: list[int] = []
    watcher_whole: list[int] = []
    watcher_now: list[int] = []
    by_key: dict[str, list[int]] = defaultdict(list)
    split = hasattr(views, "move_view")
    for n in range(matches):
        seed = f"frame-bytes-{seat_count}-{n}"
        seats = tuple(SeatState("here", 0.0, name=NAMES[s]) for s in range(seat_count))
        state = RoomState(
            id="r", mode="friend", level=None, seed=seed, match_no=1, match_start_seq=0,
            seq=0, version=0, invite="abcdefghijklmnop", watch="qrstuvwxyz012345", seats=seats,
        )  # fmt: skip
        match, seq = Match.new(seed, seat_count), 0
        view = views.seat_view(views.Moment(state, match, None, 1, settings, 0.0), 0)
        view = views.seat_view(views.Moment(state, match, None, 1, settings, 0.0), view["turn"])
        while not match.finished:
            move = Move.from_json(pick_move(view))
            seat = match.position.turn
            after, step = match.play(move)
            seq += 1
            events = step_events(step, seat, match, after, computer=False)
            texts = [dumps(e) for e in events]
            state = replace(state, seq=seq)
            moment = views.Moment(state, after, events[0], 1, settings, 0.0)
            shared = views.common(moment)
            for s in range(seat_count):
                whole = views.seat_view(moment, s, shared)
                seat_whole.append(frame(seq, texts, whole))
                if split:
                    seat_now.append(frame(seq, texts, views.move_view(moment, s, shared)))
                for key, value in whole.items():
                    by_key[key].append(len(dumps({key: value})) - 1)  # "key":value,
                if s == after.position.turn:
                    view = whole
            public = views.watcher_view(moment, shared)
            watcher_whole.append(frame(seq, texts, public))
            if split:
                watcher_now.append(frame(seq, texts, views.watcher_move_view(moment, shared)))
            match = after
    mean = statistics.fmean
    return {
        "moves": seq,
        "seat_whole": mean(seat_whole),
        "seat_now": mean(seat_now) if split else None,
        "watcher_whole": mean(watcher_whole),
        "watcher_now": mean(watcher_now) if split else None,
        "by_key": {key: mean(sizes) for key, sizes in by_key.items()},
        "room_keys": set(views.room_view(moment, 0)) if split else set(),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=20)
    args = parser.parse_args()
    for seat_count in (2, 4):
        found = measure(seat_count, args.matches)
        print(f"{seat_count} seats, {args.matches} matches, {found['moves']} moves in the last")
        for who in ("seat", "watcher"):
            line = f"  a {who}'s frame: whole view {found[f'{who}_whole']:.0f} B"
            now = found[f"{who}_now"]
            if now is not None:
                ratio = now / found[f"{who}_whole"]
                line += f", move part only {now:.0f} B ({ratio:.2f} of it)"
            print(line)
        print("  a seat's view by key (mean bytes; * the room part):")
        ranked = sorted(found["by_key"].items(), key=lambda kv: -kv[1])
        for key, size in ranked:
            mark = "*" if key in found["room_keys"] else " "
            print(f"    {mark} {key:16} {size:7.1f}")


if __name__ == "__main__":
    main()
