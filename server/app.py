"""The web app: ``create_app(settings)``. Every route is in ``routes()`` below, each pointing
at its handler in this module; the game logic itself is in ``rooms.py``.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import io
import json
import logging
import time
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from typing import Any
from urllib.parse import urlsplit

import segno
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, JSONResponse, Response
from starlette.routing import BaseRoute, Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketDisconnect

from .config import Settings
from .fanout import LocalHub
from .migrate import upgrade
from .protocol import (
    CLOSE_POLICY,
    CLOSE_SERVER_ERROR,
    ApiError,
    Hello,
    MoveMsg,
    Ping,
    ProtocolError,
    Rematch,
    Takeover,
    parse_client,
)
from .rooms import Room, RoomManager
from .storage import SqlStorage

log = logging.getLogger("server.app")

MAX_BODY = 4096


# -- shared helpers ------------------------------------------------------------------------


def manager_of(request: Request | WebSocket) -> RoomManager:
    manager: RoomManager = request.app.state.manager
    return manager


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
        raise ApiError(429, "rate_limited", "Demasiados intentos. Espera un momento.")


async def read_json(request: Request) -> dict[str, Any]:
    if not origin_allowed(request.headers.get("origin"), request.headers.get("host"),
                          settings_of(request)):
        raise ApiError(403, "bad_origin")
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_BODY:
            raise ApiError(413, "bad_request")
    try:
        data = json.loads(body)
    except ValueError:
        raise ApiError(400, "bad_request") from None
    if not isinstance(data, dict):
        raise ApiError(400, "bad_request")
    return data


Handler = Callable[[Request], Awaitable[Response]]


def api(handler: Handler) -> Handler:
    """JSON errors with a code and a Spanish message; never a stack trace to a client."""

    async def wrapped(request: Request) -> Response:
        try:
            return await handler(request)
        except ApiError as exc:
            return JSONResponse(exc.body(), status_code=exc.status)
        except Exception:
            log.exception("error in %s", handler.__name__)
            return JSONResponse(ApiError(500, "server_error").body(), status_code=500)

    wrapped.__name__ = handler.__name__
    return wrapped


# -- HTTP handlers -------------------------------------------------------------------------


@api
async def create_room(request: Request) -> Response:
    data = await read_json(request)
    limited(request, "rooms_limit")
    answer = await manager_of(request).create(data.get("mode"), data.get("level"),
                                              data.get("name"))
    return JSONResponse(answer, status_code=201)


@api
async def join_room(request: Request) -> Response:
    data = await read_json(request)
    limited(request, "join_limit")
    return JSONResponse(await manager_of(request).join(data.get("invite"), data.get("name")))


@api
async def room_summary(request: Request) -> Response:
    return JSONResponse(await manager_of(request).summary(request.path_params["room"]))


@api
async def create_rejoin_code(request: Request) -> Response:
    data = await read_json(request)
    limited(request, "join_limit")
    answer = await manager_of(request).make_rejoin_code(data.get("token"))
    return JSONResponse(answer, status_code=201)


@api
async def use_rejoin_code(request: Request) -> Response:
    data = await read_json(request)
    limited(request, "join_limit")
    return JSONResponse(await manager_of(request).rejoin(data.get("code")))


@api
async def qr_svg(request: Request) -> Response:
    text = request.query_params.get("text", "")
    host = request.headers.get("host", "")
    scheme = request.url.scheme
    if len(text) > 300:
        raise ApiError(400, "bad_qr_text")
    if text.startswith("/") and not text.startswith("//"):
        url = f"{scheme}://{host}{text}"
    else:
        parts = urlsplit(text)
        if parts.scheme not in ("http", "https") or parts.netloc != host:
            raise ApiError(400, "bad_qr_text")
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
    error = ApiError(exc.status_code, "not_found" if exc.status_code == 404 else "bad_request")
    if request.url.path.startswith("/api/"):
        return JSONResponse(error.body(), status_code=error.status, headers=exc.headers)
    return spanish_page(error.message, error.status, exc.headers)


async def healthz(request: Request) -> Response:
    return JSONResponse({"ok": True, "rooms_in_memory": len(manager_of(request).rooms)})


# -- the websocket -------------------------------------------------------------------------


class Connection:
    """One websocket: a queue of frames to send and a writer task, so a slow phone never
    holds up its room. ``deliver`` and ``close`` only queue (fanout.Subscriber)."""

    def __init__(self, websocket: WebSocket, max_queue: int) -> None:
        self.websocket = websocket
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


async def websocket_endpoint(websocket: WebSocket) -> None:
    settings = settings_of(websocket)
    manager = manager_of(websocket)
    await websocket.accept()
    if not origin_allowed(websocket.headers.get("origin"), websocket.headers.get("host"),
                          settings):
        await websocket.send_text(ProtocolError("bad_origin").to_text())
        await websocket.close(CLOSE_POLICY)
        return
    conn = Connection(websocket, settings.ws_queue)
    writer = asyncio.create_task(conn.writer())
    bucket = TokenBucket(settings.ws_rate, settings.ws_burst)
    room: Room | None = None
    seat = 0
    try:
        while not conn.closed:
            if room is None:  # a socket that never says hello does not stay open
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
            if not bucket.allow():
                conn.deliver(ProtocolError("rate_limited").to_text())
                if bucket.refused >= settings.ws_flood_close:
                    conn.close(CLOSE_POLICY)
                continue
            text = frame.get("text")
            if text is None:
                text = frame.get("bytes") or b""
            try:
                message = parse_client(text)
                if room is None:
                    if not isinstance(message, Hello):
                        raise ProtocolError("hello_first")
                    found, found_seat = await manager.authenticate(message.token)
                    await found.attach(found_seat, conn, message.since)
                    room, seat = found, found_seat
                else:
                    await dispatch(room, seat, conn, message)
            except ProtocolError as exc:
                conn.deliver(exc.to_text())
                if exc.code == "bad_token":
                    conn.close(CLOSE_POLICY)
                elif exc.code == "server_error" and room is None:
                    conn.close(CLOSE_SERVER_ERROR)  # reconnecting finds the room afresh
            except Exception:
                log.exception("error handling a websocket message")
                conn.deliver(ProtocolError("server_error").to_text())
    except WebSocketDisconnect:
        pass
    finally:
        if room is not None:
            await room.detach(seat, conn)
        conn.close(1000)
        with contextlib.suppress(Exception):
            await asyncio.wait_for(writer, 5)


async def dispatch(room: Room, seat: int, conn: Connection, message: object) -> None:
    """One message from a seat that said hello."""
    if isinstance(message, MoveMsg):
        conn.deliver(await room.submit(seat, message.move, message.seq, message.id))
    elif isinstance(message, Takeover):
        await room.takeover(seat, message.level)
    elif isinstance(message, Rematch):
        await room.rematch(seat)
    elif isinstance(message, Ping):
        conn.deliver('{"type":"pong"}')
    elif isinstance(message, Hello):
        raise ProtocolError("already_hello")


# -- the app -------------------------------------------------------------------------------


def routes(settings: Settings) -> list[BaseRoute]:
    """THE route table."""
    return [
        Route("/", index_page),
        Route("/j/{code}", index_page),
        Route("/r/{code}", index_page),
        Route("/healthz", healthz),
        Route("/api/rooms", create_room, methods=["POST"]),
        Route("/api/rooms/{room}", room_summary),
        Route("/api/join", join_room, methods=["POST"]),
        Route("/api/rejoin-codes", create_rejoin_code, methods=["POST"]),
        Route("/api/rejoin", use_rejoin_code, methods=["POST"]),
        Route("/api/qr.svg", qr_svg),
        WebSocketRoute("/ws", websocket_endpoint),
        Mount("/static", StaticFiles(directory=settings.client_dir, check_dir=False)),
    ]


def create_app(settings: Settings | None = None, *, migrate: bool = True) -> Starlette:
    settings = settings or Settings.from_env()

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        if migrate:
            await asyncio.to_thread(upgrade, settings.database_url)
        storage = SqlStorage.from_url(settings.database_url, settings.sqlite_synchronous)
        app.state.manager = RoomManager(storage, LocalHub(), settings)
        # Everything made so far (modules, classes, the app) lives as long as the process:
        # keep it out of the garbage collector's full passes, which otherwise pause every
        # room for tens of milliseconds once there are thousands of sockets.
        gc.collect()
        gc.freeze()
        try:
            yield
        finally:
            await storage.close()

    app = Starlette(routes=routes(settings), lifespan=lifespan,
                    exception_handlers={HTTPException: http_error})
    app.state.settings = settings
    app.state.rooms_limit = SlidingLimit(settings.rate_rooms_per_min)
    app.state.join_limit = SlidingLimit(settings.rate_join_per_min)
    return app
