"""The web app: ``create_app(settings)``. Every route is in ``routes()`` below, each pointing
at its handler in this module: the HTTP API calls the use cases of ``lobby.py`` and picks
the status (``STATUS``); the websocket's messages go to ``dispatch``, which hands each to
its room's actor (``rooms.py``).
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, assert_never

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import ClientDisconnect, Request
from starlette.responses import FileResponse, HTMLResponse, JSONResponse, Response
from starlette.routing import BaseRoute, Mount, Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from .ai.pool import AiPool, cores
from .cluster import is_outage, new_conn_id, new_node_id
from .config import Settings
from .fanout import Fanout, LocalHub
from .games import Games
from .limits import client_key
from .lobby import Lobby, hash_secret
from .migrate import upgrade
from .protocol import (
    CLOSE_NORMAL,
    CLOSE_POLICY,
    CLOSE_RECONNECT,
    CLOSE_SERVER_ERROR,
    REACTIONS_LIMITED_ES,
    ApiError,
    ClientMessage,
    Hello,
    MoveMsg,
    Ping,
    Pong,
    ProtocolError,
    React,
    Rematch,
    Takeover,
    WatchMsg,
    encode,
    loads,
    message_id,
    parse_client,
    watchers_full,
)
from .purge import run_purges
from .qr import QrMaker, shareable_path
from .redis_hub import RedisHub
from .rooms import (
    WATCHER_SEAT,
    Attach,
    Detach,
    ReactCmd,
    RematchCmd,
    RoomRegistry,
    Submit,
    TakeoverCmd,
    Unwatch,
    Watch,
)
from .security import SecurityMiddleware, origin_allowed
from .shared_limits import Budget, RateLimit, RedisLink, failure_budget, rate_limit
from .static import ClientFiles, add_compression, service_worker_route
from .storage import SqlStorage, lock_sqlite_file

log = logging.getLogger("server.app")

MAX_BODY = 4096
SHORT_CODE_MAX = 12  # a rejoin code this long or shorter is the short one (lobby.rejoin)

# the HTTP status of each API error code (the use cases say what happened; this says how
# HTTP puts it)
STATUS = {
    "bad_request": 400,
    "bad_mode": 400,
    "bad_level": 400,
    "bad_name": 400,
    "bad_key": 400,
    "bad_qr_text": 400,
    "bad_token": 401,
    "bad_origin": 403,
    "invite_unknown": 404,
    "room_unknown": 404,
    "code_unknown": 404,
    "not_found": 404,
    "room_full": 409,
    "code_expired": 410,
    "code_used": 410,
    "rate_limited": 429,
    "server_error": 500,
    "reconnecting": 503,
    "bad_host": 400,
    "busy": 503,
    "bad_turns": 400,
    "bad_tokens": 400,
    "bad_match": 404,
    "not_finished": 409,
    "replay_unknown": 404,
}


def status_of(error: ApiError) -> int:
    return error.status or STATUS.get(error.code, 400)


# -- shared helpers ------------------------------------------------------------------------


def lobby_of(request: Request | WebSocket) -> Lobby:
    lobby: Lobby = request.app.state.lobby
    return lobby


def games_of(request: Request) -> Games:
    games: Games = request.app.state.games
    return games


def registry_of(request: Request | WebSocket) -> RoomRegistry:
    registry: RoomRegistry = request.app.state.registry
    return registry


def settings_of(request: Request | WebSocket) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


async def limited(request: Request, name: str) -> None:
    """Per address (IPv6: per /64), before the body is even read."""
    limit: RateLimit = getattr(request.app.state, name)
    if not await limit.allow(client_key(request.client.host if request.client else None)):
        raise ApiError("rate_limited", "Demasiados intentos. Espera un momento.")


CODES_PAUSED = "Hubo demasiados intentos con códigos equivocados. Espera un minuto o usa el enlace."


async def budget_of(request: Request, name: str) -> Budget:
    budget: Budget = getattr(request.app.state, name)
    if await budget.exhausted():
        raise ApiError("rate_limited", CODES_PAUSED)
    return budget


async def read_json(request: Request) -> dict[str, Any]:
    if not origin_allowed(
        request.headers.get("origin"), request.headers.get("host"), settings_of(request)
    ):
        raise ApiError("bad_origin")
    body = b""
    try:
        async for chunk in request.stream():
            body += chunk
            if len(body) > MAX_BODY:
                raise ApiError("bad_request", status=413)
    except ClientDisconnect:  # gone before it finished: nobody to answer, nothing to log
        raise ApiError("bad_request") from None
    try:
        data = loads(body)  # invalid UTF-8, lone surrogates, deep nesting: a ValueError
    except ValueError:
        raise ApiError("bad_request") from None
    if not isinstance(data, dict):
        raise ApiError("bad_request")
    return data


Handler = Callable[[Request], Awaitable[Response]]


def api(handler: Handler) -> Handler:
    """JSON errors with a code and a Spanish message; never a stack trace to a client."""

    async def wrapped(request: Request) -> Response:
        try:
            return await handler(request)
        except ApiError as exc:
            return JSONResponse(exc.body(), status_code=status_of(exc))
        except ProtocolError as exc:  # from a room (e.g. it stopped under the request)
            error = ApiError(exc.code)
            return JSONResponse(error.body(), status_code=status_of(error))
        except Exception as exc:
            if is_outage(exc):  # the database or Redis is away for a moment
                error = ApiError("reconnecting")
                return JSONResponse(error.body(), status_code=status_of(error))
            log.exception("error in %s", handler.__name__)
            return JSONResponse(ApiError("server_error").body(), status_code=500)

    wrapped.__name__ = handler.__name__
    return wrapped


# -- HTTP handlers -------------------------------------------------------------------------


@api
async def create_room(request: Request) -> Response:
    await limited(request, "rooms_limit")
    data = await read_json(request)
    answer = await lobby_of(request).create(
        data.get("mode"), data.get("level"), data.get("name"), data.get("turns", False)
    )
    return JSONResponse(answer, status_code=201)


@api
async def invitation(request: Request) -> Response:
    await limited(request, "join_limit")
    budget = await budget_of(request, "invite_failures")
    try:
        answer = await lobby_of(request).invitation(request.path_params["invite"])
    except ApiError as exc:
        if exc.code == "invite_unknown":
            await budget.charge()
        raise
    return JSONResponse(answer)


@api
async def join_room(request: Request) -> Response:
    await limited(request, "join_limit")
    data = await read_json(request)
    budget = await budget_of(request, "invite_failures")
    try:
        answer = await lobby_of(request).join(data.get("invite"), data.get("name"), data.get("key"))
    except ApiError as exc:
        if exc.code == "invite_unknown":
            await budget.charge()
        raise
    return JSONResponse(answer)


@api
async def room_summary(request: Request) -> Response:
    return JSONResponse(await lobby_of(request).summary(request.path_params["room"]))


@api
async def my_games(request: Request) -> Response:
    """POST: seat tokens are secrets, so they travel in the body, never in a URL."""
    await limited(request, "games_limit")
    data = await read_json(request)
    return JSONResponse(await games_of(request).list(data.get("tokens")))


@api
async def make_replay_link(request: Request) -> Response:
    await limited(request, "replays_limit")
    data = await read_json(request)
    answer = await games_of(request).replay_link(data.get("token"), data.get("match"))
    return JSONResponse(answer, status_code=201)


@api
async def replay(request: Request) -> Response:
    await limited(request, "replays_limit")
    answer = await games_of(request).replay(request.path_params["code"])
    # a finished match never changes: a shared link may be cached by the browser
    return JSONResponse(answer, headers={"Cache-Control": "private, max-age=3600"})


@api
async def create_rejoin_code(request: Request) -> Response:
    await limited(request, "join_limit")
    data = await read_json(request)
    answer = await lobby_of(request).make_rejoin_code(data.get("token"))
    return JSONResponse(answer, status_code=201)


@api
async def use_rejoin_code(request: Request) -> Response:
    await limited(request, "join_limit")
    data = await read_json(request)
    code = data.get("code")
    # only short codes can be guessed: the long one (192 bits) has no server-wide budget
    short = isinstance(code, str) and len(code.strip()) <= SHORT_CODE_MAX
    budget = await budget_of(request, "rejoin_failures") if short else None
    try:
        answer = await lobby_of(request).rejoin(code, data.get("key"))
    except ApiError as exc:
        if budget is not None and exc.code == "code_unknown":
            await budget.charge()
        raise
    return JSONResponse(answer)


@api
async def qr_svg(request: Request) -> Response:
    """POST, the link's path in the body: a rejoin link is a secret and a query string is
    written into every proxy's log (server/qr.py)."""
    await limited(request, "qr_limit")
    path = shareable_path((await read_json(request)).get("text"))
    settings = settings_of(request)
    origin = settings.public_origin or f"{request.url.scheme}://{request.headers.get('host', '')}"
    qr: QrMaker = request.app.state.qr
    svg = await qr.svg(origin + path, cache=path.startswith(("/j/", "/v/")))
    return Response(svg, media_type="image/svg+xml", headers={"Cache-Control": "no-store"})


