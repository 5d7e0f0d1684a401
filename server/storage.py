"""Storage behind one small interface: ``Storage`` (a Protocol) and its SQLAlchemy 2 async
implementation, ``SqlStorage`` (SQLite through aiosqlite now, PostgreSQL through asyncpg by
``DATABASE_URL`` alone).

Every write is one transaction, committed before the call returns: the rooms module tells
players about a move only after ``append_move`` returned.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Protocol

from sqlalchemy import event, insert, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

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


class SqlStorage:
    """``Storage`` on SQLAlchemy's async engine."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine

    @classmethod
    def from_url(cls, url: str, sqlite_synchronous: str = "FULL") -> SqlStorage:
        return cls(make_engine(url, sqlite_synchronous))

    async def close(self) -> None:
        await self.engine.dispose()

    async def create_room(self, room: RoomRecord, token_hash: str) -> None:
        now = time.time()
        async with self.engine.begin() as conn:
            await conn.execute(insert(rooms).values(
                id=room.id, mode=room.mode, level=room.level, seed=room.seed,
                match_no=room.match_no, match_start_seq=room.match_start_seq,
                status=room.status, name0=room.names[0], name1=room.names[1],
                invite=room.invite, created_at=now, updated_at=now,
            ))
            await conn.execute(insert(seats).values(room_id=room.id, seat=0, token_hash=token_hash))

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
        async with self.engine.begin() as conn:
            result = await conn.execute(
                update(rooms)
                .where(rooms.c.id == room_id, rooms.c.name1.is_(None), rooms.c.mode == "friend")
                .values(name1=name, status="playing", updated_at=time.time())
            )
            if result.rowcount != 1:
                return False
            await conn.execute(insert(seats).values(room_id=room_id, seat=1, token_hash=token_hash))
        return True

    async def append_move(
        self, room_id: str, record: MoveRecord, status: str | None = None
    ) -> None:
        now = time.time()
        async with self.engine.begin() as conn:
            await conn.execute(insert(moves).values(
                room_id=room_id, seq=record.seq, match_no=record.match_no, seat=record.seat,
                move=record.move, client_id=record.client_id, created_at=now,
            ))
            if status is not None:
                await conn.execute(
                    update(rooms).where(rooms.c.id == room_id).values(status=status, updated_at=now)
                )

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
        async with self.engine.begin() as conn:
            await conn.execute(insert(finished_matches).values(
                room_id=room_id, match_no=finished.match_no, seed=finished.seed,
                winner=finished.winner, score0=finished.scores[0], score1=finished.scores[1],
                first_seq=finished.first_seq, last_seq=finished.last_seq, finished_at=now,
            ))
            await conn.execute(update(rooms).where(rooms.c.id == room_id).values(
                seed=seed, match_no=match_no, match_start_seq=start_seq, status="playing",
                updated_at=now,
            ))

    async def add_rejoin_code(
        self, room_id: str, seat: int, short_hash: str, long_hash: str, expires_at: float
    ) -> bool:
        try:
            async with self.engine.begin() as conn:
                await conn.execute(insert(rejoin_codes).values(
                    room_id=room_id, seat=seat, short_hash=short_hash, long_hash=long_hash,
                    expires_at=expires_at,
                ))
        except IntegrityError:
            return False
        return True

    async def use_rejoin_code(
        self, code_hash: str, now: float, new_token_hash: str
    ) -> tuple[str, int]:
        async with self.engine.begin() as conn:
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
