"""Storage behind one small interface: ``Storage`` (a Protocol) and its SQLAlchemy 2 async
implementation, ``SqlStorage`` (SQLite through aiosqlite now, PostgreSQL through asyncpg by
``DATABASE_URL`` alone).

Every write is one transaction, committed before the call returns: the rooms module tells
players about a move only after ``append_move`` returned.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Protocol

from sqlalchemy import event, insert, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, create_async_engine

from .models import finished_matches, moves, rejoin_codes, rooms, seats


@dataclass(frozen=True, slots=True)
class RoomRecord:
    id: str
    mode: str  # "computer" | "friend"
    level: str | None
    seed: str
    match_no: int
    match_start_seq: int
    status: str  # "waiting" | "playing" | "finished"
    names: tuple[str, str | None]
    invite: str | None


@dataclass(frozen=True, slots=True)
class MoveRecord:
    seq: int
    match_no: int
    seat: int
    move: str  # NOTATION.md JSON text
    client_id: str | None


@dataclass(frozen=True, slots=True)
class FinishedMatch:
    match_no: int
    seed: str
    winner: int | None
    scores: tuple[int, int]
    first_seq: int
    last_seq: int


class RejoinError(Exception):
    def __init__(self, code: str) -> None:
        super().__init__(code)
        self.code = code  # "code_unknown" | "code_expired" | "code_used"


class Storage(Protocol):
    async def create_room(self, room: RoomRecord, token_hash: str) -> None: ...

    async def load_room(self, room_id: str) -> RoomRecord | None: ...

    async def seat_for_token(self, token_hash: str) -> tuple[str, int] | None: ...

    async def room_for_invite(self, invite: str) -> str | None: ...

    async def join(self, room_id: str, name: str, token_hash: str) -> bool:
        """Fills seat 1 of a waiting friend room; False when it is already taken."""
        ...

    async def append_move(
        self, room_id: str, record: MoveRecord, status: str | None = None
    ) -> None:
        """Appends one move (and sets the room's status when given) in one transaction."""
        ...

    async def load_moves(self, room_id: str, after_seq: int) -> list[MoveRecord]: ...

    async def start_rematch(
        self, room_id: str, finished: FinishedMatch, seed: str, match_no: int, start_seq: int
    ) -> None: ...

    async def add_rejoin_code(
        self, room_id: str, seat: int, short_hash: str, long_hash: str, expires_at: float
    ) -> bool:
        """False when a code hash collides with an existing one (pick another code)."""
        ...

    async def use_rejoin_code(
        self, code_hash: str, now: float, new_token_hash: str
    ) -> tuple[str, int]:
        """Marks the code used and gives its seat the new token; raises RejoinError."""
        ...

    async def close(self) -> None: ...


def _sqlite_pragmas(synchronous: str) -> Any:
    def on_connect(dbapi_connection: Any, _record: Any) -> None:
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute(f"PRAGMA synchronous={synchronous}")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA busy_timeout=5000")
        cursor.close()

    return on_connect


def make_engine(url: str, sqlite_synchronous: str = "FULL") -> AsyncEngine:
    engine = create_async_engine(url, pool_pre_ping=not url.startswith("sqlite"))
    if engine.dialect.name == "sqlite":
        event.listen(engine.sync_engine, "connect", _sqlite_pragmas(sqlite_synchronous))
    return engine


def _room(row: Any) -> RoomRecord:
    return RoomRecord(
        id=row.id, mode=row.mode, level=row.level, seed=row.seed, match_no=row.match_no,
        match_start_seq=row.match_start_seq, status=row.status, names=(row.name0, row.name1),
        invite=row.invite,
    )


Job = Callable[[AsyncConnection], Awaitable[Any]]
MAX_BATCH = 512


class SqlStorage:
    """``Storage`` on SQLAlchemy's async engine.

    All writes go through one writer task that commits whatever is waiting in one
    transaction (group commit): one fsync for many moves, and no two connections fighting
    for SQLite's write lock. Each caller still returns only after its own write committed.
    Reads use the pool's other connections (WAL lets them run beside the writer).
    """

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine
        self._jobs: list[tuple[Job, asyncio.Future[Any]]] = []
        self._moves: list[tuple[dict[str, Any], str | None, asyncio.Future[Any]]] = []
        self._wake = asyncio.Event()
        self._writer: asyncio.Task[None] | None = None
        self._conn: AsyncConnection | None = None
        self._closing = False

    @classmethod
    def from_url(cls, url: str, sqlite_synchronous: str = "FULL") -> SqlStorage:
        return cls(make_engine(url, sqlite_synchronous))

    async def close(self) -> None:
        """Lets the writer commit everything queued (the batch in flight too), then closes."""
        self._closing = True
        if self._writer is not None and not self._writer.done():
            self._wake.set()
            await self._writer
        await self._drop_writer_connection()
        await self.engine.dispose()

    # -- the writer ----------------------------------------------------------------------

    def _start_writer(self) -> None:
        if self._writer is None or self._writer.done():
            self._writer = asyncio.get_running_loop().create_task(self._write_loop())
        self._wake.set()

    async def _write(self, job: Job) -> Any:
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._jobs.append((job, future))
        self._start_writer()
        return await future

    async def _write_loop(self) -> None:
        while True:
            await self._wake.wait()
            self._wake.clear()
            while self._jobs or self._moves:
                moves_batch, self._moves = self._moves[:MAX_BATCH], self._moves[MAX_BATCH:]
                jobs, self._jobs = self._jobs[:MAX_BATCH], self._jobs[MAX_BATCH:]
                await self._commit_batch(moves_batch, jobs)
            if self._closing:
                return

    async def _commit_batch(
        self, moves_batch: list[tuple[dict[str, Any], str | None, asyncio.Future[Any]]],
        jobs: list[tuple[Job, asyncio.Future[Any]]],
    ) -> None:
        try:
            conn = await self._writer_connection()
            async with conn.begin():
                await self._insert_moves(conn, moves_batch)
                results = [await job(conn) for job, _ in jobs]
        except Exception as exc:
            await self._drop_writer_connection()
            if len(moves_batch) + len(jobs) == 1:
                futures = [f for _, _, f in moves_batch] + [f for _, f in jobs]
                if not futures[0].done():
                    futures[0].set_exception(exc)
                return
            # one of them failed: commit each on its own, so only that one fails
            for item in moves_batch:
                await self._commit_batch([item], [])
            for job in jobs:
                await self._commit_batch([], [job])
            return
        for *_, future in moves_batch:
            if not future.done():
                future.set_result(None)
        for (_, future), result in zip(jobs, results, strict=True):
            if not future.done():
                future.set_result(result)

    async def _writer_connection(self) -> AsyncConnection:
        """The writer keeps one connection: no pool round trip for each commit."""
        if self._conn is None:
            self._conn = await self.engine.connect()
        return self._conn

    async def _drop_writer_connection(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            with contextlib.suppress(Exception):
                await conn.close()

    @staticmethod
    async def _insert_moves(
        conn: AsyncConnection,
        batch: list[tuple[dict[str, Any], str | None, asyncio.Future[Any]]],
    ) -> None:
        if not batch:
            return
        await conn.execute(insert(moves), [row for row, _, _ in batch])
        now = time.time()
        for row, status, _ in batch:
            if status is not None:
                await conn.execute(update(rooms).where(rooms.c.id == row["room_id"])
                                   .values(status=status, updated_at=now))

    # -- writes --------------------------------------------------------------------------

    async def create_room(self, room: RoomRecord, token_hash: str) -> None:
        now = time.time()

        async def job(conn: AsyncConnection) -> None:
            await conn.execute(insert(rooms).values(
                id=room.id, mode=room.mode, level=room.level, seed=room.seed,
                match_no=room.match_no, match_start_seq=room.match_start_seq,
                status=room.status, name0=room.names[0], name1=room.names[1],
                invite=room.invite, created_at=now, updated_at=now,
            ))
            await conn.execute(insert(seats).values(room_id=room.id, seat=0, token_hash=token_hash))

        await self._write(job)

    async def load_room(self, room_id: str) -> RoomRecord | None:
        async with self.engine.connect() as conn:
            row = (await conn.execute(select(rooms).where(rooms.c.id == room_id))).first()
        return _room(row) if row is not None else None

    async def seat_for_token(self, token_hash: str) -> tuple[str, int] | None:
        async with self.engine.connect() as conn:
            row = (await conn.execute(
                select(seats.c.room_id, seats.c.seat).where(seats.c.token_hash == token_hash)
            )).first()
        return (row.room_id, row.seat) if row is not None else None

    async def room_for_invite(self, invite: str) -> str | None:
        async with self.engine.connect() as conn:
            row = (await conn.execute(select(rooms.c.id).where(rooms.c.invite == invite))).first()
        return row.id if row is not None else None

    async def join(self, room_id: str, name: str, token_hash: str) -> bool:
        async def job(conn: AsyncConnection) -> bool:
            result = await conn.execute(
                update(rooms)
                .where(rooms.c.id == room_id, rooms.c.name1.is_(None), rooms.c.mode == "friend")
                .values(name1=name, status="playing", updated_at=time.time())
            )
            if result.rowcount != 1:
                return False
            await conn.execute(insert(seats).values(room_id=room_id, seat=1, token_hash=token_hash))
            return True

        return bool(await self._write(job))

    async def append_move(
        self, room_id: str, record: MoveRecord, status: str | None = None
    ) -> None:
        row = {
            "room_id": room_id, "seq": record.seq, "match_no": record.match_no,
            "seat": record.seat, "move": record.move, "client_id": record.client_id,
            "created_at": time.time(),
        }
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._moves.append((row, status, future))
        self._start_writer()
        await future

    async def load_moves(self, room_id: str, after_seq: int) -> list[MoveRecord]:
        async with self.engine.connect() as conn:
            rows = (await conn.execute(
                select(moves.c.seq, moves.c.match_no, moves.c.seat, moves.c.move, moves.c.client_id)
                .where(moves.c.room_id == room_id, moves.c.seq > after_seq)
                .order_by(moves.c.seq)
            )).all()
        return [MoveRecord(r.seq, r.match_no, r.seat, r.move, r.client_id) for r in rows]

    async def start_rematch(
        self, room_id: str, finished: FinishedMatch, seed: str, match_no: int, start_seq: int
    ) -> None:
        now = time.time()

        async def job(conn: AsyncConnection) -> None:
            await conn.execute(insert(finished_matches).values(
                room_id=room_id, match_no=finished.match_no, seed=finished.seed,
                winner=finished.winner, score0=finished.scores[0], score1=finished.scores[1],
                first_seq=finished.first_seq, last_seq=finished.last_seq, finished_at=now,
            ))
            await conn.execute(update(rooms).where(rooms.c.id == room_id).values(
                seed=seed, match_no=match_no, match_start_seq=start_seq, status="playing",
                updated_at=now,
            ))

        await self._write(job)

    async def add_rejoin_code(
        self, room_id: str, seat: int, short_hash: str, long_hash: str, expires_at: float
    ) -> bool:
        async def job(conn: AsyncConnection) -> None:
            await conn.execute(insert(rejoin_codes).values(
                room_id=room_id, seat=seat, short_hash=short_hash, long_hash=long_hash,
                expires_at=expires_at,
            ))

        try:
            await self._write(job)
        except IntegrityError:
            return False
        return True

    async def use_rejoin_code(
        self, code_hash: str, now: float, new_token_hash: str
    ) -> tuple[str, int]:
        async def job(conn: AsyncConnection) -> tuple[str, int]:
            row = (await conn.execute(
                select(rejoin_codes).where(
                    (rejoin_codes.c.short_hash == code_hash)
                    | (rejoin_codes.c.long_hash == code_hash)
                )
            )).first()
            if row is None:
                raise RejoinError("code_unknown")
            if row.used_at is not None:
                raise RejoinError("code_used")
            if row.expires_at <= now:
                raise RejoinError("code_expired")
            marked = await conn.execute(
                update(rejoin_codes)
                .where(rejoin_codes.c.id == row.id, rejoin_codes.c.used_at.is_(None))
                .values(used_at=now)
            )
            if marked.rowcount != 1:  # used at the same moment by someone else
                raise RejoinError("code_used")
            await conn.execute(
                update(seats)
                .where(seats.c.room_id == row.room_id, seats.c.seat == row.seat)
                .values(token_hash=new_token_hash)
            )
            return row.room_id, int(row.seat)

        result: tuple[str, int] = await self._write(job)
        return result