def spanish_page(text: str, status: int, headers: Mapping[str, str] | None = None) -> Response:
    return HTMLResponse(
        f"<!doctype html><meta charset=utf-8><title>Casino</title><p>{text}</p>",
        status_code=status,
        headers=headers,
    )


async def index_page(request: Request) -> Response:
    index = settings_of(request).client_dir / "index.html"
    if not index.is_file():
        return spanish_page("El juego todavía no está instalado.", 404)
    return FileResponse(index, headers={"Cache-Control": "no-cache"})


async def http_error(request: Request, exc: Exception) -> Response:
    """Starlette's own errors (no such path or file, wrong method) in Spanish too: the
    API's error shape under /api/, a short page elsewhere."""
    assert isinstance(exc, HTTPException)
    error = ApiError("not_found" if exc.status_code == 404 else "bad_request")
    if request.url.path.startswith("/api/"):
        return JSONResponse(error.body(), status_code=exc.status_code, headers=exc.headers)
    return spanish_page(error.message, exc.status_code, exc.headers)


async def healthz(request: Request) -> Response:
    """200 while this process holds its lease (it can reach the database); 503 otherwise,
    so that a load balancer sends players elsewhere meanwhile."""
    registry = registry_of(request)
    held = registry.lease.held
    return JSONResponse(
        {"ok": held, "node": registry.node, "rooms_in_memory": len(registry.rooms)},
        status_code=200 if held else 503,
    )


