"""Several server processes on one database: the lease that keeps a process's rooms its
own (``Lease``), and how the pieces of this package fit together.

- **Ownership.** Each live room has one owner process at a time (``rooms.owner``). A
  process takes a room that nobody holds, or whose owner's lease has lapsed, by bumping the
  room's ``epoch`` (``LeaseStore.claim``); every write of the room is conditional on that
  epoch, so a process that lost the room can never write it again (fencing), even for a
  moment after the lease changed hands. The lease is one row per process in ``nodes``,
  renewed every third of ``LEASE_SECONDS``: it lives in the same database that fences the
  writes, survives a Redis restart, and costs one statement per process (not per room).
- **Routing.** A seat's socket may be on any process. Its commands reach the owner through
  ``Peers.call`` (Redis, ``RedisHub``); the owner's frames reach the socket through
  the hub, addressed by connection id, whose prefix names the process holding the socket.
- **A process dies.** Its lease lapses after ``LEASE_SECONDS``; the sockets it held
  reconnect to other processes, and the first command for each of its rooms takes the room
  there (timers move with it: they are the room's own commands). Sockets on other processes
  attached to a room of the dead process are closed with ``reconnecting`` by their own
  process when it sees the lease lapse, and reconnect and resume from ``since``.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable

from ..store import LeaseStore
from .outage import is_outage

log = logging.getLogger("server.cluster")


class Lease:
    """This process's lease on its rooms, renewed in the database every third of
    ``lease_seconds``. Each renewal also reads which processes are alive and reports them
    (``on_renewed``: the rooms sweep by it, so sockets of dead processes leave their rooms
    and sockets here whose room's owner died reconnect). A process that could not renew for
    a whole lease reports it (``on_lapsed``: it stops its rooms, since another process may
    hold them by now) until it renews again."""

    def __init__(
        self,
        store: LeaseStore,
        node: str,
        lease_seconds: float,
        *,
        on_renewed: Callable[[frozenset[str]], None] = lambda live: None,
        on_lapsed: Callable[[], None] = lambda: None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.store = store
        self.node = node
        self.on_renewed = on_renewed
        self.on_lapsed = on_lapsed
        self.lease_seconds = lease_seconds
        self.clock = clock
        self.started_at = clock()
        self.renewed_at = 0.0
        self.live: frozenset[str] = frozenset()
        self._failing = False

    @property
    def held(self) -> bool:
        return self.clock() < self.renewed_at + self.lease_seconds

    async def renew(self) -> None:
        now = self.clock()
        await self.store.renew(self.node, now + self.lease_seconds, self.started_at)
        self.renewed_at = now
        self.live = await self.store.live(now) | {self.node}
        if self._failing:
            log.warning("lease of %s renewed again", self.node)
            self._failing = False

    async def run(self) -> None:
        while True:
            try:
                await self.renew()
                self.on_renewed(self.live)
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                if not self._failing:
                    log.warning(
                        "cannot renew the lease of %s: %s",
                        self.node,
                        exc if is_outage(exc) else repr(exc),
                    )
                    self._failing = True
                if not self.held:
                    self.on_lapsed()
            await asyncio.sleep(self.lease_seconds / 3)
