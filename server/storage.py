"""Storage behind one small interface: ``Storage`` (a Protocol) and its SQLAlchemy 2
implementation, ``SqlStorage`` (SQLite through aiosqlite, PostgreSQL through asyncpg, by
``DATABASE_URL`` alone).

Every write of a room is one ``RoomWrite``: the room's new state, conditional on the
version it was decided from (``StaleRoom`` when another copy wrote first), with the move,
the finished match, the seat's new token or the used rejoin code that came with it, in one
transaction, committed before the call returns. Writes are group-committed: one writer
commits whatever is waiting in one transaction. A domain outcome (a stale copy, a code
already used) is checked first and answered without writing, so it never shares the fate
of the other writes of its batch.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import os
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, cast

from sqlalchemy import (
    Connection,
    bindparam,
    create_engine,
    delete,
    event,
    exists,
    insert,
    or_,
    select,
    update,
)
from sqlalchemy.engine import Engine, make_url
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, create_async_engine

from .models import (
    finished_matches,
    moves,
    nodes,
    rejoin_codes,
    replay_links,
    rooms,
    seats,
    server_secrets,
)
from .state import RoomState, SeatState


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


@dataclass(frozen=True, slots=True)
class RejoinCode:
    id: int
    room_id: str
    seat: int
    expires_at: float
    used_at: float | None
    key_hash: str | None


@dataclass(frozen=True, slots=True)
class SeatToken:
    token_hash: str
    join_key_hash: str | None


@dataclass(frozen=True, slots=True)
class Owner:
    """Who holds a room: the process (None: nobody) and until when its lease runs."""

    node: str | None
    lease_until: float


@dataclass(frozen=True, slots=True)
class Listing:
    """What Mis partidas shows of a room without replaying it, as of a write: the seat to
    move (None unless playing) and the match scores."""

    turn: int | None
    scores: tuple[int, int]


@dataclass(frozen=True, slots=True)
class SeatListing:
    """One seat's game, as stored (``Storage.list_seats``). ``scores`` None: the room was
    not written since the listing columns were added (rebuild it to know)."""

    token_hash: str
    room_id: str
    seat: int
    mode: str
    level: str | None
    turns: bool
    status: str
    names: tuple[str, str | None]
    match_no: int
    turn: int | None
    scores: tuple[int, int] | None
    last_move_at: float | None
    created_at: float
    rematch: tuple[bool, bool]
    takeover: tuple[str | None, str | None]


@dataclass(frozen=True, slots=True)
class StoredMatch:
    """A match as stored: its seed, its moves (seat, NOTATION.md text) and whether it is
    over by the room's own account (``Storage.load_match``)."""

    room_id: str
    match_no: int
    mode: str
    level: str | None
    names: tuple[str, str | None]
    seed: str
    moves: tuple[tuple[int, str], ...]
    finished: bool


@dataclass(frozen=True, slots=True)
class RoomWrite:
    """One write of a room: ``room`` is its state after (``version`` one more than the
    version it was decided from), by the owner that took the room at ``epoch``: the
    database refuses it unless both still hold. ``seats`` are the seat rows to update from
    ``room``."""

    room: RoomState
    status: str
    seats: tuple[int, ...] = ()
    move: MoveRecord | None = None
    finished: FinishedMatch | None = None
    join: tuple[str, str | None] | None = None  # seat 1 taken: (token hash, join key hash)
    new_token: tuple[int, str] | None = None  # a seat moved: (seat, new token hash)
    use_code: tuple[int, str | None] | None = None  # the rejoin code used: (id, key hash)
    epoch: int = field(kw_only=True)
    listing: Listing | None = None  # None: the listing columns are left as they are


class StaleRoom(Exception):
    """The room was written by someone else since this copy read it, or another process
    took it (a newer epoch): nothing written."""


class RejoinError(Exception):
    def __init__(self, code: str) -> None:
        super().__init__(code)
        self.code = code  # "code_unknown" | "code_expired" | "code_used"


class SecondProcess(RuntimeError):
    """Another server process already serves this SQLite file."""


