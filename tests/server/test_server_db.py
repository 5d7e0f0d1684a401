"""Storage on a fresh database made by the Alembic migrations, SQLite and PostgreSQL both
(the ``db`` fixture): conditional room writes, group commit, rejoin codes; rooms rebuilt
from their stored state, seed and move log."""

from __future__ import annotations

import asyncio
import json
import sqlite3
import threading
import time
from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import asyncpg
import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import event

from server.ai import choose_for_position
from server.ai.pool import AiPool
from server.cluster import LocalHub
from server.config import Settings
from server.engine import Match
from server.lobby.tokens import hash_secret
from server.rooms import RoomRegistry
from server.rooms.commands import Snapshot
from server.rooms.live import KEPT_SEQS
from server.store import (
    MoveRecord,
    RejoinError,
    RoomState,
    RoomWrite,
    SeatState,
    StaleRoom,
    Storage,
    Tuning,
    make_engine,
)
from server.store.migrate import upgrade
from server.store.purge import PURGE_LOCK
from server.store.tables import metadata
from tests.support.dbkit import Database, PostgresDb, postgres_only
from tests.support.rooms import held_lease


@pytest.fixture
async def storage(db: Database) -> AsyncIterator[Storage]:
    await asyncio.to_thread(upgrade, db.url)
    store = Storage.open(db.url)
    yield store
    await store.close()


def write0(room: RoomState, status: str, seats: tuple[int, ...] = (), **extra: Any) -> RoomWrite:
    """A write of a room nobody has taken since it was made (epoch 0)."""
    return RoomWrite(room, status, seats, epoch=0, **extra)


def state(room_id: str = "r1", mode: str = "friend") -> RoomState:
    computer = mode == "computer"
    return RoomState(
        id=room_id,
        mode="computer" if computer else "friend",
        level="facil" if computer else None,
        seed="semilla",
        match_no=1,
        match_start_seq=0,
        seq=0,
        version=0,
        invite=None if computer else f"INV{room_id}",
        seats=(
            SeatState("arriving", 1.0, name="Ana"),
            SeatState(name="Computadora" if computer else None),
        ),
    )


def moved(room: RoomState, seq: int) -> RoomState:
    return replace(room, seq=seq, version=room.version + 1)


def trail(seq: int, seat: int = 0) -> MoveRecord:
    return MoveRecord(seq, 1, seat, '{"kind":"trail","card":"2h"}', f"c{seq}")


async def test_migrations_make_the_tables_of_the_models(db: Database) -> None:
    await asyncio.to_thread(upgrade, db.url)
    await asyncio.to_thread(upgrade, db.url)  # a second run changes nothing
    engine = make_engine(db.url)
    async with engine.connect() as conn:
        differences = await conn.run_sync(
            lambda sync: compare_metadata(
                MigrationContext.configure(sync, opts={"compare_type": True}), metadata
            )
        )
    await engine.dispose()
    assert differences == []  # columns, types, keys, unique constraints, indexes
    # the head: revision "0009", in migrations/versions/0009_computer_chairs.py
    assert db.rows("select version_num from alembic_version") == [("0009",)]


async def test_a_postgresql_url_without_driver_means_asyncpg(db: Database) -> None:
    plain = db.url.replace("postgresql+asyncpg://", "postgresql://")  # SQLite: unchanged
    await asyncio.to_thread(upgrade, plain)
    store = Storage.open(plain)
    assert store.db.engine.dialect.driver in ("asyncpg", "aiosqlite")
    await store.rooms.create(state(), "waiting", hash_secret("t0"))
    assert await store.seats.room_of(hash_secret("t0")) == ("r1", 0)
    await store.close()


