"""The rooms of this process: one ``Room`` actor per live room, claimed (the database bumps
the room's epoch, so any older copy can no longer write), loaded from storage (state, seed
and move log: ``history.restore``), found, and stopped: ``stop(room, reason)`` is THE way
a room stops, with the reasons of ``stops.py`` (``stop_all`` stops every room for one
reason). What is in use here (``in_use``) is never purged."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine
from typing import Any

from ..cluster import WATCHERS, Claim, Hub, Lease, node_of
from ..config import Settings
from ..protocol import ProtocolError
from ..push import NoPush, Pusher
from ..store import Storage
from . import reconnect
from .actor import Chooser, Room, RoomDeps
from .commands import Detach, Unwatch
from .handle import handle
from .history import restore
from .stops import CUT_OFF, DEPOSED, LAPSED, SHUTDOWN, Stop

log = logging.getLogger("server.rooms")

REBUILDS = 4  # rooms rebuilt at once (a dead process may leave a thousand to claim)


class OwnedElsewhere(Exception):
    """Another live process holds the room; its lease lapses in ``lapse_in`` seconds unless
    it renews it."""

    def __init__(self, node: str, lapse_in: float = 0.0) -> None:
        super().__init__(node)
        self.node = node
        self.lapse_in = lapse_in


class RoomRegistry:
    """Finds, creates, loads and stops the rooms of this process (``node``). ``shared``:
    other processes share the rooms (else every room is ours to claim at once)."""

    def __init__(
        self,
        storage: Storage,
        hub: Hub,
        settings: Settings,
        choose: Chooser,
        lease: Lease,
        *,
        shared: bool = False,
        push: Pusher | None = None,
    ) -> None:
        self.deps = RoomDeps(
            storage, hub, settings, choose, lease, self.stop, shared, push=push or NoPush()
        )
        self.lease = lease
        self.node = lease.node
        self.shared = shared
        self._rebuilding = asyncio.Semaphore(REBUILDS)
        self.stopping = False
        self.rooms: dict[str, Room] = {}
        self._loading: dict[str, asyncio.Future[Room | None]] = {}
        self._tasks: set[asyncio.Task[None]] = set()

    def in_use(self) -> frozenset[str]:
        """The rooms in memory here, and any being loaded right now."""
        return frozenset(self.rooms) | frozenset(self._loading)

    async def get(self, room_id: str) -> Room | None:
        """This process's room ``room_id``, claimed and loaded if need be (None: no such
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
            room = await self._claim(room_id)
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

    async def loading(self, room_id: str) -> Room | None:
        """The room being loaded here right now, once loaded (None: none is)."""
        loading = self._loading.get(room_id)
        if loading is None:
            return None
        try:
            return await asyncio.shield(loading)
        except Exception:
            return None

    async def disown(self, room_id: str) -> None:
        """The room is nobody's if the database says it is ours but no copy of it serves
        here (one stopped): another process may claim it at once."""
        if room_id not in self.rooms and room_id not in self._loading:
            await self.deps.storage.leases.disown(room_id, self.node)

    async def _claim(self, room_id: str) -> Room | None:
        """Claims the room (a new epoch: any older copy can no longer write), then loads it
        as stored after the claim. Sockets here that listened to the room through its
        previous owner reconnect (they are no copy's now): only those still saying hello
        wait for this copy."""
        if self.stopping or not self.lease.held or not self.deps.hub.healthy:
            # no lease, or cut off from the other processes: no room is ours to claim
            raise ProtocolError("reconnecting")
        leases = self.deps.storage.leases
        epoch = await leases.claim(room_id, self.node, force=not self.shared)
        if epoch is None:
            owner = await leases.owner(room_id)
            if owner is None:
                return None
            lapse_in = self.lease.clock.lapse_in(owner.lease_until, owner.db_now)
            raise OwnedElsewhere(owner.node or "", lapse_in)
        claim = self.lease.claimed(room_id, epoch)
        log.info("room %s claimed by %s at epoch %d", room_id, self.node, epoch)
        reconnect.here(self.deps.hub, room_id, attached_only=True)
        try:
            room = await self.rebuild(room_id, claim)
        except BaseException:
            self.lease.let_go(claim)
            raise
        if room is None:
            self.lease.let_go(claim)
        return room

    async def rebuild(self, room_id: str, claim: Claim | None = None) -> Room | None:
        """Rebuilds a room from its stored state, its seed and its move log alone (not
        started; a copy with no claim, at epoch -1, can never write)."""
        storage = self.deps.storage
        state = await storage.rooms.load(room_id)
        if state is None:
            return None
        records = await storage.rooms.load_moves(room_id, 0)
        async with self._rebuilding:  # a dead process's thousand rooms, not all at once
            # the engine is plain Python: a long match, replayed off the event loop
            restored = await asyncio.to_thread(restore, state, records)
        return Room(state, restored, self.deps, handle, claim or Claim(room_id, -1))

    def stop(self, room: Room, reason: Stop) -> asyncio.Task[None]:
        """THE way a room stops: it leaves memory at once (it is all in storage), its claim
        is let go and its actor ends after the command in hand; then, by the reason
        (``stops.py``), it is made nobody's (any process may claim it at once) and its
        sockets are told (they reconnect and find the room afresh). Returns that last part,
        running beside the rooms (awaited by a room that stops itself, so that its sockets
        are told before it answers the command in hand)."""
        if self.rooms.get(room.id) is room:
            del self.rooms[room.id]
        self.lease.let_go(room.claim)
        room.halt()
        counts = self.deps.counts.stops
        counts[reason.name] = counts.get(reason.name, 0) + 1
        log.log(
            logging.DEBUG if reason.tell is None else logging.INFO,
            "room %s stops: %s",
            room.id,
            reason.name,
        )
        if reason.release and room.epoch >= 0:
            self._background(self._release(room))
        return self._background(self._tell(room, reason))

    async def _tell(self, room: Room, reason: Stop) -> None:
        if reason.tell is not None:
            await room.close_all(ProtocolError(reason.tell))

    def stop_all(self, reason: Stop) -> list[Room]:
        """Stops every room of this process for ``reason`` (the rooms stopped)."""
        rooms = list(self.rooms.values())
        if rooms and reason.tell is not None:
            log.warning("%s stops its %d rooms: %s", self.node, len(rooms), reason.name)
        for room in rooms:
            self.stop(room, reason)
        return rooms

    def _background(self, work: Coroutine[Any, Any, None]) -> asyncio.Task[None]:
        """Runs ``work`` beside the rooms, held until it ends (shutdown waits for it)."""
        task = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    async def _release(self, room: Room) -> None:
        try:
            await self.deps.storage.leases.release(room.id, self.node, room.epoch)
        except Exception as exc:  # the lease lapses by itself
            log.info("could not release room %s: %r", room.id, exc)

    def drop_dead_sockets(self, live: frozenset[str]) -> None:
        """After each lease renewal: sockets of processes whose lease lapsed leave our
        rooms, each told to reconnect first (a process that was only paused wakes up to
        that frame, and its socket finds the room again)."""
        hub = self.deps.hub
        for room in list(self.rooms.values()):
            for seat, conn in list(room.sockets.seated()):
                if node_of(conn) not in live:
                    self._background(reconnect.one(hub, room.id, seat, conn))
                    room.post(Detach(seat, conn))
            for conn in room.sockets.watchers():
                if node_of(conn) not in live:
                    self._background(reconnect.one(hub, room.id, WATCHERS, conn))
                    room.post(Unwatch(conn))

    def deposed(self, room_ids: set[str]) -> None:
        """A renewal read that these rooms moved on to another process: their copies here
        stop, and their sockets reconnect."""
        for room_id in room_ids:
            room = self.rooms.get(room_id)
            if room is not None:
                self.stop(room, DEPOSED)

    def lapsed(self) -> None:
        """This process lost its lease (paused past it, or the database is away): another
        process may hold its rooms by now, so it stops them, and every socket here
        reconnects (the other processes let go of them too)."""
        self.stop_all(LAPSED)
        reconnect.here(self.deps.hub)

    def cut_off(self) -> None:
        """This process is cut off from the other processes (Redis): it cannot reach the
        listeners its rooms may have elsewhere, nor answer calls, so it serves nothing. Its
        rooms stop and are released (another process claims each at once), and every socket
        here reconnects, to a process that can reach the others; none is claimed here until
        the link is back (``_claim``)."""
        self.stop_all(CUT_OFF)
        reconnect.here(self.deps.hub)

    async def shut_down(self) -> None:
        """A clean stop: no room is claimed here any more; every room finishes its command in
        hand and stops; they are made nobody's, so other processes claim them at once; and
        only then are their sockets (here or on other processes) told to reconnect, so that
        each player reconnects once and finds the room's next owner."""
        self.stopping = True
        rooms = self.stop_all(SHUTDOWN)
        tasks = [r.task for r in rooms if r.task is not None]
        thinking = [t for r in rooms if (t := r.timers.thinking()) is not None]
        if tasks or thinking:
            await asyncio.wait([*tasks, *thinking], timeout=5)
        try:
            await self.deps.storage.leases.release_node(self.node)
        except Exception as exc:
            log.warning("could not release %s's rooms: %r", self.node, exc)
        for room in rooms:
            await room.close_all(ProtocolError("reconnecting"))
        if self._tasks:
            await asyncio.wait(list(self._tasks), timeout=5)