class Storage(Protocol):
    async def create_room(self, room: RoomState, status: str, token_hash: str) -> None:
        """Stores a new room, held by nobody yet (epoch 0): its first visitor takes it."""
        ...

    async def load_room(self, room_id: str) -> RoomState | None: ...

    async def load_moves(self, room_id: str, after_seq: int) -> list[MoveRecord]: ...

    async def seat_for_token(self, token_hash: str) -> tuple[str, int] | None: ...

    async def seat_token(self, room_id: str, seat: int) -> SeatToken | None: ...

    async def room_for_invite(self, invite: str) -> str | None: ...

    async def room_for_watch(self, code: str) -> str | None: ...

    async def write(self, change: RoomWrite) -> None:
        """Commits ``change``; raises StaleRoom (or RejoinError for a used code) with
        nothing written."""
        ...

    async def add_rejoin_code(
        self, room_id: str, seat: int, short_hash: str, long_hash: str, expires_at: float
    ) -> bool:
        """Adds a code and ends the seat's other live ones; False when a hash collides."""
        ...

    async def find_rejoin_code(self, code_hash: str) -> RejoinCode | None: ...

    async def list_seats(self, token_hashes: list[str]) -> list[SeatListing]:
        """The games of the seats with these token hashes (unknown ones are left out)."""
        ...

    async def load_match(self, room_id: str, match_no: int) -> StoredMatch | None: ...

    async def add_replay_link(self, code: str, room_id: str, match_no: int) -> str:
        """Stores ``code`` as the replay code of a match, unless it has one already;
        returns the match's code."""
        ...

    async def find_replay_link(self, code: str) -> tuple[str, int] | None: ...

    async def token_key(self) -> bytes: ...

    async def purge(
        self, rooms_before: float, codes_before: float, keep: frozenset[str], batch: int = 500
    ) -> tuple[int, int]:
        """Deletes up to ``batch`` rooms (with all their rows) not written since
        ``rooms_before`` and not in ``keep``, and the rejoin codes that expired before
        ``codes_before``; returns (rooms, codes) deleted."""
        ...

    # -- ownership (server/cluster.py) --

    async def claim_room(
        self, room_id: str, node: str, now: float, *, force: bool = False
    ) -> int | None:
        """``node`` takes the room unless another process holds a live lease on it (or in
        any case, ``force``): the room's epoch is bumped and returned, and from then on only
        writes at that epoch are accepted. None when the room is held elsewhere or gone."""
        ...

    async def room_owner(self, room_id: str) -> Owner | None:
        """Who holds the room (None: no such room)."""
        ...

    async def renew_node(self, node: str, lease_until: float, started_at: float) -> None: ...

    async def live_nodes(self, now: float) -> frozenset[str]: ...

    async def release_room(self, room_id: str, node: str, epoch: int) -> None:
        """The room is nobody's (if ``node`` still holds it at ``epoch``): the next visitor
        on any process takes it at once."""
        ...

    async def release_node(self, node: str) -> None:
        """A clean stop: all of ``node``'s rooms are nobody's, its lease is gone."""
        ...

    async def close(self) -> None: ...


# -- engines ------------------------------------------------------------------------------


def _sqlite_pragmas(synchronous: str) -> Any:
    def on_connect(dbapi_connection: Any, _record: Any) -> None:
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute(f"PRAGMA synchronous={synchronous}")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA busy_timeout=5000")
        cursor.close()

    return on_connect


def async_url(url: str) -> str:
    """``postgresql://…`` and ``postgres://…`` (no driver named) mean asyncpg."""
    for plain in ("postgresql://", "postgres://"):
        if url.startswith(plain):
            return "postgresql+asyncpg://" + url.removeprefix(plain)
    return url


def make_engine(url: str, sqlite_synchronous: str = "FULL") -> AsyncEngine:
    url = async_url(url)
    engine = create_async_engine(url, pool_pre_ping=not url.startswith("sqlite"))
    if engine.dialect.name == "sqlite":
        event.listen(engine.sync_engine, "connect", _sqlite_pragmas(sqlite_synchronous))
    return engine


def _sync_sqlite_engine(url: str, synchronous: str) -> Engine:
    """The writer's own engine on SQLite: the plain driver in one thread, so a whole
    commit batch costs one hop off the event loop (not one per statement)."""
    engine = create_engine(
        make_url(url).set(drivername="sqlite"), connect_args={"check_same_thread": False}
    )
    event.listen(engine, "connect", _sqlite_pragmas(synchronous))
    return engine


def sqlite_path(url: str) -> Path | None:
    parsed = make_url(url)
    if not parsed.drivername.startswith("sqlite") or parsed.database in (None, "", ":memory:"):
        return None
    return Path(parsed.database or "")


