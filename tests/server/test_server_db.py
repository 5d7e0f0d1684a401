"""Storage on a fresh SQLite file made by the Alembic migrations; rooms rebuilt from the
seed and the move log alone."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from pathlib import Path

import pytest

from server.ai import choose_for_position
from server.config import Settings
from server.engine import Match
from server.fanout import LocalHub
from server.migrate import upgrade
from server.rooms import RoomManager, hash_secret
from server.storage import FinishedMatch, MoveRecord, RejoinError, RoomRecord, SqlStorage


@pytest.fixture
async def storage(tmp_path: Path) -> SqlStorage:
    url = f"sqlite+aiosqlite:///{tmp_path / 'fresh.db'}"
    await asyncio.to_thread(upgrade, url)
    store = SqlStorage.from_url(url)
    yield store  # type: ignore[misc]
    await store.close()


def record(room_id: str = "r1", mode: str = "friend") -> RoomRecord:
    return RoomRecord(id=room_id, mode=mode, level=None, seed="semilla", match_no=1,
                      match_start_seq=0, status="waiting", names=("Ana", None), invite="ABCD2345")


async def test_migrations_make_the_tables_in_wal_mode(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    url = f"sqlite+aiosqlite:///{path}"
    await asyncio.to_thread(upgrade, url)
    await asyncio.to_thread(upgrade, url)  # a second run changes nothing
    store = SqlStorage.from_url(url)
    await store.create_room(record(), hash_secret("t0"))  # opens a connection: pragmas
    async with store.engine.connect() as conn:
        sync = (await conn.exec_driver_sql("PRAGMA synchronous")).scalar()
    await store.close()
    assert sync == 2  # FULL
    con = sqlite3.connect(path)
    tables = {r[0] for r in con.execute("select name from sqlite_master where type='table'")}
    assert {"rooms", "seats", "moves", "finished_matches", "rejoin_codes",
            "alembic_version"} <= tables
    assert con.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert con.execute("select version_num from alembic_version").fetchone()[0] == "0001"
    con.close()


async def test_storage_round_trip(storage: SqlStorage) -> None:
    await storage.create_room(record(), hash_secret("t0"))
    assert await storage.seat_for_token(hash_secret("t0")) == ("r1", 0)
    assert await storage.seat_for_token(hash_secret("t1")) is None
    assert await storage.room_for_invite("ABCD2345") == "r1"
    assert await storage.join("r1", "Primo", hash_secret("t1")) is True
    assert await storage.join("r1", "Otro", hash_secret("t2")) is False
    room = await storage.load_room("r1")
    assert room is not None and room.names == ("Ana", "Primo") and room.status == "playing"
    await storage.append_move("r1", MoveRecord(1, 1, 0, '{"kind":"trail","card":"2h"}', "c1"))
    with pytest.raises(Exception):  # noqa: B017 - the same seq twice is refused
        await storage.append_move("r1", MoveRecord(1, 1, 1, '{"kind":"trail","card":"3h"}', None))
    moves = await storage.load_moves("r1", 0)
    assert [(m.seq, m.seat, m.client_id) for m in moves] == [(1, 0, "c1")]
    await storage.start_rematch("r1", FinishedMatch(1, "semilla", 0, (21, 3), 1, 1),
                                "otra", 2, 2)
    room = await storage.load_room("r1")
    assert room is not None and (room.seed, room.match_no, room.match_start_seq) == ("otra", 2, 2)


async def test_rejoin_codes(storage: SqlStorage) -> None:
    await storage.create_room(record(), hash_secret("t0"))
    assert await storage.add_rejoin_code("r1", 0, hash_secret("S1"), hash_secret("L1"), 2e9)
    assert not await storage.add_rejoin_code("r1", 0, hash_secret("S1"), hash_secret("L2"), 2e9)
    assert await storage.add_rejoin_code("r1", 0, hash_secret("S3"), hash_secret("L3"), 10.0)
    assert await storage.use_rejoin_code(hash_secret("L1"), 100.0, hash_secret("new")) == ("r1", 0)
    assert await storage.seat_for_token(hash_secret("t0")) is None
    assert await storage.seat_for_token(hash_secret("new")) == ("r1", 0)
    for code, expected in (("S1", "code_used"), ("S3", "code_expired"), ("S9", "code_unknown")):
        with pytest.raises(RejoinError) as info:
            await storage.use_rejoin_code(hash_secret(code), 100.0, hash_secret("x"))
        assert info.value.code == expected
    assert await storage.seat_for_token(hash_secret("new")) == ("r1", 0)


async def test_room_is_rebuilt_from_seed_and_move_log(storage: SqlStorage) -> None:
    await storage.create_room(record("r2", "computer"), hash_secret("t0"))
    match = Match.new("semilla")
    moves = []
    for seq in range(1, 61):
        move = choose_for_position("facil", match.position, seq)
        match, _ = match.play(move)
        moves.append(move)
        await storage.append_move("r2", MoveRecord(seq, 1, 1 - match.position.turn,
                                                   move.to_text(), None))
    manager = RoomManager(storage, LocalHub(), Settings(computer_delay=3600))
    room = await manager.get("r2")
    assert room is not None and room.seq == 60
    assert room.match.position == Match.replay("semilla", moves).position
    assert room.match.hand_number == match.hand_number
    assert [s for s, e in room.events if json.loads(e)["kind"] == "move"] == list(range(1, 61))
    assert room.last_move is not None and room.last_move["move"] == moves[-1].to_json()
    if room.computer_task is not None:
        room.computer_task.cancel()


async def test_close_commits_the_batch_in_flight(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'close.db'}"
    await asyncio.to_thread(upgrade, url)
    store = SqlStorage.from_url(url)
    await store.create_room(record(), hash_secret("t0"))
    writes = [asyncio.create_task(store.append_move("r1", MoveRecord(n, 1, 0, "{}", None)))
              for n in range(1, 51)]
    for _ in range(5):  # the writer takes the batch and starts its transaction
        await asyncio.sleep(0)
    await asyncio.wait_for(store.close(), 10)
    assert all(w.done() and w.exception() is None for w in writes)
    con = sqlite3.connect(tmp_path / "close.db")
    try:
        assert con.execute("select count(*) from moves").fetchone() == (50,)
    finally:
        con.close()
