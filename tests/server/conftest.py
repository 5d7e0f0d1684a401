"""Fixtures: real servers (``python -m server`` subprocesses) on free ports."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from srvkit import ServerProc

INDEX_HTML = "<!doctype html><title>prueba</title><p>cliente de prueba</p>"


def _client_dir(tmp: Path) -> Path:
    client = tmp / "client"
    client.mkdir()
    (client / "index.html").write_text(INDEX_HTML)
    (client / "app.js").write_text("console.log('hola');")
    return client


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProc]:
    """A permissive server: generous rate limits, a 0.2 s grace time, rooms that leave
    memory 0.2 s after the last socket closed (so many tests also reload rooms)."""
    tmp = tmp_path_factory.mktemp("srv")
    proc = ServerProc(tmp, {
        "GRACE_SECONDS": "0.2", "ROOM_IDLE": "0.2", "WS_RATE": "5000", "WS_BURST": "5000",
        "RATE_ROOMS_PER_MIN": "10000", "RATE_JOIN_PER_MIN": "10000",
        "CLIENT_DIR": str(_client_dir(tmp)), "ALLOWED_ORIGINS": "https://casino.example",
    }).start()
    yield proc
    proc.stop()


@pytest.fixture(scope="session")
def strict_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProc]:
    """Default websocket rate limits, rejoin codes that expire at once, a long grace time,
    a small HTTP join limit, 0.3 s to say hello."""
    tmp = tmp_path_factory.mktemp("strict")
    proc = ServerProc(tmp, {
        "GRACE_SECONDS": "600", "REJOIN_TTL": "0", "RATE_JOIN_PER_MIN": "12",
        "HELLO_TIMEOUT": "0.3",
        "RATE_ROOMS_PER_MIN": "10000",
    }).start()
    yield proc
    proc.stop()


@pytest.fixture
def make_server(tmp_path: Path) -> Iterator[Callable[..., ServerProc]]:
    """Servers of one test, stopped at its end (for restart and kill -9 tests)."""
    made: list[ServerProc] = []

    def make(**env: str) -> ServerProc:
        env.setdefault("WS_RATE", "5000")
        env.setdefault("WS_BURST", "5000")
        env.setdefault("RATE_ROOMS_PER_MIN", "10000")
        env.setdefault("RATE_JOIN_PER_MIN", "10000")
        proc = ServerProc(tmp_path, env)
        made.append(proc)
        return proc

    yield make
    for proc in made:
        proc.stop()
