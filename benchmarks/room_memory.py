"""What a live room costs in memory, by its named parts (issue 31), in one process: the
server's rooms, lobby and storage (a temporary SQLite file made by the migrations), with a
counting sink per seat instead of a websocket; ``--rooms`` friend rooms whose two seats
play ``--moves`` moves each (first legal option, rematches at each match's end).

Then two views of the same heap:

- tracemalloc: the bytes allocated since before the rooms were made and still alive,
  per room, by the file that allocated them (the top ``--top``);
- ``server/rooms/memory.py``: the bytes each named part of the rooms reaches
  (``state``, ``live.match``, ``live.events``, ``live.last_move``, ``live.plays``,
  ``live.answers``, ``sockets``, ``timers``, ``claim``), per room; what several rooms
  reach is ``shared``, counted once.

    nice -n 10 .venv/bin/python benchmarks/room_memory.py --rooms 200 --moves 300
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import shutil
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from server.ai.pool import AiPool  # noqa: E402
from server.cluster import Lease, LocalHub  # noqa: E402
from server.config import Settings  # noqa: E402
from server.engine import Move  # noqa: E402
from server.lobby.lobby import Lobby  # noqa: E402
from server.protocol import ProtocolError  # noqa: E402
from server.rooms import RoomRegistry, Router, views  # noqa: E402
from server.rooms.commands import Attach, Rematch, Submit  # noqa: E402
from server.rooms.memory import sizes  # noqa: E402
from server.store import Storage  # noqa: E402
from server.store.migrate import upgrade  # noqa: E402

SETTINGS = Settings(computer_delay=0.0, grace_seconds=600.0, room_idle=3600.0)


class Sink:
    """A socket that counts what it is told."""

    __slots__ = ("bytes", "frames")

    def __init__(self) -> None:
        self.frames = 0
        self.bytes = 0

    def deliver(self, text: str) -> None:
        self.frames += 1
        self.bytes += len(text)

    def close(self, code: int) -> None:
        pass


def first_move(view: dict[str, Any]) -> Move:
    for option in view["options"]:
        if option["llevarte"]:
            return Move.from_json(option["llevarte"])
    for option in view["options"]:
        if option["trail"]:
            return Move.from_json({"kind": "trail", "card": option["card"]})
    return Move.from_json(view["options"][0]["builds"][0]["move"])


async def run(args: argparse.Namespace) -> None:
    tmp = Path(tempfile.mkdtemp(prefix="room-memory-"))
    url = f"sqlite+aiosqlite:///{tmp / 'casino.db'}"
    await asyncio.to_thread(upgrade, url)
    storage = Storage.open(url, "NORMAL")
    hub = LocalHub()
    lease = Lease(storage.leases, "bench", 3600.0, exclusive=True)
    await lease.start()
    registry = RoomRegistry(storage, hub, SETTINGS, AiPool(0).choose, lease)
    router = Router(registry, hub)
    lobby = Lobby(storage, router, SETTINGS)
    gc.collect()
    tracemalloc.start(args.frames)
    before = tracemalloc.take_snapshot()
    started = time.monotonic()
    rooms: list[str] = []
    sinks: list[Sink] = []
    for i in range(args.rooms):
        made = await lobby.create("friend", None, "Ana", False)
        await lobby.join(made["invite"], "Primo", None)
        rooms.append(made["room"])
        for seat in (0, 1):
            sink = Sink()
            sinks.append(sink)
            hub.register(made["room"], seat, f"c{i}-{seat}", sink)
            await router.call(made["room"], Attach(seat, f"c{i}-{seat}", None))
    moves = rematches = 0
    counter = 0
    for _ in range(args.moves):
        for room_id in rooms:
            room = await registry.get(room_id)
            assert room is not None
            if room.status == "finished":
                for seat in (0, 1):
                    await router.call(room_id, Rematch(seat))
                rematches += 1
                continue
            seat = room.match.position.turn
            view = views.seat_view(room.moment(), seat)
            counter += 1
            try:
                await router.call(
                    room_id, Submit(seat, first_move(view), view["seq"], f"m-{counter}")
                )
                moves += 1
            except ProtocolError as exc:
                print("refused:", exc.code, file=sys.stderr)
    elapsed = time.monotonic() - started
    gc.collect()
    after = tracemalloc.take_snapshot()
    diff = after.compare_to(before, args.by)
    traced = sum(s.size_diff for s in diff)
    n = args.rooms
    print(
        f"{n} rooms, {moves} moves ({moves / n:.0f} a room), {rematches} rematches, "
        f"{elapsed:.1f} s; frames told {sum(s.frames for s in sinks)}"
    )
    print(f"tracemalloc: {traced / n / 1024:.1f} KiB a room still allocated since the start")
    root = str(Path(__file__).resolve().parent.parent) + "/"
    for stat in diff[: args.top]:
        frame = stat.traceback[0]
        name = frame.filename.replace(root, "") + (
            f":{frame.lineno}" if args.by == "lineno" else ""
        )
        per_room, blocks = stat.size_diff / n / 1024, stat.count_diff / n
        print(f"  {per_room:8.2f} KiB a room  {blocks:8.1f} blocks  {name}")
    live = [r for r in (registry.rooms.get(i) for i in rooms) if r is not None]
    tracemalloc.stop()
    by_part = sizes(live)
    count = by_part.pop("rooms")
    print(f"by part ({count} rooms in memory; each object once; reached by several: shared):")
    total = 0
    for part, size in sorted(by_part.items(), key=lambda kv: -kv[1]):
        total += size
        print(f"  {part:16s} {size / count / 1024:8.2f} KiB a room")
    print(f"  {'(all)':16s} {total / count / 1024:8.2f} KiB a room")
    await registry.shut_down()
    await storage.close()
    shutil.rmtree(tmp, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rooms", type=int, default=200)
    parser.add_argument("--moves", type=int, default=300, help="turns per room (all rooms)")
    parser.add_argument("--top", type=int, default=12)
    parser.add_argument("--by", choices=["filename", "lineno"], default="filename")
    parser.add_argument("--frames", type=int, default=1, help="tracemalloc's frames")
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()
