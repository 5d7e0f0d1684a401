"""THE rule of several processes on one database: a copy of a room serves only while this
process's lease is held and the room's epoch is the one this process took it at
(``Ownership.holds``). Every command and timer of a room asks it first.

- **The lease** is one row per process (``nodes``), renewed every third of
  ``LEASE_SECONDS`` on a connection of its own, under a timeout, and *conditionally*: a
  lease that has lapsed is never renewed (another process may hold its rooms by now), the
  process starts a new term holding nothing. Its end is computed on the database's clock,
  so clocks of different machines are never compared.
- **The local deadline**: before each renewal the monotonic clock is read; the lease is
  held until that instant plus the lease, whatever happens meanwhile (a pause of the whole
  process, a database that hangs). When the deadline passes without a renewal, or a renewal
  finds the lease lapsed, this process stops every copy it holds and closes every socket
  (``on_lapsed``); a renewal that reads that a room's epoch moved on stops that copy
  (``on_deposed``).
- **The database's time** (``db_time``): this process's monotonic clock plus the offset
  measured at the renewals, for anything compared across processes (a call's deadline); the
  wall clock plays no part, so a machine whose clock is wrong or is set meanwhile reads the
  same time as the others. Of the last ``OFFSET_SAMPLES`` renewals the one with the shortest
  round trip is believed, as NTP does: a renewal that waited on a busy machine says little
  about the clocks; a reading that cannot agree with it (the machine was suspended) drops
  the readings from before.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from collections.abc import Callable

from ..store import LeaseStore
from .outage import is_outage

log = logging.getLogger("server.cluster")

SAFETY = 0.9  # the local deadline ends this share of a lease after the renewal was sent
START_TIMEOUT = 30.0  # seconds the first term may take to begin (a busy machine)
OFFSET_SAMPLES = 8  # renewals whose clock readings are kept (about 13 s at the default lease)


class Ownership:
    def __init__(
        self,
        store: LeaseStore,
        node: str,
        lease_seconds: float,
        *,
        on_renewed: Callable[[frozenset[str]], None] = lambda live: None,
        on_deposed: Callable[[set[str]], None] = lambda rooms: None,
        on_lapsed: Callable[[], None] = lambda: None,
        monotonic: Callable[[], float] = time.monotonic,
        wall: Callable[[], float] = time.time,
    ) -> None:
        self.store = store
        self.node = node
        self.lease_seconds = lease_seconds
        self.on_renewed = on_renewed
        self.on_deposed = on_deposed
        self.on_lapsed = on_lapsed
        self.monotonic = monotonic
        self.started_at = wall()
        self.deadline = 0.0  # on the monotonic clock
        # the database's clock minus this process's monotonic clock (until the first renewal
        # says otherwise: this machine's wall clock)
        self.offset = wall() - monotonic()
        # (round trip, offset) of the last renewals: the shortest round trip is believed
        self._samples: deque[tuple[float, float]] = deque(maxlen=OFFSET_SAMPLES)
        self.live: frozenset[str] = frozenset()
        self.rooms: dict[str, int] = {}  # the rooms this process holds, with their epochs
        self.renewals = 0
        self.lapses = 0
        self._lapsed = True  # until the first term starts
        self._failing = False
        self._watchdog: asyncio.TimerHandle | None = None

    # -- what every room asks ------------------------------------------------------------

    @property
    def held(self) -> bool:
        return self.monotonic() < self.deadline

    def holds(self, room_id: str, epoch: int) -> bool:
        """A copy of ``room_id`` taken at ``epoch`` may serve now."""
        return epoch >= 0 and self.held and self.rooms.get(room_id) == epoch

    def took(self, room_id: str, epoch: int) -> None:
        self.rooms[room_id] = epoch

    def let_go(self, room_id: str, epoch: int) -> None:
        if self.rooms.get(room_id) == epoch:
            del self.rooms[room_id]

    def db_time(self) -> float:
        """Now, on the database's clock (as read at the quickest of the last renewals)."""
        return self.monotonic() + self.offset

    def lapse_in(self, lease_until: float, db_now: float) -> float:
        """Seconds until a lease read as ending at ``lease_until`` when the database's clock
        said ``db_now`` has lapsed, from now (0: it has)."""
        return max(0.0, lease_until - db_now)

    # -- the term ------------------------------------------------------------------------

    async def start(self) -> None:
        """The first term (raises when the database cannot be reached)."""
        await self._join(START_TIMEOUT)

    async def _join(self, timeout: float) -> None:
        sent = self.monotonic()
        now = await asyncio.wait_for(
            self.store.join(self.node, self.lease_seconds, self.started_at), timeout
        )
        self._renewed(sent, now)
        self._lapsed = False
        self.live = await asyncio.wait_for(self.store.live(), timeout) | {self.node}

    @property
    def _timeout(self) -> float:
        """A renewal may take as long as the lease is still held here (a shorter wait
        would give up on a slow database for nothing; a longer one is pointless)."""
        return max(self.deadline - self.monotonic(), self.lease_seconds / 3)

    async def renew(self) -> None:
        """One renewal (raises when the database cannot be reached in time)."""
        if self._lapsed:
            await self._join(self.lease_seconds)
            return
        sent = self.monotonic()
        before = dict(self.rooms)  # rooms taken while the renewal runs are not judged by it
        renewal = await asyncio.wait_for(
            self.store.renew(self.node, self.lease_seconds), self._timeout
        )
        if renewal is None:
            log.warning("the lease of %s had lapsed: its rooms are no longer its own", self.node)
            self.lapse()
            await self._join(self.lease_seconds)
            return
        self._renewed(sent, renewal.db_now)
        self.live = renewal.live | {self.node}
        deposed = {r for r, e in before.items() if renewal.held.get(r) != e and r in self.rooms}
        if deposed:
            for room_id in deposed:
                self.rooms.pop(room_id, None)
            self.on_deposed(deposed)
        self.on_renewed(self.live)

    def _renewed(self, sent: float, db_now: float) -> None:
        self.deadline = sent + self.lease_seconds * SAFETY
        received = self.monotonic()
        trip, offset = received - sent, db_now - (sent + received) / 2
        if self._samples:
            best_trip, best = min(self._samples)
            # each reading is right within half its round trip: one that cannot agree with
            # the best says the clocks moved apart (this machine was suspended, say), and
            # the readings from before are wrong now
            if abs(offset - best) > (trip + best_trip) / 2:
                self._samples.clear()
        self._samples.append((trip, offset))
        self.offset = min(self._samples)[1]
        self.renewals += 1
        if self._failing:
            log.warning("lease of %s renewed again", self.node)
            self._failing = False
        self._arm_watchdog()

    def _arm_watchdog(self) -> None:
        """A check at the local deadline itself: a process that wakes from a pause past it,
        or whose renewals hang, lets its rooms go at once, not at the next renewal."""
        if self._watchdog is not None:
            self._watchdog.cancel()
        loop = asyncio.get_running_loop()
        delay = max(0.0, self.deadline - self.monotonic())
        self._watchdog = loop.call_later(delay, self._check)

    def _check(self) -> None:
        if not self.held and not self._lapsed:
            log.warning("the lease of %s ran out before it was renewed", self.node)
            self.lapse()

    def lapse(self) -> None:
        """The lease is not held: every copy here stops and every socket is closed."""
        if self._lapsed:
            return
        self._lapsed = True
        self.lapses += 1
        self.deadline = 0.0
        self.rooms.clear()
        self.on_lapsed()

    async def run(self) -> None:
        while True:
            try:
                await self.renew()
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
                    self.lapse()
            await asyncio.sleep(self.lease_seconds / 3)

    def stop(self) -> None:
        if self._watchdog is not None:
            self._watchdog.cancel()
            self._watchdog = None
