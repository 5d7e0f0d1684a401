"""Server settings, read from the environment once (``Settings.from_env``)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent


N = TypeVar("N", int, float)


def _number(env: dict[str, str], name: str, default: N) -> N:
    """``env[name]`` read as the default's type (int or float); unset or empty: the default."""
    raw = env.get(name)
    return type(default)(raw) if raw else default


def _choice(env: dict[str, str], name: str, allowed: tuple[str, ...], default: str) -> str:
    """``env[name]``, one of ``allowed`` (any case); unset or empty: the default."""
    raw = env.get(name, "").strip().lower() or default
    if raw not in allowed:
        raise ValueError(f"{name} must be one of {', '.join(allowed)}, not {raw!r}")
    return raw


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
    # por turnos: a friend who left may be replaced by the computer only after this long,
    # unless the other player asks for it in so many words (then grace_seconds applies)
    turns_grace_seconds: float = 86400.0
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
    # each SQLite connection's page cache in KiB (SQLite's own is 2048 a connection, over up
    # to 17 connections; the operating system caches the file anyway): SQLITE_CACHE_KIB
    sqlite_cache_kib: int = 512
    # glibc malloc arenas at most (server/__main__.py cap_malloc_arenas; 0: glibc's own)
    malloc_arenas: int = 2
    # seconds between glibc's malloc_trim (server/web/trim.py: what a busy stretch made malloc
    # hold is given back); 0: never
    malloc_trim_seconds: float = 60.0
    client_dir: Path = ROOT / "client"
    # the client's modules are served without their comments and spare spaces (about 40% of
    # what a phone downloads, server/web/lean.py); CLIENT_JS=source serves them as written
    client_js_source: bool = False
    log_level: str = "INFO"
    # views are small and come at people's pace: compressing them costs more CPU than the
    # bytes it saves (WS_DEFLATE=1 turns it on)
    ws_deflate: bool = False
    # the access log would record /r/<rejoin code> paths: off unless asked for (ACCESS_LOG=1)
    access_log: bool = False
    # -- in front of everything (server/edge/connections.py, server/edge/security.py) --
    # proxies whose X-Forwarded-For / X-Forwarded-Proto are believed: none unless listed
    forwarded_allow_ips: str = ""
    allowed_hosts: frozenset[str] = field(default_factory=frozenset)  # besides the defaults
    public_origin: str = ""  # e.g. https://casino.example: links and QR codes use it
    max_connections: int = 10_000  # open sockets in all (lowered to fit the file limit)
    max_connections_per_address: int = 64  # per IPv4 address or IPv6 /64; 0: no cap
    request_timeout: float = 10.0  # seconds a request (head and body) may take to arrive
    keep_alive_timeout: int = 5  # seconds an idle keep-alive connection stays open
    max_header_bytes: int = 16_384  # request line plus headers
    max_headers: int = 100
    rate_qr_per_min: int = 30
    rate_games_per_min: int = 30  # Mis partidas lists (POST /api/my-games)
    rate_replays_per_min: int = 60  # replays read and replay links made
    code_failures_per_min: int = 60  # wrong short codes, whole server (invites, rejoin each)
    invite_misses_per_min: int = 10  # wrong invites of one address (IPv6: its /64)
    # the first part of this deployment's keys in Redis (server/edge/shared_limits.py): two
    # deployments on one Redis (staging and production, test runs) need different ones
    redis_prefix: str = "casino"
    # -- forgetting (server/store/purge.py) --
    purge_interval: float = 3600.0  # seconds between purges; 0: never purge
    purge_rooms_after: float = 30 * 86400.0  # a room untouched this long is deleted
    purge_codes_after: float = 86400.0  # a rejoin code is deleted this long after it expired
    # computer decisions run in this many worker processes (at most one per core; 0 or
    # unset: one per core); ai_queue more decisions may be handed to them ahead (0: the
    # rest wait in the pool, one queue per room, taking turns: server/ai/pool.py)
    ai_workers: int = 0
    ai_queue: int = 0
    # -- several processes (server/cluster/, server/cluster/redis_hub.py) --
    # unset: one process, every room is this process's own; set: processes on one
    # PostgreSQL database share the rooms, and their frames and room commands travel over it
    redis_url: str | None = None
    # a process holds its rooms while it renews its lease in the database this often
    # (a third of it); another process claims them when it has lapsed
    lease_seconds: float = 5.0
    # a room command sent to another process is given up after this long (0: the lease)
    call_timeout: float = 0.0
    node_name: str = ""  # this process's name in logs and leases (default: the host's name)
    # /metrics answers loopback and these addresses or networks (comma-separated) alone
    metrics_allow_ips: str = ""
    # /metrics also tells the bytes the live rooms hold by part (server/rooms/memory.py:
    # a walk of every room at each scrape; the soak benchmark's, not production's)
    metrics_room_parts: bool = False
    max_watchers: int = 30  # watchers per room (server/rooms/); more are told it is full
    # -- PostgreSQL that hangs fails fast (server/store/database.py Tuning; README) --
    db_pool_size: int = 10  # connections per process (the lease keeps 2 more of its own)
    db_pool_timeout: float = 2.0  # seconds to wait for one of them: then an outage
    db_connect_timeout: float = 3.0
    db_statement_timeout: float = 5.0
    db_lock_timeout: float = 1.0
    db_idle_in_transaction_timeout: float = 5.0
    # -- Web Push (server/push/): "te toca" with the app closed --
    push_every: float = 300.0  # at most one push per seat this often (PUSH_EVERY)
    push_timeout: float = 10.0  # seconds one push may take (the push service's answer)
    # the VAPID key pair (RFC 8292): the private key, base64url of its 32 bytes; unset, the
    # server makes one once and keeps it in the database (server_secrets)
    vapid_private_key: str = ""
    # the VAPID contact a push service may write to: mailto:… or https://… (default: the
    # https PUBLIC_ORIGIN, else mailto:casino@localhost, which Apple's service refuses)
    vapid_subject: str = ""
    # push services the server may post to: host names (and their subdomains, ".x.com"), over
    # https; or whole origins (http://127.0.0.1:5000: the tests' stand-in). Empty: the
    # browsers' own (PUSH_SERVICES_DEFAULT)
    push_services: tuple[str, ...] = ()

    @classmethod
    def from_env(cls, env: dict[str, str] | None = None) -> Settings:
        e = dict(os.environ if env is None else env)
        origins = frozenset(
            o.strip().rstrip("/") for o in e.get("ALLOWED_ORIGINS", "").split(",") if o.strip()
        )
        public = e.get("PUBLIC_ORIGIN", "").strip().rstrip("/")
        parts = urlsplit(public)
        if public and (
            parts.scheme not in ("http", "https")
            or not parts.hostname
            or parts.path
            or parts.query
            or parts.fragment
        ):
            raise ValueError(f"PUBLIC_ORIGIN must look like https://casino.example, not {public!r}")
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
            turns_grace_seconds=_number(e, "TURNS_GRACE_SECONDS", cls.turns_grace_seconds),
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
            sqlite_cache_kib=_number(e, "SQLITE_CACHE_KIB", cls.sqlite_cache_kib),
            malloc_arenas=_number(e, "MALLOC_ARENAS", cls.malloc_arenas),
            malloc_trim_seconds=_number(e, "MALLOC_TRIM_SECONDS", cls.malloc_trim_seconds),
            client_dir=Path(e["CLIENT_DIR"]) if "CLIENT_DIR" in e else cls.client_dir,
            client_js_source=_choice(e, "CLIENT_JS", ("lean", "source"), "lean") == "source",
            log_level=e.get("LOG_LEVEL", cls.log_level).upper(),
            ws_deflate=e.get("WS_DEFLATE", "") == "1",
            access_log=e.get("ACCESS_LOG", "") == "1",
            forwarded_allow_ips=e.get("FORWARDED_ALLOW_IPS", "").strip(),
            allowed_hosts=frozenset(
                h.strip().lower() for h in e.get("ALLOWED_HOSTS", "").split(",") if h.strip()
            ),
            public_origin=public,
            max_connections=_number(e, "MAX_CONNECTIONS", cls.max_connections),
            max_connections_per_address=_number(
                e, "MAX_CONNECTIONS_PER_ADDRESS", cls.max_connections_per_address
            ),
            request_timeout=_number(e, "REQUEST_TIMEOUT", cls.request_timeout),
            keep_alive_timeout=_number(e, "KEEP_ALIVE_TIMEOUT", cls.keep_alive_timeout),
            max_header_bytes=_number(e, "MAX_HEADER_BYTES", cls.max_header_bytes),
            max_headers=_number(e, "MAX_HEADERS", cls.max_headers),
            rate_qr_per_min=_number(e, "RATE_QR_PER_MIN", cls.rate_qr_per_min),
            rate_games_per_min=_number(e, "RATE_GAMES_PER_MIN", cls.rate_games_per_min),
            rate_replays_per_min=_number(e, "RATE_REPLAYS_PER_MIN", cls.rate_replays_per_min),
            code_failures_per_min=_number(e, "CODE_FAILURES_PER_MIN", cls.code_failures_per_min),
            invite_misses_per_min=_number(e, "INVITE_MISSES_PER_MIN", cls.invite_misses_per_min),
            redis_prefix=e.get("REDIS_PREFIX", "").strip() or cls.redis_prefix,
            purge_interval=_number(e, "PURGE_INTERVAL", cls.purge_interval),
            purge_rooms_after=_number(e, "PURGE_ROOMS_AFTER", cls.purge_rooms_after),
            purge_codes_after=_number(e, "PURGE_CODES_AFTER", cls.purge_codes_after),
            ai_workers=_number(e, "AI_WORKERS", cls.ai_workers),
            ai_queue=_number(e, "AI_QUEUE", cls.ai_queue),
            redis_url=e.get("REDIS_URL", "").strip() or None,
            lease_seconds=_number(e, "LEASE_SECONDS", cls.lease_seconds),
            call_timeout=_number(e, "CALL_TIMEOUT", cls.call_timeout),
            node_name=e.get("NODE_NAME", "").strip(),
            max_watchers=_number(e, "MAX_WATCHERS", cls.max_watchers),
            metrics_allow_ips=e.get("METRICS_ALLOW_IPS", "").strip(),
            metrics_room_parts=e.get("METRICS_ROOM_PARTS", "") == "1",
            db_pool_size=_number(e, "DB_POOL_SIZE", cls.db_pool_size),
            db_pool_timeout=_number(e, "DB_POOL_TIMEOUT", cls.db_pool_timeout),
            db_connect_timeout=_number(e, "DB_CONNECT_TIMEOUT", cls.db_connect_timeout),
            db_statement_timeout=_number(e, "DB_STATEMENT_TIMEOUT", cls.db_statement_timeout),
            db_lock_timeout=_number(e, "DB_LOCK_TIMEOUT", cls.db_lock_timeout),
            db_idle_in_transaction_timeout=_number(
                e, "DB_IDLE_IN_TRANSACTION_TIMEOUT", cls.db_idle_in_transaction_timeout
            ),
            push_every=_number(e, "PUSH_EVERY", cls.push_every),
            push_timeout=_number(e, "PUSH_TIMEOUT", cls.push_timeout),
            vapid_private_key=e.get("VAPID_PRIVATE_KEY", "").strip(),
            vapid_subject=e.get("VAPID_SUBJECT", "").strip(),
            push_services=tuple(
                s.strip().lower().rstrip("/")
                for s in e.get("PUSH_SERVICES", "").split(",")
                if s.strip()
            ),
        )