# -- the websocket -------------------------------------------------------------------------


class Connection:
    """One websocket: a queue of frames to send and a writer task, so a slow phone never
    holds up its room. ``deliver`` and ``close`` only queue (it is a ``fanout.Sink``)."""

    def __init__(self, websocket: WebSocket, max_queue: int, conn_id: str) -> None:
        self.websocket = websocket
        self.id = conn_id  # names this process: the room's owner may be another one
        self.max_queue = max_queue
        self.queue: asyncio.Queue[str | int] = asyncio.Queue()
        self.closed = False

    def deliver(self, text: str) -> None:
        if self.closed:
            return
        if self.queue.qsize() >= self.max_queue:
            self.close(CLOSE_POLICY)  # too slow to keep up: it can reconnect and resume
            return
        self.queue.put_nowait(text)

    def close(self, code: int) -> None:
        if not self.closed:
            self.closed = True
            self.queue.put_nowait(code)

    async def writer(self) -> None:
        try:
            while True:
                item = await self.queue.get()
                if isinstance(item, int):
                    await self.websocket.close(item)
                    return
                await self.websocket.send_text(item)
        except Exception:  # the socket went away: the reader sees it too
            self.closed = True


class TokenBucket:
    def __init__(self, rate: float, burst: int) -> None:
        self.rate = rate
        self.burst = float(burst)
        self.tokens = float(burst)
        self.stamp = time.monotonic()
        self.refused = 0
        self.first_refusal = 0.0

    def allow(self) -> bool:
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        if now - self.first_refusal > 60:  # a new flood: count afresh
            self.refused = 0
            self.first_refusal = now
        self.refused += 1
        return False


@dataclass
class Seat:
    """The room and seat a connection said hello to (``WATCHER_SEAT``: it watches)."""

    room: str
    seat: int

    @property
    def watching(self) -> bool:
        return self.seat == WATCHER_SEAT


# a first message refused with one of these closes the socket: it cannot become valid
CLOSING_CODES = ("bad_token", "rate_limited", "watch_unknown", "watchers_full")


