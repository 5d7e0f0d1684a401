"""The rooms of this process: one ``Room`` actor per live room, taken (a claim that bumps
the room's epoch, so any older copy can no longer write), loaded from storage (state, seed
and move log: ``history.restore``), found, and stopped. What is in use here
(``in_use``) is never purged."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Coroutine
from typing import Any

from ..cluster import Hub, node_of
from ..config import Settings
from ..protocol import ProtocolError
from ..store import Storage
from .actor import Chooser, Room, RoomDeps
from .commands import Detach, Unwatch
from .handle import handle
from .history import restore

log = logging.getLogger("server.rooms")


class OwnedElsewhere(Exception):
    """Another live process holds the room."""

    def __init__(self, node: str) -> None:
        super().__init__(node)
        self.node = node


class RoomRegistry:
    """Finds, creates, loads and stops the rooms of this process (``node``). ``shared``:
    other processes share the rooms (else every room is ours to take at once)."""

    def __init__(
        self,
        storage: Storage,
        hub: Hub,
        settings: Settings,
        choose: Chooser,
        *,
        node: str,
        shared: bool = False,
    ) -> None:
        self.deps = RoomDeps(storage, hub, settings, choose, self.forget)
        self.node = node
        self.shared = shared
        self.rooms: dict[str, Room] = {}
        self._loading: dict[str, asyncio.Future[Room | None]] = {}
        self._tasks: set[asyncio.Task[None]] = set()

    def in_use(self) -> frozenset[str]:
        """The rooms in memory here, and any being loaded right now."""
        return frozenset(self.rooms) | frozenset(self._loading)

    async def get(self, room_id: str) -> Room | None:
        """This process's room ``room_id``, taken and loaded if need be (None: no such
        room; OwnedElsewhere: another live process holds it)."""
        room = self.rooms.get(room_id)
        if room is not None:
            return room
        loading = self._loading.get(room_id)
        if loading is not None:
            return await asyncio.shield(loading)
        future: asyncio.Future[Room | None] = asyncio.get_running_loop().create_future()
        self._loading[room_id] = future
        try:
            room = await self._take(room_id)
        except Exception as exc:
            future.set_exception(exc)
            future.exception()  # retrieved: the waiters (if any) get it too
            raise
        finally:
            del self._loading[room_id]
        if room is not None:
            self.rooms[room_id] = room
            room.start()
        future.set_result(room)
        return room

    async def _take(self, room_id: str) -> Room | None:
        """Claims the room (a new epoch: any older copy can no longer write), then loads it
        as stored after the claim."""
        leases = self.deps.storage.leases
        epoch = await leases.claim(room_id, self.node, time.time(), force=not self.shared)
        if epoch is None:
            owner = await leases.owner(room_id)
            if owner is None:
                return None
            raise OwnedElsewhere(owner.node or "")
        return await self.rebuild(room_id, epoch)

    async def rebuild(self, room_id: str, epoch: int = -1) -> Room | None:
        """Rebuilds a room from its stored state, its seed and its move log alone (not
        started; a copy at epoch -1 can never write)."""
        storage = self.deps.storage
        state = await storage.rooms.load(room_id)
        if state is None:
            return None
        records = await storage.rooms.load_moves(room_id, 0)
        return Room(state, restore(state, records), self.deps, handle, epoch)

    def forget(self, room: Room, release: bool = True) -> None:
        """The room leaves memory (it is all in storage); ``release``: it is nobody's, so
        that any process may take it at once (not after a copy failed: its epoch may be
        old, and the database decides who holds the room)."""
        if self.rooms.get(room.id) is room:
            del self.rooms[room.id]
        room.stop()
        if release and room.epoch >= 0:
            self._background(self._release(room))

    def _background(self, work: Coroutine[Any, Any, None]) -> None:
        """Runs ``work`` beside the rooms, held until it ends (shutdown waits for it)."""
        task = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _release(self, room: Room) -> None:
        try:
            await self.deps.storage.leases.release(room.id, self.node, room.epoch)
        except Exception as exc:  # the lease lapses by itself
            log.info("could not release room %s: %r", room.id, exc)

    def sweep(self, live: frozenset[str]) -> None:
        """After each lease renewal: sockets of processes that died leave our rooms."""
        for room in list(self.rooms.values()):
            for seat, conn in enumerate(room.conns):
                if conn is not None and node_of(conn) not in live:
                    room.post(Detach(seat, conn))
            for conn in list(room.watchers):
                if node_of(conn) not in live:
                    room.post(Unwatch(conn))

    def drop_all(self) -> None:
        """This process lost its lease (the database is away): another process may hold
        its rooms by now, so it stops them and their sockets reconnect."""
        if self.rooms:
            log.warning("%s stops its %d rooms: its lease lapsed", self.node, len(self.rooms))
        for room in list(self.rooms.values()):
            self.forget(room, release=False)
            self._background(room.close_all(ProtocolError("reconnecting")))

    async def stop_all(self) -> None:
        """Shutdown: every room finishes its command in hand and stops; they are nobody's,
        so other processes take them at once."""
        rooms = list(self.rooms.values())
        for room in rooms:
            self.forget(room, release=False)
        tasks = [r.task for r in rooms if r.task is not None]
        thinking = [r.thinking for r in rooms if r.thinking is not None]
        if tasks or thinking:
            await asyncio.wait([*tasks, *thinking], timeout=5)
        for room in rooms:  # their sockets (here or on other processes) go elsewhere now
            await room.close_all(ProtocolError("reconnecting"))
        if self._tasks:
            await asyncio.wait(list(self._tasks), timeout=5)
        try:
            await self.deps.storage.leases.release_node(self.node)
        except Exception as exc:
            log.warning("could not release %s's rooms: %r", self.node, exc)
