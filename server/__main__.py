"""``python -m server``: applies the migrations and serves the game with uvicorn
(HOST/PORT from the environment, default 0.0.0.0:8000; see server/config.py)."""

from __future__ import annotations

import asyncio
import gc
import logging
import socket
import sys

import uvicorn
from starlette.applications import Starlette

from .config import Settings
from .edge.connections import (
    FD_HEADROOM,
    ConnectionGate,
    TrustedProxies,
    guarded_protocols,
    raise_file_limit,
)
from .store import SecondProcess, lock_sqlite_file
from .web.app import create_app
from .web.trim import glibc_function

DRAIN_SECONDS = 10.0  # a clean stop's own part, at most
WS_MAX_SIZE = 4096  # bytes per incoming websocket frame; bigger ones close the socket (1009)
M_ARENA_MAX = -8  # glibc's mallopt parameter (malloc.h)


def cap_malloc_arenas(count: int) -> bool:
    """At most ``count`` glibc malloc arenas (MALLOC_ARENAS; 0: glibc's own, eight a core).
    Each thread that meets another in malloc gets an arena of its own (the SQLite writer's,
    aiosqlite's one thread a connection, the computer's pool), and memory freed in one is
    never used by another: the soak measured 12 KiB a room less with two
    (benchmarks/README.md). True when the cap was set (glibc only)."""
    mallopt = glibc_function("mallopt") if count > 0 else None
    return bool(mallopt(M_ARENA_MAX, count)) if mallopt is not None else False


def main() -> None:
    settings = Settings.from_env()
    logging.basicConfig(
        level=settings.log_level, format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    # Fewer collections of young objects: each view and message makes many short-lived
    # dicts, and every full pass walks all live rooms' and sockets' objects.
    gc.set_threshold(10_000, 20, 20)
    cap_malloc_arenas(settings.malloc_arenas)  # before any thread starts
    try:
        lock_sqlite_file(settings.database_url)
    except SecondProcess as exc:
        print(exc, file=sys.stderr)
        sys.exit(1)
    app = create_app(settings)
    files = raise_file_limit()
    gate = ConnectionGate(
        min(settings.max_connections, max(16, files - FD_HEADROOM)),
        settings.max_connections_per_address,
        TrustedProxies(settings.forwarded_allow_ips),
    )
    http, ws = guarded_protocols(gate, settings.request_timeout)
    logging.getLogger("server").info(
        "open files allowed: %d; connections allowed: %d", files, gate.total
    )
    config = uvicorn.Config(
        app,
        host=settings.host,
        port=settings.port,
        # h11, not httptools: its parser gives up on a head over MAX_HEADER_BYTES (400)
        http=http,
        ws=ws,
        h11_max_incomplete_event_size=settings.max_header_bytes,
        timeout_keep_alive=settings.keep_alive_timeout,
        # X-Forwarded-For only from the proxies named in FORWARDED_ALLOW_IPS (uvicorn's own
        # default trusts 127.0.0.1, i.e. anyone on this machine or a local proxy's clients)
        proxy_headers=bool(settings.forwarded_allow_ips),
        forwarded_allow_ips=settings.forwarded_allow_ips or None,
        server_header=False,
        ws_max_size=WS_MAX_SIZE,
        ws_per_message_deflate=settings.ws_deflate,
        access_log=settings.access_log,
        log_level=settings.log_level.lower(),
        lifespan="on",
    )
    DrainingServer(config, app).run()


class DrainingServer(uvicorn.Server):
    """uvicorn, stopping cleanly: it stops accepting, then the app drains (its rooms are
    released and every socket is told to reconnect, once) before uvicorn closes what is
    left."""

    def __init__(self, config: uvicorn.Config, app: Starlette) -> None:
        super().__init__(config)
        self.app = app

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        for server in self.servers:
            server.close()
        drain = getattr(self.app.state, "drain", None)
        if drain is not None:
            try:
                await asyncio.wait_for(drain(), DRAIN_SECONDS)
            except Exception:
                logging.getLogger("server").exception("the clean stop did not finish")
        await super().shutdown(sockets)


if __name__ == "__main__":
    main()
