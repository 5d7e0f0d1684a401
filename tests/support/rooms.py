"""Rooms in-process, for the tests that drive the room layer without a server: an
ownership of this process's own whose lease is held (an hour: no renewal needed)."""

from __future__ import annotations

from server.cluster import Ownership
from server.store import Storage

LONG_LEASE = 3600.0


async def held_ownership(storage: Storage, node: str = "n") -> Ownership:
    ownership = Ownership(storage.leases, node, LONG_LEASE)
    await ownership.start()
    return ownership