_held: dict[Path, int] = {}  # lock file -> its descriptor, held for the process's life


def lock_sqlite_file(url: str) -> None:
    """Takes an exclusive lock on ``<db>.lock`` beside the SQLite file of ``url`` (once per
    process): SQLite serves one process, so a second one on the same file is refused at
    start with SecondProcess. The kernel drops the lock when the process dies, however it
    dies. Nothing to do for other databases."""
    db = sqlite_path(url)
    if db is None:
        return
    path = db.resolve().with_name(db.name + ".lock")
    if path in _held:
        return
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise SecondProcess(
            f"Another server process already uses {db}: SQLite serves one process. Stop it, "
            "or use PostgreSQL (DATABASE_URL=postgresql+asyncpg://...) to run several."
        ) from None
    _held[path] = fd


# -- rows ---------------------------------------------------------------------------------


def _seat_state(row: Any) -> SeatState:
    return SeatState(
        presence=row.presence, since=row.since, takeover=row.takeover, rematch=bool(row.rematch)
    )


def _room_values(room: RoomState, status: str, now: float) -> dict[str, Any]:
    return {
        "mode": room.mode,
        "level": room.level,
        "seed": room.seed,
        "match_no": room.match_no,
        "match_start_seq": room.match_start_seq,
        "seq": room.seq,
        "version": room.version,
        "status": status,
        "name0": room.names[0],
        "name1": room.names[1],
        "invite": room.invite,
        "updated_at": now,
        "turns": room.turns,
    }


def _listing_values(listing: Listing | None) -> dict[str, Any]:
    if listing is None:
        return {}
    return {"turn": listing.turn, "score0": listing.scores[0], "score1": listing.scores[1]}


def _seat_values(state: SeatState) -> dict[str, Any]:
    return {
        "presence": state.presence,
        "since": state.since,
        "takeover": state.takeover,
        "rematch": state.rematch,
    }


# one write, as a function of a plain connection (run in the writer's transaction); it
# returns an exception for a domain outcome instead of raising it, having written nothing
Job = Callable[[Connection], Any]


def _room_job(change: RoomWrite) -> Job:
    room = change.room

    def job(conn: Connection) -> Exception | None:
        now = time.time()
        if change.use_code is not None:  # check first: a used code writes nothing
            used = conn.execute(
                select(rejoin_codes.c.used_at)
                .where(rejoin_codes.c.id == change.use_code[0])
                .with_for_update()
            ).scalar_one_or_none()
            if used is not None:
                return RejoinError("code_used")
        values = _room_values(room, change.status, now) | _listing_values(change.listing)
        if change.move is not None or change.finished is not None:
            values["moved_at"] = now
        fenced = conn.execute(
            update(rooms)
            .where(
                rooms.c.id == room.id,
                rooms.c.version == room.version - 1,
                rooms.c.epoch == change.epoch,
            )
            .values(**values)
        )
        if fenced.rowcount != 1:
            return StaleRoom(room.id)
        if change.join is not None:
            conn.execute(
                insert(seats).values(
                    room_id=room.id,
                    seat=1,
                    token_hash=change.join[0],
                    join_key_hash=change.join[1],
                    **_seat_values(room.seats[1]),
                )
            )
        for seat in change.seats:
            values = _seat_values(room.seats[seat])
            if change.new_token is not None and change.new_token[0] == seat:
                values["token_hash"] = change.new_token[1]
            conn.execute(
                update(seats)
                .where(seats.c.room_id == room.id, seats.c.seat == seat)
                .values(**values)
            )
        if change.use_code is not None and change.new_token is not None:
            code_id, key_hash = change.use_code
            conn.execute(
                update(rejoin_codes)
                .where(rejoin_codes.c.id == code_id)
                .values(used_at=now, key_hash=key_hash)
            )
            # moving the seat ends every other live code of it
            conn.execute(
                update(rejoin_codes)
                .where(
                    rejoin_codes.c.room_id == room.id,
                    rejoin_codes.c.seat == change.new_token[0],
                    rejoin_codes.c.used_at.is_(None),
                )
                .values(used_at=now)
            )
        if change.move is not None:
            m = change.move
            conn.execute(
                insert(moves).values(
                    room_id=room.id,
                    seq=m.seq,
                    match_no=m.match_no,
                    seat=m.seat,
                    move=m.move,
                    client_id=m.client_id,
                    created_at=now,
                )
            )
        if change.finished is not None:
            f = change.finished
            conn.execute(
                insert(finished_matches).values(
                    room_id=room.id,
                    match_no=f.match_no,
                    seed=f.seed,
                    winner=f.winner,
                    score0=f.scores[0],
                    score1=f.scores[1],
                    first_seq=f.first_seq,
                    last_seq=f.last_seq,
                    finished_at=now,
                )
            )
        return None

    return job


