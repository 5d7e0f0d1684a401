"""Rooms in-process, for the tests that drive the room layer without a server: a lease of
this process's own that is held (an hour: no renewal needed)."""

from __future__ import annotations

from server.cluster import Lease
from server.store import Storage

LONG_LEASE = 3600.0


async def held_lease(storage: Storage, node: str = "n") -> Lease:
    lease = Lease(storage.leases, node, LONG_LEASE)
    await lease.start()
    return lease
