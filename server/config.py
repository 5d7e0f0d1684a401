"""Server settings, read from the environment once (``Settings.from_env``)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

ROOT = Path(__file__).resolve().parent.parent


N = TypeVar("N", int, float)


def _number(env: dict[str, str], name: str, default: N) -> N:
    """``env[name]`` read as the default's type (int or float); unset or empty: the default."""
    raw = env.get(name)
    return type(default)(raw) if raw else default


@dataclass(frozen=True)
class Settings:
    database_url: str = "sqlite+aiosqlite:///./casino.db"
    host: str = "0.0.0.0"
    port: int = 8000
    computer_delay: float = 0.8  # seconds the computer "thinks" before it plays
    grace_seconds: float = 60.0  # a friend who left may come back this long before takeover
    # a friend who stays connected but does not play their turn for this long is offered
    # to the other player as if they had left
    stall_seconds: float = 240.0
    allowed_origins: frozenset[str] = field(default_factory=frozenset)
    rejoin_ttl: int = 600  # seconds a rejoin code stays valid
    room_idle: float = 900.0  # a room nobody listens to leaves memory after this long
    ws_rate: float = 10.0  # messages per second per connection
    ws_burst: int = 20
    ws_flood_close: int = 20  # rate-limited messages before the socket is closed
    hello_timeout: float = 15.0  # seconds a new socket has to say hello
    ws_queue: int = 256  # unsent messages per connection before it is dropped as too slow
    rate_rooms_per_min: int = 30
    rate_join_per_min: int = 30
    # SQLite: WAL journal plus synchronous=FULL by default, so a move a player was told
    # about survives a crash *and* a power cut; NORMAL survives a process crash only.
    sqlite_synchronous: str = "FULL"
    client_dir: Path = ROOT / "client"
    log_level: str = "INFO"
    # views are small and come at people's pace: compressing them costs more CPU than the
    # bytes it saves (WS_DEFLATE=1 turns it on)
    ws_deflate: bool = False
    # the access log would record /r/<rejoin code> paths: off unless asked for (ACCESS_LOG=1)
    access_log: bool = False
    # computer decisions run in this many worker processes (at most one per core; 0 or
    # unset: one per core), with at most ai_queue more requests waiting inside the pool
    ai_workers: int = 0
    ai_queue: int = 32

    @classmethod
    def from_env(cls, env: dict[str, str] | None = None) -> Settings:
        e = dict(os.environ if env is None else env)
        origins = frozenset(
            o.strip().rstrip("/") for o in e.get("ALLOWED_ORIGINS", "").split(",") if o.strip()
        )
        sync = e.get("SQLITE_SYNCHRONOUS", "FULL").upper()
        if sync not in ("FULL", "NORMAL", "EXTRA"):
            raise ValueError(f"SQLITE_SYNCHRONOUS must be FULL, NORMAL or EXTRA, not {sync!r}")
        return cls(
            database_url=e.get("DATABASE_URL", cls.database_url),
            host=e.get("HOST", cls.host),
            port=_number(e, "PORT", cls.port),
            computer_delay=_number(e, "COMPUTER_DELAY", cls.computer_delay),
            grace_seconds=_number(e, "GRACE_SECONDS", cls.grace_seconds),
            stall_seconds=_number(e, "STALL_SECONDS", cls.stall_seconds),
            allowed_origins=origins,
            rejoin_ttl=_number(e, "REJOIN_TTL", cls.rejoin_ttl),
            room_idle=_number(e, "ROOM_IDLE", cls.room_idle),
            ws_rate=_number(e, "WS_RATE", cls.ws_rate),
            ws_burst=_number(e, "WS_BURST", cls.ws_burst),
            ws_flood_close=_number(e, "WS_FLOOD_CLOSE", cls.ws_flood_close),
            ws_queue=_number(e, "WS_QUEUE", cls.ws_queue),
            hello_timeout=_number(e, "HELLO_TIMEOUT", cls.hello_timeout),
            rate_rooms_per_min=_number(e, "RATE_ROOMS_PER_MIN", cls.rate_rooms_per_min),
            rate_join_per_min=_number(e, "RATE_JOIN_PER_MIN", cls.rate_join_per_min),
            sqlite_synchronous=sync,
            client_dir=Path(e["CLIENT_DIR"]) if "CLIENT_DIR" in e else cls.client_dir,
            log_level=e.get("LOG_LEVEL", cls.log_level).upper(),
            ws_deflate=e.get("WS_DEFLATE", "") == "1",
            access_log=e.get("ACCESS_LOG", "") == "1",
            ai_workers=_number(e, "AI_WORKERS", cls.ai_workers),
            ai_queue=_number(e, "AI_QUEUE", cls.ai_queue),
        )
