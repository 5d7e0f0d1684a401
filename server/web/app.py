"""The app: ``create_app(settings)``, and its lifespan, the composition root: the one place
that makes the storage, the hub, the computer players, the rooms, the lease and the use
cases, and decides which gets which (``Services``)."""

from __future__ import annotations

import asyncio
import contextlib
import gc
from collections.abc import AsyncIterator

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware

from ..ai.pool import AiPool, cores
from ..cluster import DbClock, Hub, Lease, LocalHub, RedisHub, new_node_id
from ..config import Settings
from ..edge.security import SecurityMiddleware
from ..edge.shared_limits import RedisLink, address_budget, failure_budget, rate_limit
from ..lobby.games import Games
from ..lobby.lobby import Lobby
from ..lobby.push import Pushes
from ..push import Notifier, Sender
from ..push.keys import VapidKey
from ..rooms import RoomRegistry, RoomsOnCluster, Router, reconnect
from ..store import Storage, Tuning, lock_sqlite_file
from ..store.migrate import upgrade
from ..store.purge import run_purges
from .pages import http_error
from .qr import QrMaker
from .routes import routes
from .services import Limits, Services
from .static import add_compression
from .trim import run_trims


def tuning(settings: Settings) -> Tuning:
    return Tuning(
        pool_size=settings.db_pool_size,
        pool_timeout=settings.db_pool_timeout,
        connect_timeout=settings.db_connect_timeout,
        statement_timeout=settings.db_statement_timeout,
        lock_timeout=settings.db_lock_timeout,
        idle_in_transaction_timeout=settings.db_idle_in_transaction_timeout,
        sqlite_cache_kib=settings.sqlite_cache_kib,
    )


def vapid_subject(settings: Settings) -> str:
    """Who a push service may write to about our pushes (RFC 8292's ``sub``)."""
    if settings.vapid_subject:
        return settings.vapid_subject
    if settings.public_origin.startswith("https://"):
        return settings.public_origin
    return "mailto:casino@localhost"


def create_app(settings: Settings | None = None, *, migrate: bool = True) -> Starlette:
    settings = settings or Settings.from_env()

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        lock_sqlite_file(settings.database_url)  # one process a SQLite file
        if migrate:
            await asyncio.to_thread(upgrade, settings.database_url)
        storage = Storage.open(settings.database_url, settings.sqlite_synchronous, tuning(settings))
        node = new_node_id(settings.node_name)
        # what the lease and the other processes report goes to the rooms (one listener,
        # told of the registry and the router once they are made)
        events = RoomsOnCluster()
        clock = DbClock()  # the database's time, read at each renewal of the lease
        # no other process can take a room (one SQLite file, locked above; or one process
        # without Redis, whose claims are forced): a slow process keeps its rooms
        exclusive = storage.db.dialect == "sqlite" or not settings.redis_url
        # SQLite: this process is the file's only one, so the lease is written once (at
        # start) and its renewals write nothing: they never wait for SQLite's one write
        # lock behind the room writes, nor make the room writes wait behind them
        lease = Lease(
            storage.leases, node, settings.lease_seconds, events=events, clock=clock,
            exclusive=exclusive, alone=storage.db.dialect == "sqlite",
        )  # fmt: skip
        # one process: every room is ours. Several (REDIS_URL): rooms are shared by leases,
        # and frames and room commands travel between the processes over Redis
        redis_hub = (
            RedisHub(
                settings.redis_url,
                node,
                settings.redis_prefix,
                clock=clock.now,
                peers=lambda: lease.live,
                events=events,
            )  # fmt: skip
            if settings.redis_url
            else None
        )
        hub: Hub = redis_hub or LocalHub()
        # the shared rate limits use the hub's client (server/edge/shared_limits.py)
        app.state.redis = redis_hub.redis if redis_hub is not None else None
        ai_pool = AiPool(settings.ai_workers or cores(), settings.ai_queue)
        # Web Push: the VAPID key of the environment, else the one kept in the database
        vapid = VapidKey(settings.vapid_private_key or await storage.push.vapid_key())
        sender = Sender(vapid, vapid_subject(settings), settings.push_timeout)
        notifier = Notifier(storage.push, sender, settings.push_every, clock.now, lease.serves)
        registry = RoomRegistry(
            storage, hub, settings, ai_pool.choose, lease, shared=redis_hub is not None,
            push=notifier,
        )  # fmt: skip
        router = Router(registry, hub, redis_hub)
        events.serve(registry, router)
        await lease.start()  # our lease first: then no one claims our new rooms
        if redis_hub is not None:
            await redis_hub.start()
        leasing = asyncio.create_task(lease.run())
        qr = QrMaker()
        services = Services(
            settings, storage, hub, registry, router, lease,
            Lobby(storage, router, settings, clock.now), Games(storage, registry), qr,
            Pushes(storage, vapid.public, settings.push_services), notifier, ai=ai_pool,
        )  # fmt: skip
        app.state.services = services
        purger = (
            asyncio.create_task(run_purges(storage.purges, settings, registry.in_use))
            if settings.purge_interval > 0
            else None
        )
        trimmer = asyncio.create_task(run_trims(settings.malloc_trim_seconds))

        async def drain() -> None:
            """A clean stop, before the sockets are closed: no new work, the rooms stop and
            are released (nobody's: another process claims each at once), then every socket
            is told to reconnect, once."""
            if services.draining:
                return
            services.draining = True
            leasing.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await leasing
            lease.stop()
            await registry.shut_down()
            reconnect.here(hub)

        app.state.drain = drain
        # Everything made so far (modules, classes, the app) lives as long as the process:
        # keep it out of the garbage collector's full passes, which otherwise pause every
        # room for tens of milliseconds once there are thousands of sockets.
        gc.collect()
        gc.freeze()
        services.pauses.install()
        try:
            yield
        finally:
            services.pauses.remove()
            trimmer.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await trimmer
            if purger is not None:
                purger.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await purger
            qr.close()
            await drain()
            await notifier.close()
            if redis_hub is not None:
                await redis_hub.close()
            await ai_pool.close()
            await storage.close()

    app = Starlette(
        routes=routes(settings),
        lifespan=lifespan,
        exception_handlers={HTTPException: http_error},
        middleware=[Middleware(SecurityMiddleware, settings=settings)],
    )
    add_compression(app)  # outermost: it compresses the security layer's answers too
    app.state.settings = settings
    # with Redis the limits hold across processes (server/edge/shared_limits.py); its client
    # is the lifespan's, so until it is made (and whenever Redis is away) they count here
    link = (
        RedisLink(lambda: getattr(app.state, "redis", None), settings.redis_prefix)
        if settings.redis_url
        else None
    )
    failures = settings.code_failures_per_min
    app.state.limits = Limits(
        rooms=rate_limit(link, "rooms", settings.rate_rooms_per_min),
        join=rate_limit(link, "join", settings.rate_join_per_min),
        qr=rate_limit(link, "qr", settings.rate_qr_per_min),
        games=rate_limit(link, "games", settings.rate_games_per_min),
        replays=rate_limit(link, "replays", settings.rate_replays_per_min),
        invite_failures=failure_budget(link, "invite-codes", failures),
        rejoin_failures=failure_budget(link, "rejoin-codes", failures),
        invite_misses=address_budget(link, "invite-misses", settings.invite_misses_per_min),
    )
    return app