def _plain_move(change: RoomWrite) -> bool:
    """A move and nothing else: only the room's seq, version and status change."""
    return (
        change.move is not None
        and not change.seats
        and change.join is None
        and change.new_token is None
        and change.use_code is None
        and change.finished is None
        and change.listing is not None
    )


_VERSIONS = (
    select(rooms.c.id, rooms.c.version, rooms.c.epoch)
    .where(rooms.c.id.in_(bindparam("b_ids", expanding=True)))
    .order_by(rooms.c.id)
    .with_for_update()
)  # PostgreSQL: no other writer until commit
_FENCE = (
    update(rooms)
    .where(
        rooms.c.id == bindparam("b_id"),
        rooms.c.version == bindparam("b_expected"),
        rooms.c.epoch == bindparam("b_epoch"),
    )
    .values(
        seq=bindparam("b_seq"),
        version=bindparam("b_version"),
        status=bindparam("b_status"),
        updated_at=bindparam("b_now"),
        moved_at=bindparam("b_now"),
        turn=bindparam("b_turn"),
        score0=bindparam("b_score0"),
        score1=bindparam("b_score1"),
    )
)


def _run_jobs(conn: Connection, jobs: list[Job | RoomWrite]) -> list[Any]:
    """Runs a batch's jobs in ``conn``'s transaction. The plain moves (the hot path) go
    together: one read of their rooms' versions, one conditional update and one insert for
    all of them, instead of statements built and run one move at a time."""
    results: list[Any] = [None] * len(jobs)
    plain = [i for i, job in enumerate(jobs) if isinstance(job, RoomWrite) and _plain_move(job)]
    writes = [cast(RoomWrite, jobs[i]) for i in plain]
    if len({w.room.id for w in writes}) != len(writes):
        plain, writes = [], []  # one room twice in a batch: one at a time
    if writes:
        found = {
            row.id: (row.version, row.epoch)
            for row in conn.execute(_VERSIONS, {"b_ids": [w.room.id for w in writes]})
        }
        now = time.time()
        good = []
        for i, w in zip(plain, writes, strict=True):
            if found.get(w.room.id) == (w.room.version - 1, w.epoch):
                good.append(w)
            else:
                results[i] = StaleRoom(w.room.id)
        if good:
            fenced = conn.execute(
                _FENCE,
                [
                    {
                        "b_id": w.room.id,
                        "b_expected": w.room.version - 1,
                        "b_epoch": w.epoch,
                        "b_seq": w.room.seq,
                        "b_version": w.room.version,
                        "b_status": w.status,
                        "b_now": now,
                        "b_turn": w.listing.turn,
                        "b_score0": w.listing.scores[0],
                        "b_score1": w.listing.scores[1],
                    }
                    for w in good
                    if w.listing is not None
                ],
            )
            if conn.dialect.supports_sane_multi_rowcount and fenced.rowcount != len(good):
                raise RuntimeError("a room changed under the batch")  # redone one by one
            conn.execute(
                insert(moves),
                [
                    {
                        "room_id": w.room.id,
                        "seq": m.seq,
                        "match_no": m.match_no,
                        "seat": m.seat,
                        "move": m.move,
                        "client_id": m.client_id,
                        "created_at": now,
                    }
                    for w in good
                    if (m := w.move) is not None
                ],
            )
    done = set(plain)
    for i, job in enumerate(jobs):
        if i not in done:
            results[i] = (_room_job(job) if isinstance(job, RoomWrite) else job)(conn)
    return results


MAX_BATCH = 512
Pending = tuple["Job | RoomWrite", "asyncio.Future[Any]"]


