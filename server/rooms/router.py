"""Every room command to the room's owner, wherever it lives: here (``RoomRegistry``,
loading the room if nobody holds it), or on the process that holds it (``Peers``, with the
command in its wire form, ``commands.to_payload``); and the commands other processes send
for rooms they believe are ours (``call_here``)."""

from __future__ import annotations

import asyncio
from typing import Any

from ..cluster import Hub, NotOwner, Payload, PeerGone, Peers, is_outage
from ..protocol import ProtocolError
from . import reconnect, views
from .actor import RoomStopped
from .commands import Attach, Command, Detach, Summary, Unwatch, Watch, from_payload, to_payload
from .registry import OwnedElsewhere, RoomRegistry


class Router:
    """``peers`` None: one process, every room is ours to claim."""

    def __init__(self, registry: RoomRegistry, hub: Hub, peers: Peers | None = None) -> None:
        self.registry = registry
        self.hub = hub
        self.peers = peers
        self.owners: dict[str, str] = {}  # rooms held elsewhere that sockets here talk to
        self.lapses: dict[str, float] = {}  # room -> when its owner's lease lapses (monotonic)

    async def call(self, room_id: str, command: Command) -> Any:
        """``command``'s answer from the room's actor, wherever it lives. None when there
        is no such room. A room whose owner died is claimed again once its lease lapsed; until
        then, and when the database or Redis is away, ``ProtocolError("reconnecting")``."""
        registry = self.registry
        settings = registry.deps.settings
        lease_seconds = settings.lease_seconds
        call_timeout = settings.call_timeout or lease_seconds
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 2 * lease_seconds + 1
        while True:
            room = registry.rooms.get(room_id)
            node = self.owners.get(room_id)
            try:
                if room is None and node is None:
                    room = await registry.get(room_id)
                    if room is None:
                        return None
                    self._forget_owner(room_id)
                if room is not None:
                    return await room.ask(command)
                assert node is not None and self.peers is not None
                return await self._remote(node, room_id, command, call_timeout)
            except RoomStopped:
                pass
            except OwnedElsewhere as exc:
                if self.peers is None:
                    raise ProtocolError("reconnecting") from None
                self.owners[room_id] = exc.node
                self.lapses[room_id] = loop.time() + exc.lapse_in
                continue  # straight to the owner
            except NotOwner:
                self._forget_owner(room_id)  # it moved: look again
            except PeerGone:
                # nobody listens for its owner: it died. The room is claimed once the lease
                # read with the claim has lapsed, not before (and not by polling)
                lapse = self.lapses.get(room_id, loop.time())
                self._forget_owner(room_id)
                await asyncio.sleep(min(max(0.0, lapse - loop.time()) + 0.05, lease_seconds))
                continue
            except Exception as exc:
                if is_outage(exc):
                    raise ProtocolError("reconnecting") from None
                raise
            if loop.time() > deadline:
                raise ProtocolError("reconnecting")
            await asyncio.sleep(0.1)

    async def _remote(self, node: str, room_id: str, command: Command, timeout: float) -> Any:
        """The command on another process. A hello (``Attach``, ``Watch``) whose answer did
        not come may still be carried out there: it is undone, so that no socket stays
        attached to a room it never heard from."""
        assert self.peers is not None
        try:
            return await self.peers.call(node, room_id, to_payload(command), timeout)
        except ProtocolError as exc:
            if exc.code == "reconnecting":
                undo = undo_hello(command)
                if undo is not None:
                    self.peers.tell(node, room_id, to_payload(undo), timeout)
            raise

    def _forget_owner(self, room_id: str) -> None:
        self.owners.pop(room_id, None)
        self.lapses.pop(room_id, None)

    async def call_here(self, room_id: str, payload: Payload) -> Any:
        """A command another process sent for a room it believes is ours: answered if we
        hold the room (or are loading it), else NotOwner, and the asker claims the room
        itself: a room is claimed where its sockets are, never on behalf of another process.
        A room the database still says is ours but that we no longer serve (its copy
        stopped) is made nobody's first."""
        command = from_payload(payload)
        room = self.registry.rooms.get(room_id) or await self.registry.loading(room_id)
        if room is None:
            await self.registry.disown(room_id)
            raise NotOwner()
        self._forget_owner(room_id)
        try:
            return await room.ask(command)
        except RoomStopped:
            raise NotOwner() from None

    async def summary(self, room_id: str) -> dict[str, Any] | None:
        """The room's public summary: a live room here answers itself; any other is rebuilt
        for the answer and not kept in memory (a stranger asking for summaries loads no
        rooms)."""
        if room_id in self.registry.rooms:
            found: dict[str, Any] | None = await self.call(room_id, Summary())
            return found
        copy = await self.registry.rebuild(room_id)
        return views.summary(copy.moment()) if copy is not None else None

    def drop_dead_owners(self, live: frozenset[str]) -> None:
        """After each lease renewal: sockets here whose room's owner died reconnect (and so
        reach the room's next owner)."""
        held_here = self.hub.local_rooms()
        for room_id, node in list(self.owners.items()):
            if room_id not in held_here:
                self._forget_owner(room_id)
            elif node not in live:
                self._forget_owner(room_id)
                reconnect.here(self.hub, room_id)

    def lost_peer(self, node: str) -> None:
        """Frames from ``node`` went missing, or it went silent: the sockets here of its
        rooms reconnect (and resume from their seq); the other rooms' are untouched."""
        for room_id, owner in list(self.owners.items()):
            if owner == node:
                self._forget_owner(room_id)
                reconnect.here(self.hub, room_id)

    def lost_peers(self) -> None:
        """The link to the other processes broke: the sockets here of rooms owned elsewhere
        reconnect (they may have missed frames) and resume from their seq."""
        for room_id in list(self.owners):
            reconnect.here(self.hub, room_id)
        self.owners.clear()
        self.lapses.clear()


def undo_hello(command: Command) -> Command | None:
    """What undoes a hello: a socket attached or watching leaves."""
    match command:
        case Attach(seat, conn, _):
            return Detach(seat, conn)
        case Watch(conn, _):
            return Unwatch(conn)
    return None