async def websocket_endpoint(websocket: WebSocket) -> None:
    settings = settings_of(websocket)
    registry = registry_of(websocket)
    hub: Fanout = websocket.app.state.hub
    await websocket.accept()
    if not origin_allowed(websocket.headers.get("origin"), websocket.headers.get("host"), settings):
        await websocket.send_text(ProtocolError("bad_origin").to_text())
        await websocket.close(CLOSE_POLICY)
        return
    conn = Connection(websocket, settings.ws_queue, new_conn_id(registry.node))
    writer = asyncio.create_task(conn.writer())
    bucket = TokenBucket(settings.ws_rate, settings.ws_burst)
    seat: Seat | None = None
    try:
        while not conn.closed:
            if seat is None:  # a socket that never says hello does not stay open
                try:
                    frame = await asyncio.wait_for(websocket.receive(), settings.hello_timeout)
                except TimeoutError:
                    conn.deliver(ProtocolError("hello_first").to_text())
                    conn.close(CLOSE_POLICY)
                    break
            else:
                frame = await websocket.receive()
            if frame["type"] == "websocket.disconnect":
                break
            text = frame.get("text")
            if text is None:
                text = frame.get("bytes") or b""
            if not bucket.allow():
                conn.deliver(ProtocolError("rate_limited", id=message_id(text)).to_text())
                if bucket.refused >= settings.ws_flood_close:
                    conn.close(CLOSE_POLICY)
                continue
            try:
                message = parse_client(text)
                if seat is None:
                    seat = await hello(registry, hub, conn, message)
                else:
                    await dispatch(registry, seat, conn, message)
            except ProtocolError as exc:
                conn.deliver(exc.to_text())
                if seat is None and exc.code in CLOSING_CODES:
                    conn.close(CLOSE_POLICY)
                elif seat is None and exc.code == "server_error":
                    conn.close(CLOSE_SERVER_ERROR)  # reconnecting finds the room afresh
                elif exc.code == "reconnecting":
                    conn.close(CLOSE_RECONNECT)  # try again, on any process
            except Exception as exc:
                if is_outage(exc):  # the database or Redis is away: the client comes back
                    conn.deliver(ProtocolError("reconnecting").to_text())
                    conn.close(CLOSE_RECONNECT)
                    continue
                log.exception("error handling a websocket message")
                conn.deliver(ProtocolError("server_error").to_text())
    except WebSocketDisconnect:
        pass
    finally:
        if seat is not None:
            hub.unregister(seat.room, seat.seat, conn.id)
            with contextlib.suppress(Exception):
                await registry.call(
                    seat.room, Unwatch(conn.id) if seat.watching else Detach(seat.seat, conn.id)
                )
        conn.close(CLOSE_NORMAL)
        with contextlib.suppress(Exception):
            await asyncio.wait_for(writer, 5)


async def hello(
    registry: RoomRegistry, hub: Fanout, conn: Connection, message: ClientMessage
) -> Seat:
    """The first message of a connection: whose seat it is, or which room it watches."""
    if isinstance(message, WatchMsg):
        return await watch(registry, hub, conn, message)
    if not isinstance(message, Hello):
        raise ProtocolError("hello_first")
    found = await registry.deps.storage.seat_for_token(hash_secret(message.token))
    if found is None:
        raise ProtocolError("bad_token")
    seat = Seat(*found)
    hub.register(seat.room, seat.seat, conn.id, conn)
    try:
        if await registry.call(seat.room, Attach(seat.seat, conn.id, message.since)) is None:
            raise ProtocolError("bad_token")
    except BaseException:
        hub.unregister(seat.room, seat.seat, conn.id)
        raise
    return seat


async def watch(registry: RoomRegistry, hub: Fanout, conn: Connection, message: WatchMsg) -> Seat:
    """A watcher's first message: the room of the watch code (the room's actor sends the
    watcher's welcome)."""
    room_id = await registry.deps.storage.room_for_watch(message.code)
    if room_id is None:
        raise ProtocolError("watch_unknown")
    seat = Seat(room_id, WATCHER_SEAT)
    hub.register(room_id, WATCHER_SEAT, conn.id, conn)
    try:
        if await registry.call(room_id, Watch(conn.id, message.since)) is None:
            raise ProtocolError("watch_unknown")
    except ProtocolError as exc:
        hub.unregister(room_id, WATCHER_SEAT, conn.id)
        if exc.code == "watchers_full":  # from another process, only the code travels
            raise watchers_full(registry.deps.settings.max_watchers) from None
        raise
    except BaseException:
        hub.unregister(room_id, WATCHER_SEAT, conn.id)
        raise
    return seat


async def dispatch(
    registry: RoomRegistry, seat: Seat, conn: Connection, message: ClientMessage
) -> None:
    """One message from a seat that said hello (or a watcher): each kind to its room
    command. A watcher may only ping."""
    if seat.watching and not isinstance(message, Ping):
        raise ProtocolError(
            "already_hello" if isinstance(message, Hello | WatchMsg) else "watch_only"
        )
    match message:
        case MoveMsg(move, seq, move_id):
            answer = await registry.call(seat.room, Submit(seat.seat, move, seq, move_id))
            if answer is not None:
                conn.deliver(answer)
        case Takeover(level, confirmed):
            await registry.call(seat.room, TakeoverCmd(seat.seat, level, confirmed))
        case Rematch():
            await registry.call(seat.room, RematchCmd(seat.seat))
        case React(reaction, react_id):
            try:
                await registry.call(seat.room, ReactCmd(seat.seat, reaction))
            except ProtocolError as exc:
                if exc.code == "rate_limited":  # from another process, only the code travels
                    exc.message = REACTIONS_LIMITED_ES
                exc.id = react_id
                raise
        case Ping():
            conn.deliver(encode(Pong()))
        case Hello() | WatchMsg():
            raise ProtocolError("already_hello")
        case _:
            assert_never(message)


