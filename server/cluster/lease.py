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
- **Slow is not dead** (issue 31). Where no other process can take a room (``exclusive``:
  one SQLite process, which a file lock makes the only one, or one process without Redis,
  whose claims are forced anyway) the lease cannot lapse: a process that was slow or
  paused past it keeps its rooms, a renewal that finds the lease lapsed starts a new term
  holding them still, and a database out of reach leaves them to their conditional writes.
  Where the lease matters (several processes) the renewals run in a thread of their own
  with a connection of their own: they never wait behind the room writes (another
  connection) nor behind the event loop's backlog (another loop); only what the rooms
  must hear (a lapse, rooms deposed) goes to the event loop.
- **Alone** (``alone``: one SQLite process, which SQLite's file lock makes the database's
  only one): the lease row is written once, when the first term starts, and never again.
  Its renewals write nothing (SQLite has one write lock for the whole file: a renewal
  that wrote would wait for it behind the room writes, and they behind it); they read the
  clock (the database's clock is this machine's) and tell the rooms, as any renewal does.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TypeVar

from ..store import LeaseStore, Renewal
from .clock import DbClock
from .events import ClusterEvents
from .outage import is_outage

log = logging.getLogger("server.cluster")
T = TypeVar("T")

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
        exclusive: bool = False,
        alone: bool = False,
        wall: Callable[[], float] = time.time,
    ) -> None:
        self.store = store
        # no other process can take a room: slow is not dead
        self.exclusive = exclusive or alone
        # no other process uses the database at all (SQLite's file lock): nothing to renew
        # in it, and its clock is this machine's (``wall``)
        self.alone = alone
        self.wall = wall
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
        if self.exclusive:
            return not self._lapsed
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
        self._arm_watchdog()

    async def _join(self, timeout: float, store: LeaseStore | None = None) -> None:
        store = store or self.store
        sent = self.monotonic()
        now = await asyncio.wait_for(
            store.join(self.node, self.lease_seconds, self.started_at), timeout
        )
        self._renewed(sent, now)
        self._lapsed = False
        if self.alone:  # any other row is a process that is gone (it held the file lock)
            self.live = frozenset({self.node})
            return
        self.live = await asyncio.wait_for(store.live(), timeout) | {self.node}

    @property
    def _timeout(self) -> float:
        """A renewal may take as long as the lease is still held here (a shorter wait
        would give up on a slow database for nothing; a longer one is pointless)."""
        return max(self.deadline - self.monotonic(), self.lease_seconds / 3)

    async def renew(self) -> None:
        """One renewal, on this event loop (raises when the database cannot be reached in
        time)."""
        await self._renewal(self.store, _call)

    async def _renewal(
        self, store: LeaseStore, hear: Callable[[Callable[[], None]], Awaitable[None]]
    ) -> None:
        """One renewal on ``store``; what the rooms must hear is run by ``hear`` on the
        event loop of the rooms (this one, or another when the renewals run in a thread).
        The local deadline and the clock's readings are set here at once."""
        if self._lapsed:
            await self._join(self.lease_seconds, store)
            await hear(self._arm_watchdog)
            return
        sent = self.monotonic()
        if self.alone:  # nothing to write, nothing another process could have changed
            self._renewed(sent, self.wall())
            await hear(self._heard_alone)
            return
        before = dict(self._claims)  # rooms claimed while the renewal runs are not judged by it
        renewal = await asyncio.wait_for(store.renew(self.node, self.lease_seconds), self._timeout)
        if renewal is None:
            if self.exclusive:  # nobody else can hold its rooms: a new term, holding them
                log.warning("the lease of %s had lapsed (a slow process): a new term", self.node)
            else:
                log.warning(
                    "the lease of %s had lapsed: its rooms are no longer its own", self.node
                )
                self.deadline = 0.0  # no longer held, from now (whenever the loop hears it)
                await hear(self.lapse)
            await self._join(self.lease_seconds, store)
            await hear(self._arm_watchdog)
            return
        self._renewed(sent, renewal.db_now)
        self.live = renewal.live | {self.node}
        await hear(lambda: self._heard(renewal, before))

    def _heard(self, renewal: Renewal, before: dict[str, Claim]) -> None:
        """On the rooms' loop: rooms whose epoch moved on are no longer this process's."""
        deposed = {
            r
            for r, c in before.items()
            if renewal.held.get(r) != c.epoch and self._claims.get(r) is c
        }
        if deposed:
            for room_id in deposed:
                del self._claims[room_id]
            self.events.deposed(deposed)
        self._arm_watchdog()
        self.events.renewed(self.live)

    def _heard_alone(self) -> None:
        self._arm_watchdog()
        self.events.renewed(self.live)

    def _renewed(self, sent: float, db_now: float) -> None:
        self.deadline = sent + self.lease_seconds * SAFETY
        self.clock.reading(sent, self.monotonic(), db_now)
        self.renewals += 1
        if self._failing:
            log.warning("lease of %s renewed again", self.node)
            self._failing = False

    def _arm_watchdog(self) -> None:
        """A check at the local deadline itself: a process that wakes from a pause past it,
        or whose renewals hang, lets its rooms go at once, not at the next renewal."""
        if self._watchdog is not None:
            self._watchdog.cancel()
        loop = asyncio.get_running_loop()
        delay = max(0.0, self.deadline - self.monotonic())
        self._watchdog = loop.call_later(delay, self._check)

    def _check(self) -> None:
        if not self.held and not self._lapsed and not self.exclusive:
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
        """The renewals, every third of the lease, until cancelled: on this event loop
        where the lease cannot lapse, else in a thread of their own."""
        if self.exclusive:
            await self._renewals(self.store, _call)
            return
        await self._in_a_thread()

    async def _renewals(
        self, store: LeaseStore, hear: Callable[[Callable[[], None]], Awaitable[None]]
    ) -> None:
        while True:
            try:
                await self._renewal(store, hear)
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
                if not self.held and not self.exclusive:
                    await hear(self.lapse)
            await asyncio.sleep(self.lease_seconds / 3)

    async def _in_a_thread(self) -> None:
        """The renewals on an event loop of their own, in a thread of their own, on a
        connection of their own; what the rooms must hear is handed to this loop (a lapse
        is waited for: the next term starts only once every room here heard of it)."""
        rooms_loop = asyncio.get_running_loop()
        ended: asyncio.Future[None] = rooms_loop.create_future()
        running: list[tuple[asyncio.AbstractEventLoop, asyncio.Task[None]]] = []

        async def hear(tell: Callable[[], None]) -> None:
            told = asyncio.run_coroutine_threadsafe(_call(tell), rooms_loop)
            if tell == self.lapse:  # the only news the next renewal must wait for
                await asyncio.wrap_future(told)

        async def body() -> None:
            store = self.store.apart()
            try:
                await self._renewals(store, hear)
            finally:
                with contextlib.suppress(Exception):
                    await store.close()

        def thread() -> None:
            loop = asyncio.new_event_loop()
            try:
                running.append((loop, loop.create_task(body())))
                with contextlib.suppress(asyncio.CancelledError):
                    loop.run_until_complete(running[0][1])
            except Exception as exc:  # never: the renewals catch what they can
                log.error("the lease's thread of %s ended: %r", self.node, exc)
            finally:
                loop.close()
                with contextlib.suppress(RuntimeError):  # the rooms' loop is closed
                    rooms_loop.call_soon_threadsafe(_settle, ended, None)

        runner = threading.Thread(target=thread, name=f"lease-{self.node}", daemon=True)
        runner.start()
        try:
            await asyncio.shield(ended)
        finally:
            if running:
                loop, task = running[0]
                with contextlib.suppress(RuntimeError):  # its loop ended already
                    loop.call_soon_threadsafe(task.cancel)
            await asyncio.to_thread(runner.join, 10)

    def stop(self) -> None:
        if self._watchdog is not None:
            self._watchdog.cancel()
            self._watchdog = None


async def _call(tell: Callable[[], None]) -> None:
    tell()


def _settle(future: asyncio.Future[T], value: T) -> None:
    if not future.done():
        future.set_result(value)
