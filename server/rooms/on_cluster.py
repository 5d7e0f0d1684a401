"""THE listener of what the cluster reports (``cluster.ClusterEvents``), for the rooms: made
once in the app's lifespan and handed to the lease and the Redis hub as they are made, then
told the registry and the router once they exist (``serve``). Until then it answers as
nobody does (a call is asked again)."""

from __future__ import annotations

from typing import Any

from ..cluster import ClusterEvents, Payload
from .registry import RoomRegistry
from .router import Router


class RoomsOnCluster(ClusterEvents):
    def __init__(self) -> None:
        self._rooms: tuple[RoomRegistry, Router] | None = None

    def serve(self, registry: RoomRegistry, router: Router) -> None:
        self._rooms = (registry, router)

    def renewed(self, live: frozenset[str]) -> None:
        if self._rooms is not None:
            registry, router = self._rooms
            registry.drop_dead_sockets(live)
            router.drop_dead_owners(live)

    def deposed(self, room_ids: set[str]) -> None:
        if self._rooms is not None:
            self._rooms[0].deposed(room_ids)

    def lapsed(self) -> None:
        if self._rooms is not None:
            registry, router = self._rooms
            registry.lapsed()
            router.lost_peers()

    def cut_off(self) -> None:
        if self._rooms is not None:
            registry, router = self._rooms
            router.lost_peers()
            registry.cut_off()

    def peer_lost(self, node: str) -> None:
        if self._rooms is not None:
            self._rooms[1].lost_peer(node)

    async def call(self, room_id: str, payload: Payload) -> Any:
        if self._rooms is None:
            return await super().call(room_id, payload)
        return await self._rooms[1].call_here(room_id, payload)
