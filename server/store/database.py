"""The database: its engines (SQLite through aiosqlite, PostgreSQL through asyncpg, by
``DATABASE_URL`` alone), one process per SQLite file, and THE writer.

All writes go through one writer task that commits whatever is waiting in one transaction
(group commit): one fsync for many moves, and no two connections fighting for SQLite's
write lock. Each caller still returns only after its own write committed. A job is a
function of a plain connection, run in the writer's transaction; it returns an exception
for a domain outcome (a stale copy, a code already used) instead of raising it, having
written nothing, so the outcome never shares the fate of the other writes of its batch.
Jobs of a batched kind (a room's ``RoomWrite``) are run together by their kind's function,
in one set of statements. On SQLite the batch runs in one thread on the plain driver; on
PostgreSQL on the async connection. Reads use the async engine's pool.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import logging
import os
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, create_engine, event
from sqlalchemy.engine import Engine, make_url
from sqlalchemy.exc import DBAPIError, InterfaceError, OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeout
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, create_async_engine

log = logging.getLogger("server.store")


class SecondProcess(RuntimeError):
    """Another server process already serves this SQLite file."""


def lost_connection(exc: BaseException) -> bool:
    """The connection to the database failed (not a statement of ours)."""
    if isinstance(exc, (InterfaceError, ConnectionError, TimeoutError, OSError, PoolTimeout)):
        return True
    return isinstance(exc, DBAPIError) and exc.connection_invalidated


def sqlite_busy(exc: BaseException) -> bool:
    """SQLite waited ``busy_timeout`` for the file's write lock, held by another connection
    (a starved thread of this process): the transaction was rolled back, nothing of it was
    written, and it may be tried again."""
    orig = getattr(exc, "orig", None)
    return isinstance(exc, OperationalError) and "database is locked" in str(orig or exc)


SQLITE_BUSY_TRIES = 4  # a batch waits for SQLite's write lock this many busy_timeouts


def storable(text: str) -> bool:
    """Text the database can compare: PostgreSQL refuses a NUL even in a WHERE clause, and
    no id, code or hash of ours holds one (a caller's id that does names nothing)."""
    return "\x00" not in text


# -- engines ------------------------------------------------------------------------------


def _sqlite_pragmas(synchronous: str, cache_kib: int = 0) -> Any:
    """Each SQLite connection's settings; ``cache_kib``: its page cache (0: SQLite's own,
    2 MiB). A page cache is per connection and fills as the file grows: SQLite's default
    over a pool of up to 15 connections was tens of MiB of a server's memory, where the
    operating system's page cache already holds the file."""

    def on_connect(dbapi_connection: Any, _record: Any) -> None:
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute(f"PRAGMA synchronous={synchronous}")
        if cache_kib > 0:
            cursor.execute(f"PRAGMA cache_size=-{int(cache_kib)}")
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


@dataclass(frozen=True, slots=True)
class Tuning:
    """How long PostgreSQL may make us wait, and how many connections a process keeps (the
    README says how to size them against ``max_connections``). A database that hangs fails
    fast: a statement, a lock or a transaction left idle past its limit is ended by the
    server, a connection that cannot be made or taken from the pool in time is an outage."""

    pool_size: int = 10  # the pool of reads, claims and the writer (the lease has its own)
    pool_timeout: float = 2.0  # seconds to wait for a free connection of the pool
    connect_timeout: float = 3.0
    statement_timeout: float = 5.0
    lock_timeout: float = 1.0  # a row lock held by a stopped process fails fast
    idle_in_transaction_timeout: float = 5.0  # a stopped process's transaction is ended
    sqlite_cache_kib: int = 0  # each SQLite connection's page cache (0: SQLite's 2 MiB)


def _ms(seconds: float) -> str:
    return str(int(seconds * 1000))


def _postgres_args(tuning: Tuning) -> dict[str, Any]:
    ms = _ms
    return {
        "timeout": tuning.connect_timeout,
        "command_timeout": tuning.statement_timeout + 1,
        "server_settings": {
            "statement_timeout": ms(tuning.statement_timeout),
            "lock_timeout": ms(tuning.lock_timeout),
            "idle_in_transaction_session_timeout": ms(tuning.idle_in_transaction_timeout),
        },
    }


def make_engine(
    url: str,
    sqlite_synchronous: str = "FULL",
    tuning: Tuning | None = None,
    *,
    pool: int = 0,
    autocommit: bool = False,
) -> AsyncEngine:
    """The async engine of ``url``; ``pool``: its size (0: ``tuning.pool_size``);
    ``autocommit``: each statement its own transaction, and no ping before each use (the
    lease's: the fewest round trips). No ``tuning``: SQLAlchemy's defaults and no time
    limits (the migrations' engine)."""
    url = async_url(url)
    extra: dict[str, Any] = {"isolation_level": "AUTOCOMMIT"} if autocommit else {}
    if url.startswith("sqlite"):
        engine = create_async_engine(url, **extra)
        cache = tuning.sqlite_cache_kib if tuning is not None else 0
        event.listen(engine.sync_engine, "connect", _sqlite_pragmas(sqlite_synchronous, cache))
        return engine
    if tuning is None:
        return create_async_engine(url, pool_pre_ping=True)
    return create_async_engine(
        url,
        pool_pre_ping=not autocommit,
        pool_size=pool or tuning.pool_size,
        **extra,
        max_overflow=0,
        pool_timeout=tuning.pool_timeout,
        connect_args=_postgres_args(tuning),
    )


def _sync_sqlite_engine(url: str, synchronous: str, cache_kib: int = 0) -> Engine:
    """The writer's own engine on SQLite: the plain driver in one thread, so a whole
    commit batch costs one hop off the event loop (not one per statement)."""
    engine = create_engine(
        make_url(url).set(drivername="sqlite"), connect_args={"check_same_thread": False}
    )
    event.listen(engine, "connect", _sqlite_pragmas(synchronous, cache_kib))
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


# -- the writer -------------------------------------------------------------------------

# one write, as a function of a plain connection (run in the writer's transaction)
Job = Callable[[Connection], Any]
# the function that runs every job of a batched kind in one batch, results in order
BatchRunner = Callable[[Connection, list[Any]], list[Any]]
MAX_BATCH = 512
Pending = tuple[Any, "asyncio.Future[Any]"]
SIZE_BUCKETS = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512)
SECONDS_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)