async def test_sqlite_migrations_make_the_tables_in_wal_mode(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    url = f"sqlite+aiosqlite:///{path}"
    await asyncio.to_thread(upgrade, url)
    await asyncio.to_thread(upgrade, url)  # a second run changes nothing
    store = Storage.open(url)
    await store.rooms.create(state(), "waiting", hash_secret("t0"))
    async with store.db.engine.connect() as conn:
        sync = (await conn.exec_driver_sql("PRAGMA synchronous")).scalar()
    key = await store.codes.token_key()
    await store.close()
    assert sync == 2  # FULL
    assert len(key) == 32
    con = sqlite3.connect(path)
    tables = {r[0] for r in con.execute("select name from sqlite_master where type='table'")}
    assert {
        "rooms",
        "seats",
        "moves",
        "finished_matches",
        "rejoin_codes",
        "server_secrets",
        "push_subscriptions",
        "alembic_version",
    } <= tables
    assert con.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    # the head: revision "0009" (0009_computer_chairs.py)
    assert con.execute("select version_num from alembic_version").fetchone()[0] == "0009"
    con.close()


async def test_each_sqlite_connection_keeps_a_small_page_cache(tmp_path: Path) -> None:
    """SQLITE_CACHE_KIB: the pool's connections and the writer's alike (SQLite's own 2 MiB a
    connection filled up as the file grew, tens of MiB of the server's memory)."""
    url = f"sqlite+aiosqlite:///{tmp_path / 'c.db'}"
    await asyncio.to_thread(upgrade, url)
    store = Storage.open(url, "FULL", Tuning(sqlite_cache_kib=300))
    try:
        async with store.db.engine.connect() as conn:
            pooled = (await conn.exec_driver_sql("PRAGMA cache_size")).scalar()
        assert store.db._sync is not None
        with store.db._sync.connect() as sync_conn:
            writer = sync_conn.exec_driver_sql("PRAGMA cache_size").scalar()
    finally:
        await store.close()
    assert pooled == writer == -300
    assert Settings.from_env({}).sqlite_cache_kib == 512
    assert Settings.from_env({"SQLITE_CACHE_KIB": "64"}).sqlite_cache_kib == 64


async def test_room_state_round_trip(storage: Storage) -> None:
    room = state()
    await storage.rooms.create(room, "waiting", hash_secret("t0"))
    assert await storage.rooms.load("r1") == room
    assert await storage.seats.room_of(hash_secret("t0")) == ("r1", 0)
    assert await storage.seats.room_of(hash_secret("t1")) is None
    assert await storage.codes.room_for_invite("INVr1") == "r1"
    joined = replace(room, version=1).with_seat(1, SeatState("arriving", 5.0, name="Primo"))
    await storage.rooms.write(write0(joined, "playing", (1,), join=(1, hash_secret("t1"), "k")))
    assert await storage.rooms.load("r1") == joined
    held = await storage.seats.token("r1", 1)
    assert held is not None and held.token_hash == hash_secret("t1") and held.join_key_hash == "k"
    away = joined.with_seat(0, SeatState("away", 9.5, "normal", True, name="Ana"))
    away = replace(away, version=2)
    await storage.rooms.write(write0(away, "playing", (0,)))
    assert await storage.rooms.load("r1") == away


async def test_a_stale_copy_never_writes(storage: Storage) -> None:
    room = state("r2", "computer")
    await storage.rooms.create(room, "playing", hash_secret("t0"))
    first = moved(room, 1)
    await storage.rooms.write(write0(first, "playing", move=trail(1)))
    # a second copy decided from version 0 too: refused, and nothing of it is written
    with pytest.raises(StaleRoom):
        await storage.rooms.write(write0(moved(room, 1), "playing", move=trail(1, seat=1)))
    with pytest.raises(StaleRoom):
        await storage.rooms.write(
            write0(replace(moved(room, 2), version=1), "playing", move=trail(2))
        )
    assert [(m.seq, m.seat) for m in await storage.rooms.load_moves("r2", 0)] == [(1, 0)]
    assert await storage.rooms.load("r2") == first


async def test_domain_outcomes_do_not_undo_the_batch(storage: Storage) -> None:
    """A hundred moves of a hundred rooms and a used rejoin code in one group commit: the
    code is refused, the moves all commit, in one transaction (not one each)."""
    rooms = [state(f"g{i}", "computer") for i in range(100)]
    await asyncio.gather(*(storage.rooms.create(r, "playing", hash_secret(r.id)) for r in rooms))
    assert await storage.codes.add_rejoin("g0", 0, hash_secret("S"), hash_secret("L"), 2e9)
    code = await storage.codes.find_rejoin(hash_secret("S"))
    assert code is not None
    await storage.rooms.write(
        write0(
            replace(rooms[0], version=1),
            "playing",
            (0,),
            new_token=(0, hash_secret("n")),
            use_code=(code.id, None),
        )
    )
    commits: list[int] = []
    writer = storage.db._sync or storage.db.engine.sync_engine  # SQLite's writer has its own
    event.listen(writer, "commit", lambda conn: commits.append(1))
    used_again = storage.rooms.write(
        write0(
            replace(rooms[0], version=2),
            "playing",
            (0,),
            new_token=(0, hash_secret("m")),
            use_code=(code.id, None),
        )
    )
    writes = [storage.rooms.write(write0(moved(r, 1), "playing", move=trail(1))) for r in rooms]
    results = await asyncio.gather(used_again, *writes, return_exceptions=True)
    assert isinstance(results[0], RejoinError) and results[0].code == "code_used"
    assert isinstance(results[1], StaleRoom)  # g0 was at version 1: its move is refused
    assert all(r is None for r in results[2:])
    assert len(commits) <= 2
    counts = [len(await storage.rooms.load_moves(r.id, 0)) for r in rooms]
    assert counts == [0] + [1] * 99
    assert await storage.seats.room_of(hash_secret("n")) == ("g0", 0)


async def test_a_batched_move_never_lands_beside_another_writers_change(
    storage: Storage,
    db: Database,
) -> None:
    """Another writer (a second server process, issue 8) changes the room between the
    batch's read of its version and its conditional update: either both writes land, one
    after the other, or the move fails with nothing of it written (SQLite: the batch sees
    the change). Never the move without the room (PostgreSQL did, before the read locked
    the rows: it has no row counts of a multi-row update to check)."""
    room = state("r4", "computer")
    await storage.rooms.create(room, "playing", hash_secret("t0"))
    other: list[threading.Thread] = []

    def bump_meanwhile(conn: Any, cursor: Any, statement: str, *_: Any) -> None:
        if statement.startswith("UPDATE rooms") and not other:
            other.append(
                threading.Thread(
                    target=db.execute,
                    args=("update rooms set version = version + 1 where id = ?", room.id),
                )
            )
            other[0].start()
            other[0].join(1.0)  # it commits now, or waits for this transaction's end

    event.listen(
        storage.db._sync or storage.db.engine.sync_engine, "before_cursor_execute", bump_meanwhile
    )
    try:
        await storage.rooms.write(write0(moved(room, 1), "playing", move=trail(1)))
        outcome: Exception | None = None
    except Exception as exc:  # StaleRoom, or the batch's own check (nothing written)
        outcome = exc
    other[0].join(10)
    stored = db.rows("select seq, version from rooms where id = ?", room.id)
    logged = db.rows("select seq from moves where room_id = ?", room.id)
    if outcome is None:
        assert (stored, logged) == ([(1, 2)], [(1,)])
    else:
        assert (stored, logged) == ([(0, 1)], [])


async def test_one_live_rejoin_code_per_seat(storage: Storage) -> None:
    await storage.rooms.create(state(), "waiting", hash_secret("t0"))
    assert await storage.codes.add_rejoin("r1", 0, hash_secret("S1"), hash_secret("L1"), 2e9)
    assert not await storage.codes.add_rejoin("r1", 0, hash_secret("S1"), hash_secret("L2"), 2e9)
    assert await storage.codes.add_rejoin("r1", 0, hash_secret("S3"), hash_secret("L3"), 2e9)
    first = await storage.codes.find_rejoin(hash_secret("L1"))
    second = await storage.codes.find_rejoin(hash_secret("S3"))
    assert first is not None and first.used_at is not None  # ended by the newer code
    assert second is not None and second.used_at is None and second.seat == 0
    assert await storage.codes.find_rejoin(hash_secret("S9")) is None


async def test_room_is_rebuilt_from_state_seed_and_move_log(storage: Storage) -> None:
    room = state("r3", "computer")
    await storage.rooms.create(room, "playing", hash_secret("t0"))
    match = Match.new("semilla")
    moves = []
    for seq in range(1, 61):
        move = choose_for_position("facil", match.position, seq)
        seat = match.position.turn
        match, _ = match.play(move)
        moves.append(move)
        room = moved(room, seq)
        await storage.rooms.write(
            write0(room, "playing", move=MoveRecord(seq, 1, seat, move.to_text(), None))
        )
    ownership = await held_lease(storage)
    registry = RoomRegistry(
        storage, LocalHub(), Settings(computer_delay=3600), AiPool(0).choose, ownership
    )
    live = await registry.get("r3")
    assert live is not None
    snapshot: Any = await live.ask(Snapshot())
    assert snapshot.seq == 60 and snapshot.version == 60
    assert live.match.position == Match.replay("semilla", moves).position
    assert live.match.hand_number == match.hand_number
    # the events of the last KEPT_SEQS seqs in memory, the older ones replayed from storage
    kept = [s for s, e in live.live.events if json.loads(e)["kind"] == "move"]
    assert kept == list(range(61 - KEPT_SEQS, 61))
    assert sorted({s for s, _ in await live.events_since(0)}) == list(range(1, 61))
    last_move = live.live.last_move
    assert last_move is not None and last_move["move"] == moves[-1].to_json()
    await registry.shut_down()


async def test_close_commits_the_batch_in_flight(db: Database) -> None:
    await asyncio.to_thread(upgrade, db.url)
    store = Storage.open(db.url)
    rooms = [state(f"c{i}", "computer") for i in range(50)]
    await asyncio.gather(*(store.rooms.create(r, "playing", hash_secret(r.id)) for r in rooms))
    writes = [
        asyncio.create_task(store.rooms.write(write0(moved(r, 1), "playing", move=trail(1))))
        for r in rooms
    ]
    for _ in range(5):  # the writer takes the batch and starts its transaction
        await asyncio.sleep(0)
    await asyncio.wait_for(store.close(), 10)
    assert all(w.done() and w.exception() is None for w in writes)
    assert db.rows("select count(*) from moves") == [(50,)]


async def test_a_process_that_lost_the_room_never_writes_it_again(
    storage: Storage, db: Database
) -> None:
    """Fencing (issue 8): each claim of a room bumps its epoch, and the database refuses a
    write at an older epoch, the latest version notwithstanding, whatever the write carries
    (a move, a seat change: one path for all of them). Leases are judged on the database's
    clock alone, and a lapsed lease is never renewed (issue 22)."""
    leases = storage.leases
    room = state("f1", "friend")
    await storage.rooms.create(room, "waiting", hash_secret("t0"))  # nobody's, epoch 0
    await leases.join("a", 60, 0.0)
    nobody = await leases.owner("f1")
    assert nobody is not None and nobody.node is None
    assert await leases.claim("f1", "a") == 1
    held = await leases.owner("f1")
    assert held is not None and held.node == "a"
    assert 59 < held.lease_until - held.db_now <= 60  # on the database's clock
    assert await leases.live() == {"a"}
    assert await leases.claim("f1", "b") is None  # a's lease runs
    assert await leases.claim("f1", "a") == 2  # a takes its own room again
    with pytest.raises(StaleRoom):  # its copy of epoch 1 can no longer write
        await storage.rooms.write(RoomWrite(moved(room, 1), "playing", move=trail(1), epoch=1))
    renewal = await leases.renew("a", 60)
    assert renewal is not None and renewal.held == {"f1": 2} and renewal.live == {"a"}
    # a's lease lapses (as after a pause longer than the lease): the database says so
    db.execute("update nodes set lease_until = lease_until - 3600 where id = 'a'")
    assert await leases.renew("a", 60) is None  # a lapsed lease is never renewed
    assert await leases.claim("f1", "b") == 3
    assert await leases.live() == frozenset()
    with pytest.raises(StaleRoom):
        await storage.rooms.write(RoomWrite(moved(room, 1), "playing", move=trail(1), epoch=2))
    with pytest.raises(StaleRoom):
        await storage.rooms.write(
            RoomWrite(moved(room, 0).with_seat(0, SeatState("away", 2.0)), "waiting", (0,), epoch=2)
        )
    assert db.rows("select version, owner, epoch from rooms") == [(0, "b", 3)]
    assert db.rows("select count(*) from moves") == [(0,)]
    await storage.rooms.write(RoomWrite(moved(room, 1), "playing", move=trail(1), epoch=3))
    await leases.release("f1", "b", 2)  # an old epoch releases nothing
    after = await leases.owner("f1")
    assert after is not None and after.node == "b"
    await leases.release("f1", "b", 3)
    released = await leases.owner("f1")
    assert released is not None and released.node is None
    await leases.join("b", 100, 0.0)
    assert await leases.claim("f1", "c") == 4  # nobody's: taken at once
    assert await leases.claim("f1", "b", force=True) == 5  # one process: always
    await leases.release_node("b")
    gone = await leases.owner("f1")
    assert gone is not None and gone.node is None
    assert await leases.claim("nada", "b") is None


@postgres_only
async def test_the_purge_runs_in_one_process_at_a_time_and_skips_locked_rooms(
    storage: Storage, db: Database
) -> None:
    """Issue 22: a purge while another process purges (it holds the advisory lock) does
    nothing; a room a writer holds locked is skipped, never waited for, and purged the next
    time; the purge is a transaction of its own, not the writer's."""
    old = [state(f"old{i}", "computer") for i in range(3)]
    for room in old:
        await storage.rooms.create(room, "playing", hash_secret(room.id))
    db.execute("update rooms set updated_at = 1")
    assert isinstance(db, PostgresDb)
    other = await asyncpg.connect(db.dsn)
    try:
        purging = other.transaction()
        await purging.start()
        await other.execute("select pg_advisory_xact_lock($1)", PURGE_LOCK)
        assert await storage.purges.purge(1000.0, 0.0, frozenset()) is None
        await purging.rollback()
        writing = other.transaction()
        await writing.start()
        await other.execute("select 1 from rooms where id = 'old1' for update")
        started = time.monotonic()
        assert await storage.purges.purge(1000.0, 0.0, frozenset()) == (2, 0)
        assert time.monotonic() - started < 1.0  # skipped, not waited for
        await writing.rollback()
    finally:
        await other.close()
    assert db.rows("select id from rooms") == [("old1",)]
    assert await storage.purges.purge(1000.0, 0.0, frozenset()) == (1, 0)
