"""Fixtures: real servers (``python -m server`` subprocesses) on free ports, each on a
fresh database of the ``backend``: every test that uses one runs on SQLite and on
PostgreSQL (ids ``sqlite`` / ``postgres``).

``SKIP_POSTGRES`` / ``SKIP_REDIS`` (set by scripts/test.sh when the service is missing and
cannot be installed; the text is the reason) skip those runs, except in CI (``CI=true``),
where a missing service fails them."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path

import pytest

from tests.support.clusterkit import Cluster
from tests.support.dbkit import Backend, Database, PostgresBackend, SqliteBackend
from tests.support.services import client_dir, skip_unless_there
from tests.support.srvkit import ServerProc, close_left_open


@pytest.fixture(autouse=True)
async def no_socket_left_open() -> AsyncIterator[None]:
    """Every websocket a test opened is closed when it ends (tests/support/srvkit.py)."""
    yield
    await close_left_open()


@pytest.fixture(scope="session", params=["sqlite", "postgres"])
def backend(request: pytest.FixtureRequest) -> Iterator[Backend]:
    made: Backend
    if request.param == "sqlite":
        made = SqliteBackend()
    else:
        skip_unless_there("postgres")
        pg = PostgresBackend()
        pg.check()
        made = pg
    yield made
    made.close()


@pytest.fixture
def db(backend: Backend, tmp_path: Path) -> Database:
    """A fresh, empty database of the test's own."""
    return backend.database(tmp_path)


@pytest.fixture(scope="session")
def redis_url() -> str:
    skip_unless_there("redis")
    return os.environ.get("TEST_REDIS_URL", "redis://127.0.0.1:6379/0")


@pytest.fixture(scope="session")
def server(backend: Backend, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProc]:
    """A permissive server: generous rate limits, a 0.2 s grace time, rooms that leave
    memory 0.2 s after the last socket closed (so many tests also reload rooms)."""
    tmp = tmp_path_factory.mktemp(f"srv-{backend.name}")
    proc = ServerProc(
        tmp,
        {
            "GRACE_SECONDS": "0.2",
            "ROOM_IDLE": "0.2",
            "WS_RATE": "5000",
            "WS_BURST": "5000",
            "RATE_ROOMS_PER_MIN": "10000",
            "RATE_JOIN_PER_MIN": "10000",
            "CLIENT_DIR": str(client_dir(tmp)),
            "ALLOWED_ORIGINS": "https://casino.example",
        },
        backend.database(tmp),
    ).start()
    yield proc
    proc.stop()


@pytest.fixture(scope="session")
def strict_server(
    backend: Backend, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[ServerProc]:
    """Default websocket rate limits, rejoin codes that expire at once, a long grace time,
    a small HTTP join limit, 0.3 s to say hello."""
    tmp = tmp_path_factory.mktemp(f"strict-{backend.name}")
    proc = ServerProc(
        tmp,
        {
            "GRACE_SECONDS": "600",
            "REJOIN_TTL": "0",
            "RATE_JOIN_PER_MIN": "12",
            "HELLO_TIMEOUT": "0.3",
            "RATE_ROOMS_PER_MIN": "10000",
        },
        backend.database(tmp),
    ).start()
    yield proc
    proc.stop()


@pytest.fixture
def make_server(tmp_path: Path, db: Database) -> Iterator[Callable[..., ServerProc]]:
    """Servers of one test on the test's own database, stopped at its end (for restart and
    kill -9 tests)."""
    made: list[ServerProc] = []

    def make(**env: str) -> ServerProc:
        env.setdefault("WS_RATE", "5000")
        env.setdefault("WS_BURST", "5000")
        env.setdefault("RATE_ROOMS_PER_MIN", "10000")
        env.setdefault("RATE_JOIN_PER_MIN", "10000")
        proc = ServerProc(tmp_path, env, db)
        made.append(proc)
        return proc

    yield make
    for proc in made:
        proc.stop()


@pytest.fixture(scope="session")
def pg() -> Iterator[PostgresBackend]:
    """PostgreSQL alone, for the tests of several processes on one database."""
    skip_unless_there("postgres")
    made = PostgresBackend()
    made.check()
    yield made
    made.close()


@pytest.fixture
def make_cluster(
    pg: PostgresBackend, redis_url: str, tmp_path: Path
) -> Iterator[Callable[..., Cluster]]:
    """``make_cluster(n, **env)``: n server processes on a fresh PostgreSQL database of the
    test's own and the shared Redis, stopped at the test's end."""
    made: list[Cluster] = []

    def make(
        n: int,
        *,
        redis_url: str = redis_url,
        only: dict[int, dict[str, str]] | None = None,
        **env: str,
    ) -> Cluster:
        """``redis_url``: another Redis (a private one); ``only``: settings for some of
        the processes, by index (a proxy's address, a skewed clock)."""
        cluster = Cluster(tmp_path, pg.database(tmp_path), redis_url, env)
        made.append(cluster)
        return cluster.start(n, only)

    yield make
    for cluster in made:
        cluster.stop()
