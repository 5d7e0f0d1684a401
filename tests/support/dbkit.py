"""The databases the server tests run on: a SQLite file, or a fresh PostgreSQL database
made for the test run on the server at ``TEST_POSTGRES_URL`` and dropped at its end.

Each backend hands out empty databases (``Backend.database``); each ``Database`` gives the
server its ``DATABASE_URL`` and lets a test read (``rows``) and write (``execute``) it with
plain SQL, ``?`` placeholders on both."""

from __future__ import annotations

import asyncio
import itertools
import os
import re
import secrets
import sqlite3
from collections.abc import Coroutine
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, TypeVar

import asyncpg
import pytest

# the server and its maintenance database; trust auth on the development and CI machines
POSTGRES = os.environ.get("TEST_POSTGRES_URL", "postgresql://postgres@127.0.0.1:5432/postgres")

T = TypeVar("T")

# a test about SQLite itself: ``@sqlite_only`` runs it on the ``sqlite`` backend alone
sqlite_only = pytest.mark.parametrize("backend", ["sqlite"], indirect=True)
# a test about PostgreSQL itself (its locks): ``@postgres_only``
postgres_only = pytest.mark.parametrize("backend", ["postgres"], indirect=True)


def run(coro: Coroutine[Any, Any, T]) -> T:
    """Runs ``coro`` on an event loop of its own, in a thread: callers may be sync code
    inside a running loop (an async test reading the database)."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coro).result()


class Database(Protocol):
    @property
    def url(self) -> str:
        """The SQLAlchemy async URL (the server's DATABASE_URL)."""
        ...

    def rows(self, sql: str, *args: Any) -> list[tuple[Any, ...]]: ...

    def execute(self, sql: str, *args: Any) -> None: ...


class Backend(Protocol):
    name: str  # "sqlite" | "postgres"

    def database(self, tmp: Path) -> Database:
        """A new, empty database (no tables: the server's migrations make them)."""
        ...

    def close(self) -> None: ...


@dataclass(frozen=True)
class SqliteDb:
    path: Path

    @property
    def url(self) -> str:
        return f"sqlite+aiosqlite:///{self.path}"

    def rows(self, sql: str, *args: Any) -> list[tuple[Any, ...]]:
        con = sqlite3.connect(self.path)
        try:
            return list(con.execute(sql, args))
        finally:
            con.close()

    def execute(self, sql: str, *args: Any) -> None:
        con = sqlite3.connect(self.path)
        try:
            con.execute(sql, args)
            con.commit()
        finally:
            con.close()


class SqliteBackend:
    name = "sqlite"

    def __init__(self) -> None:
        self._made = itertools.count()

    def database(self, tmp: Path) -> SqliteDb:
        return SqliteDb(tmp / f"casino-{next(self._made)}.db")

    def close(self) -> None:
        pass


def _numbered(sql: str) -> str:
    """``?`` placeholders as asyncpg's ``$1, $2, …``."""
    counter = itertools.count(1)
    return re.sub(r"\?", lambda _: f"${next(counter)}", sql)


async def _fetch(dsn: str, sql: str, args: tuple[Any, ...]) -> list[tuple[Any, ...]]:
    con = await asyncpg.connect(dsn, timeout=10)
    try:
        return [tuple(r) for r in await con.fetch(_numbered(sql), *args)]
    finally:
        await con.close()


@dataclass(frozen=True)
class PostgresDb:
    dsn: str  # postgresql://… for asyncpg

    @property
    def url(self) -> str:
        return self.dsn.replace("postgresql://", "postgresql+asyncpg://", 1)

    def rows(self, sql: str, *args: Any) -> list[tuple[Any, ...]]:
        return run(_fetch(self.dsn, sql, args))

    def execute(self, sql: str, *args: Any) -> None:
        run(_fetch(self.dsn, sql, args))


@dataclass
class PostgresBackend:
    """Databases ``casino_test_<pid>_<random>_<n>`` on the server at ``admin_dsn``."""

    admin_dsn: str = POSTGRES
    prefix: str = field(default_factory=lambda: f"casino_test_{os.getpid()}_{secrets.token_hex(3)}")
    made: list[str] = field(default_factory=list)
    name: str = "postgres"

    def check(self) -> None:
        """Raises with a clear message when the server does not answer; drops what runs
        of this machine that were killed left behind."""
        try:
            names = run(
                _fetch(
                    self.admin_dsn,
                    "select datname from pg_database where datname like 'casino\\_test\\_%'",
                    (),
                )
            )
        except (OSError, asyncpg.PostgresError) as exc:
            raise RuntimeError(
                f"PostgreSQL not reachable at {self.admin_dsn} ({exc}): start it "
                "(bash scripts/test.sh does), or set SKIP_POSTGRES=1 to skip those runs"
            ) from exc
        if "@127.0.0.1:" in self.admin_dsn or "@localhost:" in self.admin_dsn:
            for (name,) in names:
                pid = name.split("_")[2]
                if pid.isdigit() and not Path(f"/proc/{pid}").exists():
                    run(self._admin(f'drop database if exists "{name}" with (force)'))

    def database(self, tmp: Path) -> PostgresDb:
        name = f"{self.prefix}_{len(self.made)}"
        run(self._admin(f'create database "{name}"'))
        self.made.append(name)
        return PostgresDb(self.admin_dsn.rsplit("/", 1)[0] + "/" + name)

    def close(self) -> None:
        made, self.made = self.made, []
        failed = []
        for name in made:  # FORCE: a server killed with -9 may leave a session behind
            try:
                run(self._admin(f'drop database if exists "{name}" with (force)'))
            except (OSError, asyncpg.PostgresError) as exc:
                failed.append(f"{name}: {exc}")
        if failed:
            raise RuntimeError(f"test databases not dropped: {failed}")

    async def _admin(self, sql: str) -> None:
        con = await asyncpg.connect(self.admin_dsn, timeout=10)
        try:
            await con.execute(sql)
        finally:
            await con.close()
