"""What the cluster reports, to one listener made in the app's lifespan (the rooms':
``rooms.cluster.RoomsOnCluster``): the lease was renewed, some rooms moved on to another
process, the lease lapsed, the link to the other processes broke, one peer went missing, and
a command another process sent for a room it believes is ours. The cluster knows nothing of
rooms: room ids and payloads are opaque to it. The defaults do nothing (a lease with nobody
listening: the tests of the lease alone)."""

from __future__ import annotations

from typing import Any

from ..protocol import ProtocolError
from .peers import Payload


class ClusterEvents:
    def renewed(self, live: frozenset[str]) -> None:
        """The lease was renewed: ``live`` are the processes whose leases are held."""

    def deposed(self, room_ids: set[str]) -> None:
        """A renewal read that these rooms moved on to another process (a newer epoch)."""

    def lapsed(self) -> None:
        """The lease is not held: another process may hold this one's rooms by now."""

    def cut_off(self) -> None:
        """The link to the other processes broke (Redis)."""

    def peer_lost(self, node: str) -> None:
        """Frames from ``node`` went missing, or it went silent."""

    async def call(self, room_id: str, payload: Payload) -> Any:
        """A command another process sent for room ``room_id`` (nobody answers yet: the
        caller asks again)."""
        raise ProtocolError("reconnecting")
