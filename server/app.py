"""The web app: ``create_app(settings)``. Every route is in ``routes()`` below, each pointing
at its handler in this module: the HTTP API calls the use cases of ``lobby.py`` and picks
the status (``STATUS``); the websocket's messages go to ``dispatch``, which hands each to
its room's actor (``rooms.py``).
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import io
import logging
import secrets
import time
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, assert_never
from urllib.parse import urlsplit

import segno
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, JSONResponse, Response
from starlette.routing import BaseRoute, Mount, Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from .ai.pool import AiPool, cores
from .config import Settings
from .fanout import Fanout, LocalHub
from .lobby import Lobby, hash_secret
from .migrate import upgrade
from .protocol import (
    CLOSE_NORMAL,
    CLOSE_POLICY,
    CLOSE_SERVER_ERROR,
    ApiError,
    ClientMessage,
    Hello,
    MoveMsg,
    Ping,
    Pong,
    ProtocolError,
    Rematch,
    Takeover,
    encode,
    loads,
    message_id,
    parse_client,
)
from .rooms import Attach, Detach, RematchCmd, RoomRegistry, Submit, TakeoverCmd
from .static import ClientFiles, add_compression, service_worker_route
from .storage import SqlStorage, lock_sqlite_file

log = logging.getLogger("server.app")

MAX_BODY = 4096

# the HTTP status of each API error code (the use cases say what happened; this says how
# HTTP puts it)
STATUS = {
    "bad_request": 400, "bad_mode": 400, "bad_level": 400, "bad_name": 400, "bad_key": 400,
    "bad_qr_text": 400, "bad_token": 401, "bad_origin": 403, "invite_unknown": 404,
    "room_unknown": 404, "code_unknown": 404, "not_found": 404, "room_full": 409,
    "code_expired": 410, "code_used": 410, "rate_limited": 429, "server_error": 500,
}


def status_of(error: ApiError) -> int:
    return error.status or STATUS.get(error.code, 400)


# -- shared helpers ------------------------------------------------------------------------


def lobby_of(request: Request | WebSocket) -> Lobby:
    lobby: Lobby = request.app.state.lobby
    return lobby


def registry_of(request: Request | WebSocket) -> RoomRegistry:
    registry: RoomRegistry = request.app.state.registry
    return registry


def settings_of(request: Request | WebSocket) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


def origin_allowed(origin: str | None, host: str | None, settings: Settings) -> bool:
    """Browsers always send Origin; it must be this site or one of ALLOWED_ORIGINS.
    Clients that are not browsers (no Origin) cannot be tricked by another site."""
    if origin is None:
        return True
    origin = origin.rstrip("/")
    if origin in settings.allowed_origins:
        return True
    parts = urlsplit(origin)
    return parts.scheme in ("http", "https") and bool(host) and parts.netloc == host


class SlidingLimit:
    """At most ``limit`` events per key in any 60 seconds."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.hits: dict[str, deque[float]] = {}

    def allow(self, key: str) -> bool:
        now = time.monotonic()
        hits = self.hits.setdefault(key, deque())
        while hits and hits[0] <= now - 60:
            hits.popleft()
        if len(hits) >= self.limit:
            return False
        hits.append(now)
        if len(self.hits) > 10000:  # forget quiet addresses
            for k in [k for k, v in self.hits.items() if not v or v[-1] <= now - 60]:
                del self.hits[k]
        return True


def limited(request: Request, name: str) -> None:
    limit: SlidingLimit = getattr(request.app.state, name)
    if not limit.allow(request.client.host if request.client else "?"):
        raise ApiError("rate_limited", "Demasiados intentos. Espera un momento.")


async def read_json(request: Request) -> dict[str, Any]:
    if not origin_allowed(request.headers.get("origin"), request.headers.get("host"),
                          settings_of(request)):
        raise ApiError("bad_origin")
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_BODY:
            raise ApiError("bad_request", status=413)
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
        except Exception:
            log.exception("error in %s", handler.__name__)
            return JSONResponse(ApiError("server_error").body(), status_code=500)

    wrapped.__name__ = handler.__name__
    return wrapped


# -- HTTP handlers -------------------------------------------------------------------------


@api
async def create_room(request: Request) -> Response:
    data = await read_json(request)
    limited(request, "rooms_limit")
    answer = await lobby_of(request).create(data.get("mode"), data.get("level"),
                                            data.get("name"))
    return JSONResponse(answer, status_code=201)


@api
async def join_room(request: Request) -> Response:
    data = await read_json(request)
    limited(request, "join_limit")
    return JSONResponse(await lobby_of(request).join(data.get("invite"), data.get("name"),
                                                     data.get("key")))


@api
async def room_summary(request: Request) -> Response:
    return JSONResponse(await lobby_of(request).summary(request.path_params["room"]))


@api
async def create_rejoin_code(request: Request) -> Response:
    data = await read_json(request)
    limited(request, "join_limit")
    answer = await lobby_of(request).make_rejoin_code(data.get("token"))
    return JSONResponse(answer, status_code=201)


@api
async def use_rejoin_code(request: Request) -> Response:
    data = await read_json(request)
    limited(request, "join_limit")
    return JSONResponse(await lobby_of(request).rejoin(data.get("code"), data.get("key")))


