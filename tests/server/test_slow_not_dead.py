"""Slow is not dead (issue 31): a process that was slow or stood still past its lease keeps
its rooms where no other process could take them (one SQLite process, one process without
Redis), and where the lease matters (several processes) its renewals go on while the
event loop is busy. Real processes and real databases (the ``db`` fixture: SQLite and
PostgreSQL); the pauses are SIGSTOP / SIGCONT and a blocked event loop, and every wait is a
poll with a deadline."""

from __future__ import annotations

import asyncio
import sqlite3
import time
from collections.abc import AsyncIterator, Callable

import httpx
import pytest

from server.cluster import ClusterEvents, Lease
from server.store import RoomState, SeatState, Storage
from server.store.migrate import upgrade
from tests.support.dbkit import Backend, Database
from tests.support.faults import paused
from tests.support.srvkit import Client, ServerProc, my_turn, pick_move, play_two

LEASE = 1.0  # seconds: short, so that a pause of a few leases is short too
DEADLINE = 30.0  # seconds any poll below may take on a busy machine
# the lease of the busy-loop test: a renewal must commit within it for the lease to be seen
# held, and beside three other test processes a SQLite commit took over a second (load 10)
BUSY_LEASE = 3.0


async def until(check: Callable[[], bool], what: str, timeout: float = DEADLINE) -> None:
    start = time.monotonic()
    while not check():
        assert time.monotonic() - start < timeout, f"{what}: not after {timeout} s"
        await asyncio.sleep(0.05)


def lease_until(server: ServerProc) -> float:
    rows = server.db_rows("select lease_until from nodes")
    assert len(rows) == 1, rows
    return float(rows[0][0])


def told_to_reconnect(client: Client) -> bool:
    return any(m.get("code") == "reconnecting" for m in client.log)


def at_seq(seq: int) -> Callable[[dict[str, object]], bool]:
    return lambda m: isinstance(view := m.get("view"), dict) and int(view["seq"]) >= seq


async def test_one_process_paused_past_its_lease_keeps_its_rooms(
    make_server: Callable[..., ServerProc], backend: Backend
) -> None:
    """One process (no Redis: nobody else can take a room) stands still (SIGSTOP) until
    its lease has lapsed in the database three leases over, then goes on (SIGCONT): it
    renews (on PostgreSQL; on SQLite the lease row is never written after the start), and
    the two seats of its room play on on the same sockets, never told ``reconnecting``; no
    room stopped."""
    server = make_server(LEASE_SECONDS=str(LEASE), GRACE_SECONDS="600").start()
    first, second = server.friend_room()
    a, _ = await Client.hello(server, first["token"])
    b, _ = await Client.hello(server, second["token"])
    await play_two(a, b, at_seq(2))
    started = lease_until(server)
    with paused(server):
        # the database's clock is this machine's (SQLite in this process, PostgreSQL here)
        await until(lambda: lease_until(server) < time.time() - 3 * LEASE, "the lease lapsed")
    woke = time.time()
    if backend.name == "sqlite":
        await asyncio.sleep(3 * LEASE)  # renewals would have written by now
        assert lease_until(server) == started
    else:
        await until(lambda: lease_until(server) > woke, "renewed after the pause")
    await play_two(a, b, at_seq(a.seq + 4))
    assert not told_to_reconnect(a) and not told_to_reconnect(b)
    metrics = httpx.get(f"{server.base}/metrics", timeout=5).text
    stops = [line for line in metrics.splitlines() if line.startswith("casino_room_stops")]
    assert not any("lapsed" in line and not line.endswith(" 0.0") for line in stops), stops
    assert "ran out" not in server.read_log()
    await a.close()
    await b.close()


async def test_a_move_that_waits_for_sqlites_write_lock_waits_again(
    make_server: Callable[..., ServerProc], backend: Backend
) -> None:
    """Another connection holds SQLite's write lock past ``busy_timeout`` (5 s), as a
    starved thread of the process did in the soak: the move's write is tried again once the
    lock is free and acknowledged; nobody is told ``reconnecting``, no room stopped."""
    if backend.name != "sqlite":
        pytest.skip("SQLite's one write lock")
    server = make_server(GRACE_SECONDS="600").start()
    first, second = server.friend_room()
    a, _ = await Client.hello(server, first["token"])
    b, _ = await Client.hello(server, second["token"])
    await play_two(a, b, at_seq(2))
    mover = a if my_turn(a.view) else b
    assert mover.view is not None
    lock = sqlite3.connect(server.db_path, timeout=0, isolation_level=None)
    try:
        lock.execute("BEGIN IMMEDIATE")
        sending = asyncio.ensure_future(mover.move(pick_move(mover.view)))
        await asyncio.sleep(7)  # the fault: the lock held past busy_timeout
    finally:
        lock.execute("ROLLBACK")
        lock.close()
    answer = await asyncio.wait_for(sending, DEADLINE)
    assert answer["type"] == "ack", answer
    assert not told_to_reconnect(a) and not told_to_reconnect(b)
    assert "trying again" in server.read_log()
    await a.close()
    await b.close()


