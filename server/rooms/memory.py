"""What the live rooms of this process hold, by the room's named parts (issue 31): the bytes
of the objects each part reaches (``sys.getsizeof``, followed through
``gc.get_referents``), each object counted once. An object that more than one room reaches
(a card, a frozen position two rooms share, an interned string) is counted under
``shared``, not under a room's part. Not on any hot path: /metrics asks for it only when
``METRICS_ROOM_PARTS`` is set (the soak benchmark), and benchmarks/room_memory.py.
"""

from __future__ import annotations

import asyncio
import gc
import sys
import types
from collections.abc import Iterable, Iterator
from typing import Any

from .actor import Room, RoomDeps

# what a walk never follows: code, classes, modules, the loop (all shared by every room)
_OPAQUE = (
    type,
    types.ModuleType,
    types.FunctionType,
    types.BuiltinFunctionType,
    types.MethodType,
    types.CodeType,
    types.FrameType,
    asyncio.AbstractEventLoop,
    Room,
    RoomDeps,
)


def parts_of(room: Room) -> dict[str, object]:
    """The room's named parts, ``live`` by its own parts."""
    live = room.live
    return {
        "state": room.state,
        "live.match": live.match,
        "live.events": live.events,
        "live.last_move": live.last_move,
        "live.plays": live.plays,
        "live.answers": live.answers,
        "sockets": room.sockets,
        "timers": room.timers,
        "claim": room.claim,
    }


def _reach(root: object) -> Iterator[object]:
    """Every object ``root`` reaches (itself included), each once, never through an opaque
    one (counted, not followed)."""
    seen: set[int] = set()
    todo = [root]
    while todo:
        obj = todo.pop()
        if id(obj) in seen:
            continue
        seen.add(id(obj))
        yield obj
        if isinstance(obj, _OPAQUE) and obj is not root:
            continue
        todo.extend(gc.get_referents(obj))


def sizes(rooms: Iterable[Room]) -> dict[str, int]:
    """Bytes by part over ``rooms`` (each object once; reached by several rooms: ``shared``),
    and ``rooms``: how many."""
    owner: dict[int, int] = {}  # object id -> the first room (index) that reached it
    size: dict[int, int] = {}
    part_of: dict[int, str] = {}
    count = 0
    keep: list[object] = []  # the objects walked stay alive (their ids stay theirs)
    for index, room in enumerate(rooms):
        count += 1
        for part, root in parts_of(room).items():
            for obj in _reach(root):
                key = id(obj)
                if key in owner:
                    if owner[key] != index:
                        part_of[key] = "shared"
                    continue
                keep.append(obj)
                owner[key] = index
                part_of[key] = part
                size[key] = 0 if isinstance(obj, type | types.ModuleType) else _sizeof(obj)
    totals: dict[str, int] = {"rooms": count}
    for key, part in part_of.items():
        totals[part] = totals.get(part, 0) + size[key]
    return totals


def _sizeof(obj: Any) -> int:
    try:
        return sys.getsizeof(obj)
    except TypeError:
        return 0
