"""The database's time as a process reads it (``DbClock.now``, read at each renewal of the
``Lease``): of the last renewals the
one with the shortest round trip is believed, so a renewal that waited on a busy machine
does not move a process's reading of the clock that calls' deadlines are written in; and
the machine's wall clock plays no part, so setting it changes nothing."""

from __future__ import annotations

from typing import Any, cast

from server.cluster import DbClock, Lease
from server.store import LeaseStore
from server.store.leases import Renewal


class Clocks:
    """A monotonic and a wall clock that move only when told."""

    def __init__(self) -> None:
        self.mono = 100.0
        self.wall = 1_000.0

    def pass_(self, seconds: float) -> None:
        self.mono += seconds
        self.wall += seconds


class SlowLeases:
    """A lease store on a database whose clock is 50 s ahead of this process's wall clock
    (as it was at the start: the database's time goes on whatever the wall clock does),
    answering each renewal after ``there`` seconds on the way and ``back`` on the way back."""

    AHEAD = 50.0

    def __init__(self, clocks: Clocks) -> None:
        self.clocks = clocks
        self.trips: list[tuple[float, float]] = []
        self.base = clocks.wall + self.AHEAD - clocks.mono  # the database's clock - monotonic

    def db_now(self) -> float:
        return self.clocks.mono + self.base

    def _trip(self) -> float:
        there, back = self.trips.pop(0) if self.trips else (0.001, 0.001)
        self.clocks.pass_(there)
        now = self.db_now()
        self.clocks.pass_(back)
        return now

    async def join(self, node: str, lease_seconds: float, started_at: float) -> float:
        return self._trip()

    async def live(self) -> frozenset[str]:
        return frozenset()

    async def renew(self, node: str, lease_seconds: float) -> Renewal:
        return Renewal(self._trip(), frozenset({node}), {})


def ownership(clocks: Clocks, leases: SlowLeases) -> Lease:
    return Lease(
        cast(LeaseStore, cast(Any, leases)),
        "n",
        3600.0,
        clock=DbClock(monotonic=lambda: clocks.mono, wall=lambda: clocks.wall),
        monotonic=lambda: clocks.mono,
    )


async def test_a_quick_renewal_reads_the_database_clock_closely() -> None:
    clocks = Clocks()
    leases = SlowLeases(clocks)
    own = ownership(clocks, leases)
    await own.start()
    assert abs(own.clock.now() - leases.db_now()) < 0.002


async def test_a_renewal_that_waited_long_one_way_does_not_move_the_reading() -> None:
    clocks = Clocks()
    leases = SlowLeases(clocks)
    own = ownership(clocks, leases)
    await own.start()
    # the database answered at once, but the answer waited 0.8 s on this busy machine:
    # believed, that renewal would put the database's clock 0.4 s behind where it is
    leases.trips = [(0.001, 0.8)]
    await own.renew()
    assert abs(own.clock.now() - leases.db_now()) < 0.002
    # once every kept renewal is a slow one, the best of them is believed
    leases.trips = [(0.001, 0.8)] * 8
    for _ in range(8):
        await own.renew()
    assert abs(own.clock.now() - (leases.db_now() - 0.4)) < 0.002


async def test_a_wall_clock_set_meanwhile_does_not_move_the_reading() -> None:
    clocks = Clocks()
    leases = SlowLeases(clocks)
    own = ownership(clocks, leases)
    await own.start()
    clocks.wall += 3600.0  # somebody set this machine's clock an hour ahead
    assert abs(own.clock.now() - leases.db_now()) < 0.002
    await own.renew()
    clocks.pass_(1.0)
    assert abs(own.clock.now() - leases.db_now()) < 0.002


async def test_a_machine_that_was_suspended_reads_the_clock_again_at_its_next_renewal() -> None:
    """A suspended machine's monotonic clock stands still while the database's goes on: the
    readings from before no longer agree with a new one, and are dropped, however quick."""
    clocks = Clocks()
    leases = SlowLeases(clocks)
    own = ownership(clocks, leases)
    await own.start()
    for _ in range(3):
        await own.renew()
    leases.base += 10.0  # ten seconds asleep
    await own.renew()
    assert abs(own.clock.now() - leases.db_now()) < 0.002
    leases.trips = [(0.3, 0.3)]  # a slow renewal agrees with the reading: it changes nothing
    await own.renew()
    assert abs(own.clock.now() - leases.db_now()) < 0.002