class SqlStorage:
    """``Storage`` on SQLAlchemy.

    All writes go through one writer task that commits whatever is waiting in one
    transaction (group commit): one fsync for many moves, and no two connections fighting
    for SQLite's write lock. Each caller still returns only after its own write committed.
    On SQLite the batch runs in one thread on the plain driver; on PostgreSQL it runs on
    the async connection. Reads use the async engine's pool.
    """

    def __init__(self, url: str, sqlite_synchronous: str = "FULL") -> None:
        self.engine = make_engine(url, sqlite_synchronous)
        self._sync: Engine | None = None
        self._thread: ThreadPoolExecutor | None = None
        self._sync_conn: Connection | None = None
        if self.engine.dialect.name == "sqlite":
            self._sync = _sync_sqlite_engine(url, sqlite_synchronous)
            self._thread = ThreadPoolExecutor(1, thread_name_prefix="sqlite-writer")
        self._pending: list[Pending] = []
        self._wake = asyncio.Event()
        self._writer: asyncio.Task[None] | None = None
        self._conn: AsyncConnection | None = None
        self._closing = False
        self._key: bytes | None = None

    @classmethod
    def from_url(cls, url: str, sqlite_synchronous: str = "FULL") -> SqlStorage:
        return cls(url, sqlite_synchronous)

    async def close(self) -> None:
        """Lets the writer commit everything queued (the batch in flight too), then closes."""
        self._closing = True
        if self._writer is not None and not self._writer.done():
            self._wake.set()
            await self._writer
        await self._drop_writer_connection()
        if self._thread is not None:
            self._thread.shutdown(wait=True)
        if self._sync is not None:
            self._sync.dispose()
        await self.engine.dispose()

    # -- the writer ----------------------------------------------------------------------

    async def _write(self, job: Job | RoomWrite) -> Any:
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._pending.append((job, future))
        if self._writer is None or self._writer.done():
            self._writer = asyncio.get_running_loop().create_task(self._write_loop())
        self._wake.set()
        result = await future
        if isinstance(result, Exception):
            raise result
        return result

    async def _write_loop(self) -> None:
        while True:
            await self._wake.wait()
            self._wake.clear()
            while self._pending:
                batch, self._pending = self._pending[:MAX_BATCH], self._pending[MAX_BATCH:]
                await self._commit_batch(batch)
            if self._closing:
                return

    async def _commit_batch(self, batch: list[Pending]) -> None:
        jobs = [job for job, _ in batch]
        try:
            results = await self._run(jobs)
        except Exception as exc:
            await self._drop_writer_connection()
            if len(batch) == 1:
                if not batch[0][1].done():
                    batch[0][1].set_exception(exc)
                return
            # the database failed (not a domain outcome): commit each alone, so only the
            # one at fault fails
            for item in batch:
                await self._commit_batch([item])
            return
        for (_, future), result in zip(batch, results, strict=True):
            if not future.done():
                future.set_result(result)

    async def _run(self, jobs: list[Job | RoomWrite]) -> list[Any]:
        def run(conn: Connection) -> list[Any]:
            with conn.begin():
                return _run_jobs(conn, jobs)

        if self._thread is not None:
            return await asyncio.get_running_loop().run_in_executor(
                self._thread, lambda: run(self._sync_connection())
            )
        if self._conn is None:
            self._conn = await self.engine.connect()
        conn = self._conn
        async with conn.begin():
            return list(await conn.run_sync(_run_jobs, jobs))

    def _sync_connection(self) -> Connection:
        """The SQLite writer keeps one connection, used only by its thread."""
        assert self._sync is not None
        if self._sync_conn is None:
            self._sync_conn = self._sync.connect()
        return self._sync_conn

    async def _drop_writer_connection(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            with contextlib.suppress(Exception):
                await conn.close()
        sync_conn, self._sync_conn = self._sync_conn, None
        if sync_conn is not None and self._thread is not None:
            with contextlib.suppress(Exception):
                await asyncio.get_running_loop().run_in_executor(self._thread, sync_conn.close)

    # -- writes --------------------------------------------------------------------------

    async def create_room(self, room: RoomState, status: str, token_hash: str) -> None:
        def job(conn: Connection) -> None:
            now = time.time()
            conn.execute(
                insert(rooms).values(  # every match starts with seat 0 to move
                    id=room.id,
                    created_at=now,
                    owner=None,
                    epoch=0,
                    watch=room.watch,
                    **_room_values(room, status, now),
                    **_listing_values(Listing(0 if status == "playing" else None, (0, 0))),
                )
            )
            conn.execute(
                insert(seats).values(
                    room_id=room.id, seat=0, token_hash=token_hash, **_seat_values(room.seats[0])
                )
            )

        await self._write(job)

    async def write(self, change: RoomWrite) -> None:
        await self._write(change)

    async def add_rejoin_code(
        self, room_id: str, seat: int, short_hash: str, long_hash: str, expires_at: float
    ) -> bool:
        def job(conn: Connection) -> Exception | None:
            taken = conn.execute(
                select(rejoin_codes.c.id).where(
                    (rejoin_codes.c.short_hash == short_hash)
                    | (rejoin_codes.c.long_hash == long_hash)
                )
            ).first()
            if taken is not None:
                return IntegrityError("code hash collision", None, Exception())
            conn.execute(
                update(rejoin_codes)
                .where(  # one live code per seat
                    rejoin_codes.c.room_id == room_id,
                    rejoin_codes.c.seat == seat,
                    rejoin_codes.c.used_at.is_(None),
                )
                .values(used_at=time.time())
            )
            conn.execute(
                insert(rejoin_codes).values(
                    room_id=room_id,
                    seat=seat,
                    short_hash=short_hash,
                    long_hash=long_hash,
                    expires_at=expires_at,
                )
            )
            return None

        try:
            await self._write(job)
        except IntegrityError:
            return False
        return True

    # -- reads ---------------------------------------------------------------------------

    async def load_room(self, room_id: str) -> RoomState | None:
        if "\x00" in room_id:  # PostgreSQL refuses it even to compare; no room id holds it
            return None
        async with self.engine.connect() as conn:
            row = (await conn.execute(select(rooms).where(rooms.c.id == room_id))).first()
            if row is None:
                return None
            seat_rows = (await conn.execute(select(seats).where(seats.c.room_id == room_id))).all()
        states = [SeatState(), SeatState()]
        for seat_row in seat_rows:
            states[seat_row.seat] = _seat_state(seat_row)
        return RoomState(
            id=row.id,
            mode=row.mode,
            level=row.level,
            seed=row.seed,
            match_no=row.match_no,
            match_start_seq=row.match_start_seq,
            seq=row.seq,
            version=row.version,
            names=(row.name0, row.name1),
            invite=row.invite,
            seats=(states[0], states[1]),
            turns=bool(row.turns),
            watch=row.watch,
        )

    async def load_moves(self, room_id: str, after_seq: int) -> list[MoveRecord]:
        async with self.engine.connect() as conn:
            rows = (
                await conn.execute(
                    select(
                        moves.c.seq, moves.c.match_no, moves.c.seat, moves.c.move, moves.c.client_id
                    )
                    .where(moves.c.room_id == room_id, moves.c.seq > after_seq)
                    .order_by(moves.c.seq)
                )
            ).all()
        return [MoveRecord(r.seq, r.match_no, r.seat, r.move, r.client_id) for r in rows]

    async def seat_for_token(self, token_hash: str) -> tuple[str, int] | None:
        async with self.engine.connect() as conn:
            row = (
                await conn.execute(
                    select(seats.c.room_id, seats.c.seat).where(seats.c.token_hash == token_hash)
                )
            ).first()
        return (row.room_id, row.seat) if row is not None else None

    async def seat_token(self, room_id: str, seat: int) -> SeatToken | None:
        async with self.engine.connect() as conn:
            row = (
                await conn.execute(
                    select(seats.c.token_hash, seats.c.join_key_hash).where(
                        seats.c.room_id == room_id, seats.c.seat == seat
                    )
                )
            ).first()
        return SeatToken(row.token_hash, row.join_key_hash) if row is not None else None

    async def room_for_invite(self, invite: str) -> str | None:
        async with self.engine.connect() as conn:
            row = (await conn.execute(select(rooms.c.id).where(rooms.c.invite == invite))).first()
        return row.id if row is not None else None

    async def room_for_watch(self, code: str) -> str | None:
        async with self.engine.connect() as conn:
            row = (await conn.execute(select(rooms.c.id).where(rooms.c.watch == code))).first()
        return row.id if row is not None else None

    async def find_rejoin_code(self, code_hash: str) -> RejoinCode | None:
        async with self.engine.connect() as conn:
            row = (
                await conn.execute(
                    select(rejoin_codes).where(
                        (rejoin_codes.c.short_hash == code_hash)
                        | (rejoin_codes.c.long_hash == code_hash)
                    )
                )
            ).first()
        if row is None:
            return None
        return RejoinCode(
            row.id, row.room_id, int(row.seat), row.expires_at, row.used_at, row.key_hash
        )

    async def list_seats(self, token_hashes: list[str]) -> list[SeatListing]:
        if not token_hashes:
            return []
        other = seats.alias("other")
        query = (
            select(
                seats.c.token_hash,
                seats.c.seat,
                seats.c.rematch,
                seats.c.takeover,
                other.c.rematch.label("other_rematch"),
                other.c.takeover.label("other_takeover"),
                rooms.c.id,
                rooms.c.mode,
                rooms.c.level,
                rooms.c.turns,
                rooms.c.status,
                rooms.c.name0,
                rooms.c.name1,
                rooms.c.match_no,
                rooms.c.turn,
                rooms.c.score0,
                rooms.c.score1,
                rooms.c.moved_at,
                rooms.c.created_at,
            )
            .join(rooms, rooms.c.id == seats.c.room_id)
            .outerjoin(
                other, (other.c.room_id == seats.c.room_id) & (other.c.seat == 1 - seats.c.seat)
            )
            .where(seats.c.token_hash.in_(token_hashes))
        )
        async with self.engine.connect() as conn:
            rows = (await conn.execute(query)).all()
        found = []
        for r in rows:
            seat = int(r.seat)
            rematch = [bool(r.rematch), bool(r.other_rematch)]
            takeover = [r.takeover, r.other_takeover]
            if seat == 1:
                rematch.reverse()
                takeover.reverse()
            scores = None if r.score0 is None or r.score1 is None else (r.score0, r.score1)
            found.append(
                SeatListing(
                    r.token_hash,
                    r.id,
                    seat,
                    r.mode,
                    r.level,
                    bool(r.turns),
                    r.status,
                    (r.name0, r.name1),
                    r.match_no,
                    r.turn,
                    scores,
                    r.moved_at,
                    r.created_at,
                    (rematch[0], rematch[1]),
                    (takeover[0], takeover[1]),
                )
            )
        return found

    async def load_match(self, room_id: str, match_no: int) -> StoredMatch | None:
        if "\x00" in room_id:
            return None
        async with self.engine.connect() as conn:
            room = (await conn.execute(select(rooms).where(rooms.c.id == room_id))).first()
            if room is None or not 1 <= match_no <= room.match_no:
                return None
            if match_no < room.match_no:
                done = (
                    await conn.execute(
                        select(finished_matches.c.seed).where(
                            finished_matches.c.room_id == room_id,
                            finished_matches.c.match_no == match_no,
                        )
                    )
                ).first()
                if done is None:
                    return None
                seed, finished = str(done.seed), True
            else:
                seed, finished = str(room.seed), room.status == "finished"
            rows = (
                await conn.execute(
                    select(moves.c.seat, moves.c.move)
                    .where(moves.c.room_id == room_id, moves.c.match_no == match_no)
                    .order_by(moves.c.seq)
                )
            ).all()
        return StoredMatch(
            room_id,
            match_no,
            room.mode,
            room.level,
            (room.name0, room.name1),
            seed,
            tuple((int(r.seat), str(r.move)) for r in rows),
            finished,
        )

    async def add_replay_link(self, code: str, room_id: str, match_no: int) -> str:
        def job(conn: Connection) -> str:
            held = conn.execute(
                select(replay_links.c.code).where(
                    replay_links.c.room_id == room_id, replay_links.c.match_no == match_no
                )
            ).first()
            if held is not None:
                return str(held.code)
            conn.execute(
                insert(replay_links).values(
                    code=code, room_id=room_id, match_no=match_no, created_at=time.time()
                )
            )
            return code

        stored: str = await self._write(job)
        return stored

    async def find_replay_link(self, code: str) -> tuple[str, int] | None:
        async with self.engine.connect() as conn:
            row = (
                await conn.execute(
                    select(replay_links.c.room_id, replay_links.c.match_no).where(
                        replay_links.c.code == code
                    )
                )
            ).first()
        return (str(row.room_id), int(row.match_no)) if row is not None else None

    async def token_key(self) -> bytes:
        if self._key is None:
            async with self.engine.connect() as conn:
                value = (
                    await conn.execute(
                        select(server_secrets.c.value).where(server_secrets.c.name == "token_key")
                    )
                ).scalar_one()
            self._key = bytes.fromhex(value)
        return self._key

    # -- ownership (server/cluster.py) ---------------------------------------------------

    async def claim_room(
        self, room_id: str, node: str, now: float, *, force: bool = False
    ) -> int | None:
        held_elsewhere = exists().where(
            nodes.c.id == rooms.c.owner, nodes.c.id != node, nodes.c.lease_until >= now
        )

        def job(conn: Connection) -> int | None:
            claim = update(rooms).where(rooms.c.id == room_id)
            if not force:
                claim = claim.where(or_(rooms.c.owner.is_(None), ~held_elsewhere))
            if conn.execute(claim.values(owner=node, epoch=rooms.c.epoch + 1)).rowcount != 1:
                return None
            epoch: int = conn.execute(
                select(rooms.c.epoch).where(rooms.c.id == room_id)
            ).scalar_one()
            return epoch

        if "\x00" in room_id:
            return None
        result: int | None = await self._write(job)
        return result

    async def room_owner(self, room_id: str) -> Owner | None:
        if "\x00" in room_id:
            return None
        async with self.engine.connect() as conn:
            row = (
                await conn.execute(
                    select(rooms.c.owner, nodes.c.lease_until)
                    .select_from(rooms.outerjoin(nodes, nodes.c.id == rooms.c.owner))
                    .where(rooms.c.id == room_id)
                )
            ).first()
        if row is None:
            return None
        return Owner(row.owner, row.lease_until or 0.0)

    async def renew_node(self, node: str, lease_until: float, started_at: float) -> None:
        def job(conn: Connection) -> None:
            renewed = conn.execute(
                update(nodes).where(nodes.c.id == node).values(lease_until=lease_until)
            )
            if renewed.rowcount != 1:
                conn.execute(
                    insert(nodes).values(id=node, lease_until=lease_until, started_at=started_at)
                )

        await self._write(job)

    async def live_nodes(self, now: float) -> frozenset[str]:
        async with self.engine.connect() as conn:
            rows = (await conn.execute(select(nodes.c.id).where(nodes.c.lease_until >= now))).all()
        return frozenset(row.id for row in rows)

    async def release_room(self, room_id: str, node: str, epoch: int) -> None:
        def job(conn: Connection) -> None:
            conn.execute(
                update(rooms)
                .where(
                    rooms.c.id == room_id,
                    rooms.c.owner == node,
                    rooms.c.epoch == epoch,
                )
                .values(owner=None)
            )

        await self._write(job)

    async def release_node(self, node: str) -> None:
        def job(conn: Connection) -> None:
            conn.execute(update(rooms).where(rooms.c.owner == node).values(owner=None))
            conn.execute(delete(nodes).where(nodes.c.id == node))

        await self._write(job)

    # -- forgetting (server/purge.py) ----------------------------------------------------

    async def purge(
        self, rooms_before: float, codes_before: float, keep: frozenset[str], batch: int = 500
    ) -> tuple[int, int]:
        # every write of a room sets its updated_at (moves, joins, presence, rematches)
        def job(conn: Connection) -> tuple[int, int]:
            codes = conn.execute(
                delete(rejoin_codes).where(rejoin_codes.c.expires_at < codes_before)
            )
            conn.execute(delete(nodes).where(nodes.c.lease_until < codes_before))
            now = time.time()
            held = exists().where(nodes.c.id == rooms.c.owner, nodes.c.lease_until >= now)
            ids = [
                row.id
                for row in conn.execute(
                    # locked: a write racing the purge (another process) waits, then finds the
                    # room gone and is refused as stale, instead of landing beside the delete;
                    # a room some process holds now is kept
                    select(rooms.c.id)
                    .where(rooms.c.updated_at < rooms_before, ~held)
                    .order_by(rooms.c.updated_at)
                    .limit(batch + len(keep))
                    .with_for_update()
                ).all()
                if row.id not in keep
            ][:batch]
            if ids:
                for table in (seats, moves, finished_matches, rejoin_codes, replay_links):
                    conn.execute(delete(table).where(table.c.room_id.in_(ids)))
                conn.execute(delete(rooms).where(rooms.c.id.in_(ids)))
            return len(ids), max(0, int(codes.rowcount or 0))  # -1: no count (asyncpg)

        result: tuple[int, int] = await self._write(job)
        return result
