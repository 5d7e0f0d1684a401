"""THE rule of several processes on one database: a copy of a room serves only while this
process's lease is held and the room's claim is the one this process holds
(``Lease.holds``). Every command and timer of a room asks it first.

- **The lease** is one row per process (``nodes``), renewed every third of
  ``LEASE_SECONDS`` on a connection of its own, under a timeout, and *conditionally*: a
  lease that has lapsed is never renewed (another process may hold its rooms by now), the
  process starts a new term holding nothing. Its end is computed on the database's clock
  (``clock.DbClock``, read at each renewal), so clocks of different machines are never
  compared.
- **The local deadline** (a watchdog): before each renewal the monotonic clock is read; the
  lease is held until that instant plus the lease, whatever happens meanwhile (a pause of
  the whole process, a database that hangs). When the deadline passes without a renewal,
  or a renewal finds the lease lapsed, this process reports it (``events.lapsed``): every
  copy it holds stops and every socket is closed.
- **Claims**: a room claimed by this process is a ``Claim`` (the room and its epoch, bumped
  in the database by the claim, so that any older copy can no longer write): the one place
  a room's epoch is kept. The room's copy holds its claim and writes with its epoch; the
  lease holds the claims it serves. A renewal that reads that a room's epoch moved on drops
  that claim and reports it (``events.deposed``).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass

from ..store import LeaseStore
from .clock import DbClock
from .events import ClusterEvents
from .outage import is_outage

log = logging.getLogger("server.cluster")

SAFETY = 0.9  # the local deadline ends this share of a lease after the renewal was sent
START_TIMEOUT = 30.0  # seconds the first term may take to begin (a busy machine)


@dataclass(frozen=True, slots=True, eq=False)
class Claim:
    """A room claimed by this process at ``epoch`` (compared by identity: the lease holds
    the claim itself, and a new claim of the same room is another one). ``epoch`` -1: a copy
    that was never claimed (a summary's), which can never write."""

    room_id: str
    epoch: int


class Lease:
    def __init__(
        self,
        store: LeaseStore,
        node: str,
        lease_seconds: float,
        *,
        events: ClusterEvents | None = None,
        clock: DbClock | None = None,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self.store = store
        self.node = node
        self.lease_seconds = lease_seconds
        self.events = events or ClusterEvents()
        self.monotonic = monotonic
        self.clock = clock or DbClock(monotonic)
        self.started_at = self.clock.now()
        self.deadline = 0.0  # on the monotonic clock
        self.live: frozenset[str] = frozenset()
        self._claims: dict[str, Claim] = {}  # the rooms this process holds
        self.renewals = 0
        self.lapses = 0
        self._lapsed = True  # until the first term starts
        self._failing = False
        self._watchdog: asyncio.TimerHandle | None = None

    # -- what every room asks ------------------------------------------------------------

    @property
    def held(self) -> bool:
        return self.monotonic() < self.deadline

    def holds(self, claim: Claim) -> bool:
        """The copy of a room that holds ``claim`` may serve now."""
        return self.held and self._claims.get(claim.room_id) is claim

    def serves(self, room_id: str, epoch: int) -> bool:
        """This process holds ``room_id`` at ``epoch`` now (for work that outlives a
        command of the room: a push about to be sent)."""
        claim = self._claims.get(room_id)
        return self.held and claim is not None and claim.epoch == epoch

    def claimed(self, room_id: str, epoch: int) -> Claim:
        """The database gave this process ``room_id`` at ``epoch``: its claim, held."""
        claim = self._claims[room_id] = Claim(room_id, epoch)
        return claim

    def let_go(self, claim: Claim) -> None:
        if self._claims.get(claim.room_id) is claim:
            del self._claims[claim.room_id]

    def claims(self) -> int:
        """How many rooms this process holds."""
        return len(self._claims)

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
        before = dict(self._claims)  # rooms claimed while the renewal runs are not judged by it
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
        deposed = {
            r
            for r, c in before.items()
            if renewal.held.get(r) != c.epoch and self._claims.get(r) is c
        }
        if deposed:
            for room_id in deposed:
                del self._claims[room_id]
            self.events.deposed(deposed)
        self.events.renewed(self.live)

    def _renewed(self, sent: float, db_now: float) -> None:
        self.deadline = sent + self.lease_seconds * SAFETY
        self.clock.reading(sent, self.monotonic(), db_now)
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
        self._claims.clear()
        self.events.lapsed()

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