# -- the app -------------------------------------------------------------------------------


def routes(settings: Settings) -> list[BaseRoute]:
    """THE route table."""
    return [
        Route("/", index_page),
        Route("/j/{code}", index_page),
        Route("/r/{code}", index_page),
        Route("/p/{code}", index_page),
        Route("/v/{code}", index_page),
        Route("/sw.js", service_worker_route(settings.client_dir)),
        Route("/healthz", healthz),
        Route("/api/rooms", create_room, methods=["POST"]),
        Route("/api/rooms/{room}", room_summary),
        Route("/api/join", join_room, methods=["POST"]),
        Route("/api/invites/{invite}", invitation),
        Route("/api/rejoin-codes", create_rejoin_code, methods=["POST"]),
        Route("/api/rejoin", use_rejoin_code, methods=["POST"]),
        Route("/api/qr", qr_svg, methods=["POST"]),
        Route("/api/my-games", my_games, methods=["POST"]),
        Route("/api/replays", make_replay_link, methods=["POST"]),
        Route("/api/replays/{code}", replay),
        WebSocketRoute("/ws", websocket_endpoint),
        Mount("/static", ClientFiles(directory=settings.client_dir, check_dir=False)),
    ]


def create_app(settings: Settings | None = None, *, migrate: bool = True) -> Starlette:
    settings = settings or Settings.from_env()

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        lock_sqlite_file(settings.database_url)  # one process a SQLite file
        if migrate:
            await asyncio.to_thread(upgrade, settings.database_url)
        storage = SqlStorage.from_url(settings.database_url, settings.sqlite_synchronous)
        node = new_node_id(settings.node_name)
        # one process: every room is ours. Several (REDIS_URL): rooms are shared by leases,
        # and frames and room commands travel between the processes over Redis
        redis_hub = RedisHub(settings.redis_url, node) if settings.redis_url else None
        app.state.hub = redis_hub or LocalHub()
        # the shared rate limits use the hub's client (server/shared_limits.py)
        app.state.redis = redis_hub.redis if redis_hub is not None else None
        ai_pool = AiPool(settings.ai_workers or cores(), settings.ai_queue)
        app.state.registry = registry = RoomRegistry(
            storage, app.state.hub, settings, ai_pool.choose, node=node, peers=redis_hub
        )
        await registry.lease.renew()  # our lease first: then no one takes our new rooms
        if redis_hub is not None:
            redis_hub.on_call = registry.call_here
            redis_hub.on_lost = registry.lost_peers
            await redis_hub.start()
        lease = asyncio.create_task(registry.lease.run())
        app.state.lobby = Lobby(registry)
        app.state.games = Games(registry)
        purger = (
            asyncio.create_task(run_purges(registry, settings))
            if settings.purge_interval > 0
            else None
        )
        # Everything made so far (modules, classes, the app) lives as long as the process:
        # keep it out of the garbage collector's full passes, which otherwise pause every
        # room for tens of milliseconds once there are thousands of sockets.
        gc.collect()
        gc.freeze()
        try:
            yield
        finally:
            if purger is not None:
                purger.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await purger
            app.state.qr.close()
            lease.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await lease
            await registry.stop_all()
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
    # with Redis the limits hold across processes (server/shared_limits.py); its client is
    # the lifespan's, so until it is made (and whenever Redis is away) they count here
    link = (
        RedisLink(lambda: getattr(app.state, "redis", None), settings.redis_prefix)
        if settings.redis_url
        else None
    )
    app.state.rooms_limit = rate_limit(link, "rooms", settings.rate_rooms_per_min)
    app.state.join_limit = rate_limit(link, "join", settings.rate_join_per_min)
    app.state.qr_limit = rate_limit(link, "qr", settings.rate_qr_per_min)
    app.state.games_limit = rate_limit(link, "games", settings.rate_games_per_min)
    app.state.replays_limit = rate_limit(link, "replays", settings.rate_replays_per_min)
    app.state.invite_failures = failure_budget(link, "invite-codes", settings.code_failures_per_min)
    app.state.rejoin_failures = failure_budget(link, "rejoin-codes", settings.code_failures_per_min)
    app.state.qr = QrMaker()
    return app