@dataclass
class BatchStats:
    """The writer's committed batches: how many jobs each, how long each took (counts by
    bucket, cumulative as Prometheus histograms are; read by /metrics)."""

    sizes: list[int] = field(default_factory=lambda: [0] * len(SIZE_BUCKETS))
    seconds: list[int] = field(default_factory=lambda: [0] * len(SECONDS_BUCKETS))
    count: int = 0
    jobs: int = 0
    total_seconds: float = 0.0

    def record(self, size: int, seconds: float) -> None:
        self.count += 1
        self.jobs += size
        self.total_seconds += seconds
        for i, bound in enumerate(SIZE_BUCKETS):
            if size <= bound:
                self.sizes[i] += 1
        for i, limit in enumerate(SECONDS_BUCKETS):
            if seconds <= limit:
                self.seconds[i] += 1


class Database:
    """The engines and the one writer (see the module's docstring)."""

    def __init__(
        self, url: str, sqlite_synchronous: str = "FULL", tuning: Tuning | None = None
    ) -> None:
        tuning = tuning or Tuning()
        self.engine = make_engine(url, sqlite_synchronous, tuning)
        # the lease's own connections (renewals, claims, releases): never behind the pool's
        # queue or the writer's
        self.lease_engine = make_engine(url, sqlite_synchronous, tuning, pool=2, autocommit=True)
        self._made_with = (url, sqlite_synchronous, tuning)
        self._sync: Engine | None = None
        self._thread: ThreadPoolExecutor | None = None
        self._sync_conn: Connection | None = None
        if self.engine.dialect.name == "sqlite":
            self._sync = _sync_sqlite_engine(url, sqlite_synchronous, tuning.sqlite_cache_kib)
            self._thread = ThreadPoolExecutor(1, thread_name_prefix="sqlite-writer")
        self._batched: dict[type[Any], BatchRunner] = {}
        self.batches = BatchStats()  # what /metrics tells of the writer
        self._pending: list[Pending] = []
        self._wake = asyncio.Event()
        self._writer: asyncio.Task[None] | None = None
        self._conn: AsyncConnection | None = None
        self._closing = False

    @property
    def dialect(self) -> str:
        return self.engine.dialect.name

    def batch(self, kind: type[Any], runner: BatchRunner) -> None:
        """Jobs that are instances of ``kind`` are run together by ``runner``."""
        self._batched[kind] = runner

    def another_lease_engine(self) -> AsyncEngine:
        """One connection of its own for the lease's renewals, used on another event loop
        (the lease's thread, server/cluster/lease.py): disposed by its user."""
        url, synchronous, tuning = self._made_with
        return make_engine(url, synchronous, tuning, pool=1, autocommit=True)

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
        await self.lease_engine.dispose()

    async def write(self, job: Any) -> Any:
        """Commits ``job`` (a ``Job``, or an instance of a batched kind); returns its result,
        or raises the exception it returned (nothing of it was written)."""
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
        started = time.perf_counter()
        try:
            for tries in range(1, SQLITE_BUSY_TRIES + 1):
                try:
                    results = await self._run(jobs)
                    break
                except Exception as exc:
                    # slow is not dead (issue 31): a batch that found the write lock held
                    # past busy_timeout was rolled back whole; it waits again rather than
                    # stopping its rooms (each of its families would be told to reconnect)
                    if tries == SQLITE_BUSY_TRIES or not sqlite_busy(exc):
                        raise
                    log.warning("the writer waited for SQLite's write lock: trying again")
            self.batches.record(len(jobs), time.perf_counter() - started)
        except Exception as exc:
            await self._drop_writer_connection()
            if len(batch) == 1 or lost_connection(exc):
                # the database is away (or this was one job): whether the batch committed
                # only the database knows, and trying each again would wait once per job
                for _, future in batch:
                    if not future.done():
                        future.set_exception(exc)
                return
            # one job failed (not a domain outcome): commit each alone, so only the one at
            # fault fails
            for item in batch:
                await self._commit_batch([item])
            return
        for (_, future), result in zip(batch, results, strict=True):
            if not future.done():
                future.set_result(result)

    def _run_jobs(self, conn: Connection, jobs: list[Any]) -> list[Any]:
        """Runs a batch's jobs in ``conn``'s transaction: each batched kind together (the
        hot path: a room's writes), then the others one by one, in order."""
        results: list[Any] = [None] * len(jobs)
        done: set[int] = set()
        for kind, runner in self._batched.items():
            indexes = [i for i, job in enumerate(jobs) if isinstance(job, kind)]
            if indexes:
                for i, result in zip(
                    indexes, runner(conn, [jobs[i] for i in indexes]), strict=True
                ):
                    results[i] = result
                done.update(indexes)
        for i, job in enumerate(jobs):
            if i not in done:
                results[i] = job(conn)
        return results

    async def _run(self, jobs: list[Any]) -> list[Any]:
        def run(conn: Connection) -> list[Any]:
            with conn.begin():
                return self._run_jobs(conn, jobs)

        if self._thread is not None:
            return await asyncio.get_running_loop().run_in_executor(
                self._thread, lambda: run(self._sync_connection())
            )
        if self._conn is None:
            self._conn = await self.engine.connect()
        conn = self._conn
        async with conn.begin():
            return list(await conn.run_sync(self._run_jobs, jobs))

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
