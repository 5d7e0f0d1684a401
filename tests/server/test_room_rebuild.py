"""The room actor's whole state is in storage: random sequences of what players and the
server do (moves, leaves and returns, takeovers, rematches, rejoins, evictions, restarts),
and after each step the room rebuilt from storage equals the live one.

In-process: the rooms, lobby and storage of the server (SQLite made by the migrations),
with a recording sink per connection instead of a websocket.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from server.ai.pool import AiPool
from server.cluster import LocalHub
from server.config import Settings
from server.engine import Move
from server.lobby.lobby import Lobby
from server.protocol import ProtocolError
from server.protocol.bodies import JoinBody, NewRoomBody, RejoinBody
from server.rooms import Room, RoomRegistry, Router, views
from server.rooms.commands import Attach, Detach, Rematch, Snapshot, Submit, Takeover
from server.rooms.play import computer_level
from server.rooms.stops import IDLE
from server.store import Storage
from server.store.migrate import upgrade
from tests.support.rooms import held_lease

SETTINGS = Settings(computer_delay=0.0, grace_seconds=0.0, room_idle=3600.0)


@dataclass
class Sink:
    frames: list[str] = field(default_factory=list)
    closed: int | None = None

    def deliver(self, text: str) -> None:
        self.frames.append(text)

    def close(self, code: int) -> None:
        self.closed = code


@dataclass
class World:
    url: str
    storage: Storage
    registry: RoomRegistry
    router: Router
    lobby: Lobby
    hub: LocalHub
    room_id: str = ""
    tokens: list[str] = field(default_factory=lambda: ["", ""])
    conns: list[str | None] = field(default_factory=lambda: [None, None])
    counter: int = 0

    @classmethod
    async def make(cls, url: str) -> World:
        storage = Storage.open(url)
        hub = LocalHub()
        ownership = await held_lease(storage)
        registry = RoomRegistry(storage, hub, SETTINGS, AiPool(0).choose, ownership)
        router = Router(registry, hub)
        return cls(url, storage, registry, router, Lobby(storage, router, SETTINGS), hub)

    async def restart(self) -> World:
        await self.registry.shut_down()
        await self.storage.close()
        new = await World.make(self.url)
        new.room_id, new.tokens = self.room_id, self.tokens
        return new


def first_move(view: dict[str, Any], choice: int) -> dict[str, Any]:
    moves: list[dict[str, Any]] = []
    for option in view["options"]:
        if option["llevarte"]:
            moves.append(option["llevarte"])
        if option["trail"]:
            moves.append({"kind": "trail", "card": option["card"]})
        moves.extend(idea["move"] for idea in option["builds"])
    return moves[choice % len(moves)]


async def settle(world: World) -> Room | None:
    """Waits until the room has nothing left to do (the computer's moves included)."""
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        room = world.registry.rooms.get(world.room_id)
        if room is None:
            return None
        await room.ask(Snapshot())
        busy = (
            computer_level(room) is not None
            or room.queued() > 0
            or room.timers.thinking() is not None
        )
        if not busy:
            return room
        await asyncio.sleep(0.002)
    raise AssertionError("the room never settled")


async def check_rebuilt(world: World) -> None:
    room = await settle(world)
    rebuilt = await world.registry.rebuild(world.room_id)  # a copy, never started
    assert rebuilt is not None
    if room is None:
        return
    live: Any = await room.ask(Snapshot())
    assert rebuilt.state == live
    assert rebuilt.match == room.match
    assert rebuilt.live.events == room.live.events
    assert rebuilt.live.last_move == room.live.last_move
    assert rebuilt.live.answers == room.live.answers
    assert rebuilt.live.plays == room.live.plays  # the hand's plays too (Difícil reads them)


async def act(world: World, action: tuple[str, int, int]) -> World:
    kind, seat, choice = action
    call = world.router.call
    if kind == "hello" and world.conns[seat] is None:
        world.counter += 1
        conn: str | None = f"c{world.counter}"
        assert conn is not None
        world.hub.register(world.room_id, seat, conn, Sink())
        world.conns[seat] = conn
        await call(world.room_id, Attach(seat, conn, None))
    elif kind == "leave" and world.conns[seat] is not None:
        conn = world.conns[seat]
        assert conn is not None
        world.conns[seat] = None
        world.hub.unregister(world.room_id, seat, conn)
        await call(world.room_id, Detach(seat, conn))
    elif kind == "move":
        room = await world.registry.get(world.room_id)
        assert room is not None
        view = views.seat_view(room.moment(), room.match.position.turn)
        if view["options"] and computer_level(room) is None:
            world.counter += 1
            move = Move.from_json(first_move(view, choice))
            await call(world.room_id, Submit(view["seat"], move, view["seq"], f"m{world.counter}"))
    elif kind == "finish":
        for _ in range(400):
            room = await settle(world) or await world.registry.get(world.room_id)
            assert room is not None
            if room.status != "playing":
                break
            await act(world, ("move", 0, choice))
    elif kind == "takeover":
        await call(world.room_id, Takeover(seat, ("facil", "normal")[choice % 2]))
    elif kind == "rematch":
        await call(world.room_id, Rematch(seat))
    elif kind == "rejoin":
        code = await world.lobby.make_rejoin_code(world.tokens[seat])
        answer = await world.lobby.rejoin(RejoinBody(code["code"], f"key-{world.counter:016d}"))
        world.tokens[seat] = answer["token"]
        world.conns[seat] = None  # the old connection was closed
    elif kind == "evict":
        room = world.registry.rooms.get(world.room_id)
        if room is not None and all(c is None for c in world.conns):
            world.registry.stop(room, IDLE)
    elif kind == "restart" and all(c is None for c in world.conns):
        world = await world.restart()
    return world


ACTIONS = st.tuples(
    st.sampled_from(
        [
            "hello",
            "leave",
            "move",
            "move",
            "move",
            "takeover",
            "rematch",
            "rejoin",
            "evict",
            "restart",
            "finish",
        ]
    ),
    st.integers(0, 1),
    st.integers(0, 50),
)


@settings(
    max_examples=20,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(actions=st.lists(ACTIONS, min_size=1, max_size=25), turns=st.booleans())
def test_the_room_rebuilt_from_storage_is_the_live_room(
    tmp_path_factory: Any,
    actions: list[tuple[str, int, int]],
    turns: bool,
) -> None:
    path: Path = tmp_path_factory.mktemp("rebuild") / "casino.db"
    url = f"sqlite+aiosqlite:///{path}"
    upgrade(url)

    async def run() -> None:
        world = await World.make(url)
        # por turnos too
        created = await world.lobby.create(NewRoomBody("friend", None, "Ana", turns))
        world.room_id = created["room"]
        world.tokens[0] = created["token"]
        joined = await world.lobby.join(JoinBody(created["invite"], "Primo", None))
        world.tokens[1] = joined["token"]
        await check_rebuilt(world)
        for action in actions:
            with contextlib.suppress(ProtocolError):  # refused: nothing changed
                world = await act(world, action)
            await check_rebuilt(world)
        await world.registry.shut_down()
        await world.storage.close()

    asyncio.run(run())