async def test_one_sqlite_process_never_writes_its_lease_again(
    make_server: Callable[..., ServerProc], backend: Backend
) -> None:
    """One SQLite process (the file lock makes it the only one) writes its lease once, at
    start: its renewals write nothing, so they never wait for SQLite's one write lock.
    Another connection holds that lock past ``busy_timeout`` (7 s, seven leases) while the
    room is idle, then the server is paused past three leases: the lease row is as the
    start wrote it, no renewal failed, the room plays on on the same sockets, nobody told
    ``reconnecting``, no room stopped."""
    if backend.name != "sqlite":
        pytest.skip("SQLite's one write lock and its one process")
    server = make_server(LEASE_SECONDS=str(LEASE), GRACE_SECONDS="600").start()
    first, second = server.friend_room()
    a, _ = await Client.hello(server, first["token"])
    b, _ = await Client.hello(server, second["token"])
    await play_two(a, b, at_seq(2))
    started = lease_until(server)
    lock = sqlite3.connect(server.db_path, timeout=0, isolation_level=None)
    try:
        lock.execute("BEGIN IMMEDIATE")
        await asyncio.sleep(7)  # past busy_timeout (5 s): a renewal that wrote would fail
    finally:
        lock.execute("ROLLBACK")
        lock.close()
    with paused(server):
        await asyncio.sleep(3 * LEASE)
    await asyncio.sleep(3 * LEASE)  # the renewals after the pause
    await play_two(a, b, at_seq(a.seq + 4))
    assert lease_until(server) == started
    log = server.read_log()
    assert "cannot renew" not in log and "had lapsed" not in log and "ran out" not in log
    assert not told_to_reconnect(a) and not told_to_reconnect(b)
    metrics = httpx.get(f"{server.base}/metrics", timeout=5).text
    assert "casino_lease_held 1" in metrics
    stops = [line for line in metrics.splitlines() if line.startswith("casino_room_stops")]
    assert all(line.endswith(" 0.0") or line.endswith(" 0") for line in stops), stops
    await a.close()
    await b.close()


class Heard(ClusterEvents):
    def __init__(self) -> None:
        self.lapses = 0
        self.renewals = 0

    def lapsed(self) -> None:
        self.lapses += 1

    def renewed(self, live: frozenset[str]) -> None:
        self.renewals += 1


@pytest.fixture
async def storage(db: Database) -> AsyncIterator[Storage]:
    await asyncio.to_thread(upgrade, db.url)
    store = Storage.open(db.url)
    yield store
    await store.close()


def busy_until(done: Callable[[], bool], what: str) -> None:
    """Keeps the event loop busy (this call never yields) until ``done``, as a backlog of
    moves would (the renewals' thread gets the GIL at each switch interval: on a machine
    at load 25 four renewals took over 30 s)."""
    start = time.monotonic()
    while not done():
        assert time.monotonic() - start < 3 * DEADLINE, f"{what}: not after {3 * DEADLINE} s"


@pytest.mark.parametrize("mode", ["several", "exclusive", "alone"])
async def test_a_busy_event_loop_keeps_the_lease(
    storage: Storage, backend: Backend, mode: str
) -> None:
    """The rooms' event loop is busy for three leases. Where the lease matters (several
    processes) the renewals, in a thread of their own on a connection of their own, went
    on meanwhile (the database says the lease never lapsed); where it cannot lapse
    (``exclusive``; ``alone``: one SQLite process, whose renewals write nothing) the lease
    is held when the loop comes back. Either way the room's claim is still held and
    nothing lapsed."""
    if mode == "alone" and backend.name != "sqlite":
        pytest.skip("SQLite's one process")
    exclusive = mode != "several"
    heard = Heard()
    lease = Lease(
        storage.leases, "busy", BUSY_LEASE, events=heard, exclusive=exclusive,
        alone=mode == "alone",
    )  # fmt: skip
    await lease.start()
    room = RoomState(
        id="r1", mode="friend", level=None, seed="semilla", match_no=1, match_start_seq=0,
        seq=0, version=0, invite="INVr1",
        seats=(SeatState("arriving", 1.0, name="Ana"), SeatState()),
    )  # fmt: skip
    await storage.rooms.create(room, "waiting", "secret")
    epoch = await storage.leases.claim("r1", "busy")
    assert epoch is not None
    claim = lease.claimed("r1", epoch)
    running = asyncio.create_task(lease.run())
    try:
        await until(lambda: heard.renewals >= 1, "a first renewal")
        before, start = lease.renewals, time.monotonic()
        if exclusive:
            busy_until(lambda: time.monotonic() > start + 3 * BUSY_LEASE, "three leases")
        else:
            busy_until(
                lambda: (
                    time.monotonic() > start + 3 * BUSY_LEASE
                    and lease.renewals >= before + 4
                    and lease.held  # renewed within the last lease, by its thread
                ),
                "renewed while the loop was busy",
            )
        assert lease.held and lease.holds(claim)
        await until(lambda: lease.renewals > before + (4 if not exclusive else 0), "renewed")
        await until(lambda: heard.renewals >= 2, "the rooms heard a renewal")
        assert lease.held and lease.holds(claim)
        assert heard.lapses == 0 and lease.lapses == 0
    finally:
        running.cancel()
        with pytest.raises(asyncio.CancelledError):
            await running
        lease.stop()