@api
async def qr_svg(request: Request) -> Response:
    text = request.query_params.get("text", "")
    host = request.headers.get("host", "")
    scheme = request.url.scheme
    if len(text) > 300:
        raise ApiError("bad_qr_text")
    if text.startswith("/") and not text.startswith("//"):
        url = f"{scheme}://{host}{text}"
    else:
        parts = urlsplit(text)
        if parts.scheme not in ("http", "https") or parts.netloc != host:
            raise ApiError("bad_qr_text")
        url = text
    buffer = io.BytesIO()
    segno.make(url, error="m").save(buffer, kind="svg", scale=6, border=2)
    return Response(buffer.getvalue(), media_type="image/svg+xml",
                    headers={"Cache-Control": "private, max-age=600"})


def spanish_page(text: str, status: int, headers: Mapping[str, str] | None = None) -> Response:
    return HTMLResponse(f"<!doctype html><meta charset=utf-8><title>Casino</title><p>{text}</p>",
                        status_code=status, headers=headers)


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
    return JSONResponse({"ok": True, "rooms_in_memory": len(registry_of(request).rooms)})


# -- the websocket -------------------------------------------------------------------------


class Connection:
    """One websocket: a queue of frames to send and a writer task, so a slow phone never
    holds up its room. ``deliver`` and ``close`` only queue (it is a ``fanout.Sink``)."""

    def __init__(self, websocket: WebSocket, max_queue: int) -> None:
        self.websocket = websocket
        self.id = secrets.token_hex(8)
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
    """The room and seat a connection said hello to."""

    room: str
    seat: int


async def websocket_endpoint(websocket: WebSocket) -> None:
    settings = settings_of(websocket)
    registry = registry_of(websocket)
    hub: Fanout = websocket.app.state.hub
    await websocket.accept()
    if not origin_allowed(websocket.headers.get("origin"), websocket.headers.get("host"),
                          settings):
        await websocket.send_text(ProtocolError("bad_origin").to_text())
        await websocket.close(CLOSE_POLICY)
        return
    conn = Connection(websocket, settings.ws_queue)
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
                if seat is None and exc.code in ("bad_token", "rate_limited"):
                    conn.close(CLOSE_POLICY)
                elif seat is None and exc.code == "server_error":
                    conn.close(CLOSE_SERVER_ERROR)  # reconnecting finds the room afresh
            except Exception:
                log.exception("error handling a websocket message")
                conn.deliver(ProtocolError("server_error").to_text())
    except WebSocketDisconnect:
        pass
    finally:
        if seat is not None:
            hub.unregister(seat.room, seat.seat, conn.id)
            with contextlib.suppress(Exception):
                await registry.call(seat.room, Detach(seat.seat, conn.id))
        conn.close(CLOSE_NORMAL)
        with contextlib.suppress(Exception):
            await asyncio.wait_for(writer, 5)


async def hello(registry: RoomRegistry, hub: Fanout, conn: Connection,
                message: ClientMessage) -> Seat:
    """The first message of a connection: whose seat it is."""
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


async def dispatch(registry: RoomRegistry, seat: Seat, conn: Connection,
                   message: ClientMessage) -> None:
    """One message from a seat that said hello: each kind to its room command."""
    match message:
        case MoveMsg(move, seq, move_id):
            answer = await registry.call(seat.room, Submit(seat.seat, move, seq, move_id))
            if answer is not None:
                conn.deliver(answer)
        case Takeover(level):
            await registry.call(seat.room, TakeoverCmd(seat.seat, level))
        case Rematch():
            await registry.call(seat.room, RematchCmd(seat.seat))
        case Ping():
            conn.deliver(encode(Pong()))
        case Hello():
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
        Route("/sw.js", service_worker_route(settings.client_dir)),
        Route("/healthz", healthz),
        Route("/api/rooms", create_room, methods=["POST"]),
        Route("/api/rooms/{room}", room_summary),
        Route("/api/join", join_room, methods=["POST"]),
        Route("/api/rejoin-codes", create_rejoin_code, methods=["POST"]),
        Route("/api/rejoin", use_rejoin_code, methods=["POST"]),
        Route("/api/qr.svg", qr_svg),
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
        app.state.hub = LocalHub()
        ai_pool = AiPool(settings.ai_workers or cores(), settings.ai_queue)
        app.state.registry = registry = RoomRegistry(storage, app.state.hub, settings,
                                                     ai_pool.choose)
        app.state.lobby = Lobby(registry)
        # Everything made so far (modules, classes, the app) lives as long as the process:
        # keep it out of the garbage collector's full passes, which otherwise pause every
        # room for tens of milliseconds once there are thousands of sockets.
        gc.collect()
        gc.freeze()
        try:
            yield
        finally:
            await registry.stop_all()
            await ai_pool.close()
            await storage.close()

    app = Starlette(routes=routes(settings), lifespan=lifespan,
                    exception_handlers={HTTPException: http_error})
    add_compression(app)
    app.state.settings = settings
    app.state.rooms_limit = SlidingLimit(settings.rate_rooms_per_min)
    app.state.join_limit = SlidingLimit(settings.rate_join_per_min)
    return app
