"""The websocket session: one socket from its accept to its close. Its first message says
whose seat it is (``hello``) or which room it watches (``watch``); every message after that
goes to its room command (``dispatch``), wherever the room lives (``Router``). Frames reach
the socket through the hub (``Socket`` is the hub's ``Sink``): a queue and a writer task,
so a slow phone never holds up its room. Each socket speaks its player's language (the
``hello``'s ``lang``, else the upgrade's ``Accept-Language``): the errors it is sent are
worded in it, whoever produced them (issue 28).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from dataclasses import dataclass
from typing import assert_never

from starlette.websockets import WebSocket, WebSocketDisconnect

from ..cluster import WATCHERS, Hub, is_outage, new_conn_id
from ..edge.limits import TokenBucket
from ..edge.security import origin_allowed
from ..i18n import DEFAULT, language, negotiate
from ..inbox import Inbox
from ..lobby.tokens import find_seat
from ..protocol import (
    CLOSE_NORMAL,
    CLOSE_POLICY,
    CLOSE_RECONNECT,
    CLOSE_SERVER_ERROR,
    ClientMessage,
    GiveChairMsg,
    Hello,
    MoveMsg,
    Ping,
    Pong,
    ProtocolError,
    ReactMsg,
    RematchMsg,
    TakeoverMsg,
    WatchMsg,
    dumps,
    encode,
    loads,
    message_id,
    message_of,
    parse_client,
)
from ..rooms import Router
from ..rooms import commands as cmd
from ..store import Storage
from .services import services_of

log = logging.getLogger("server.web")


class Socket:
    """One websocket: a queue of frames to send and a writer task. ``deliver`` and ``close``
    only queue (it is the hub's ``Sink``)."""

    def __init__(
        self, websocket: WebSocket, max_queue: int, conn_id: str, lang: str = DEFAULT
    ) -> None:
        self.websocket = websocket
        self.lang = lang  # the player's language: the errors this socket is sent
        self.id = conn_id  # names this process: the room's owner may be another one
        self.max_queue = max_queue
        self.queue: Inbox[str | int] = Inbox()
        self.closed = False

    def deliver(self, text: str) -> None:
        """A frame from the room (or its answer to a move): an error in the player's
        language (the room words them in the default one)."""
        if self.lang != DEFAULT and text.startswith('{"type":"error"'):
            text = reworded(text, self.lang)
        self.send(text)

    def say(self, error: ProtocolError) -> None:
        """An error this session found, worded in the player's language."""
        self.send(error.to_text(self.lang))

    def send(self, text: str) -> None:
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


def reworded(text: str, lang: str) -> str:
    """An error frame with its message in ``lang``: from its code, reason and arguments."""
    try:
        data = loads(text)
        args = data.get("args")
        data["message"] = message_of(
            data["code"],
            lang,
            args=args if isinstance(args, dict) else None,
            reason=data.get("reason"),
        )
    except Exception:  # never lose a frame over its words
        return text
    return dumps(data)


@dataclass(frozen=True, slots=True)
class AtSeat:
    """A socket that said hello to a seat."""

    room: str
    seat: int


@dataclass(frozen=True, slots=True)
class Watcher:
    """A socket that watches a room."""

    room: str


Listener = AtSeat | Watcher

# a first message refused with one of these closes the socket: it cannot become valid
CLOSING_CODES = ("bad_token", "rate_limited", "watch_unknown", "watchers_full", "old_client")


def channel(listener: Listener) -> int:
    """The hub's channel of the listener: its seat, or the room's watchers."""
    return listener.seat if isinstance(listener, AtSeat) else WATCHERS


async def websocket_endpoint(websocket: WebSocket) -> None:
    services = services_of(websocket)
    settings, router, hub = services.settings, services.router, services.hub
    await websocket.accept()
    if not origin_allowed(websocket.headers.get("origin"), websocket.headers.get("host"), settings):
        lang = negotiate(websocket.headers.get("accept-language"))
        await websocket.send_text(ProtocolError("bad_origin").to_text(lang))
        await websocket.close(CLOSE_POLICY)
        return
    sock = Socket(
        websocket,
        settings.ws_queue,
        new_conn_id(services.registry.node),
        negotiate(websocket.headers.get("accept-language")),
    )
    writer = asyncio.create_task(sock.writer())
    bucket = TokenBucket(settings.ws_rate, settings.ws_burst)
    listener: Listener | None = None
    try:
        while not sock.closed:
            if listener is None:  # a socket that never says hello does not stay open
                try:
                    frame = await asyncio.wait_for(websocket.receive(), settings.hello_timeout)
                except TimeoutError:
                    sock.say(ProtocolError("hello_first"))
                    sock.close(CLOSE_POLICY)
                    break
            else:
                frame = await websocket.receive()
            if frame["type"] == "websocket.disconnect":
                break
            text = frame.get("text")
            if text is None:
                text = frame.get("bytes") or b""
            if not bucket.allow():
                sock.say(ProtocolError("rate_limited", id=message_id(text)))
                if bucket.refused >= settings.ws_flood_close:
                    sock.close(CLOSE_POLICY)
                continue
            try:
                message = parse_client(text)
                if listener is None:
                    listener = await hello(services.storage, router, hub, sock, message)
                else:
                    await dispatch(router, listener, sock, message)
            except ProtocolError as exc:
                if exc.id is None:  # every answer to a message with a valid id carries it
                    exc.id = message_id(text)
                sock.say(exc)
                if listener is None and exc.code in CLOSING_CODES:
                    sock.close(CLOSE_POLICY)
                elif listener is None and exc.code == "server_error":
                    sock.close(CLOSE_SERVER_ERROR)  # reconnecting finds the room afresh
                elif exc.code == "reconnecting":
                    sock.close(CLOSE_RECONNECT)  # try again, on any process
            except Exception as exc:
                if is_outage(exc):  # the database or Redis is away: the client comes back
                    sock.say(ProtocolError("reconnecting"))
                    sock.close(CLOSE_RECONNECT)
                    continue
                log.exception("error handling a websocket message")
                sock.say(ProtocolError("server_error"))
    except WebSocketDisconnect:
        pass
    finally:
        if listener is not None:
            hub.unregister(listener.room, channel(listener), sock.id)
            gone: cmd.Command = (
                cmd.Detach(listener.seat, sock.id)
                if isinstance(listener, AtSeat)
                else cmd.Unwatch(sock.id)
            )
            with contextlib.suppress(Exception):
                await router.call(listener.room, gone)
        sock.close(CLOSE_NORMAL)
        with contextlib.suppress(Exception):
            await asyncio.wait_for(writer, 5)


async def hello(
    storage: Storage, router: Router, hub: Hub, sock: Socket, message: ClientMessage
) -> Listener:
    """The first message of a socket: whose seat it is, or which room it watches (the room's
    actor sends the welcome)."""
    if isinstance(message, Hello | WatchMsg) and message.lang is not None:
        sock.lang = language(message.lang)
    if isinstance(message, Hello | WatchMsg) and message.old:
        raise ProtocolError("old_client")  # in its language; fatal: it closes the socket
    if isinstance(message, WatchMsg):
        room_id = await storage.codes.room_for_watch(message.code)
        if room_id is None:
            raise ProtocolError("watch_unknown")
        listener: Listener = Watcher(room_id)
        command: cmd.Command = cmd.Watch(sock.id, message.since)
        unknown = "watch_unknown"
    elif isinstance(message, Hello):
        found = await find_seat(storage, message.token)
        if found is None:
            raise ProtocolError("bad_token")
        listener = AtSeat(found.room_id, found.seat)
        command = cmd.Attach(found.seat, sock.id, message.since)
        unknown = "bad_token"
    else:
        raise ProtocolError("hello_first")
    hub.register(listener.room, channel(listener), sock.id, sock)
    try:
        if await router.call(listener.room, command) is None:
            raise ProtocolError(unknown)
    except BaseException:
        hub.unregister(listener.room, channel(listener), sock.id)
        raise
    hub.attached(listener.room, channel(listener), sock.id)
    return listener


async def dispatch(
    router: Router, listener: Listener, sock: Socket, message: ClientMessage
) -> None:
    """One message from a seat that said hello (or a watcher): each kind to its room
    command. A watcher may only ping."""
    if isinstance(listener, Watcher):
        if isinstance(message, Ping):
            sock.deliver(encode(Pong()))
            return
        raise ProtocolError(
            "already_hello" if isinstance(message, Hello | WatchMsg) else "watch_only"
        )
    room, seat = listener.room, listener.seat
    match message:
        case MoveMsg(move, seq, move_id):
            answer = await router.call(room, cmd.Submit(seat, move, seq, move_id))
            if answer is not None:
                sock.deliver(answer)
        case TakeoverMsg(level, confirmed, target):
            await router.call(room, cmd.Takeover(seat, level, confirmed, target))
        case GiveChairMsg(chair, level, give_id):
            try:
                await router.call(room, cmd.GiveChair(seat, chair, level))
            except ProtocolError as exc:
                exc.id = give_id
                raise
        case RematchMsg():
            await router.call(room, cmd.Rematch(seat))
        case ReactMsg(reaction, react_id):
            try:
                await router.call(room, cmd.React(seat, reaction))
            except ProtocolError as exc:
                exc.id = react_id
                raise
        case Ping():
            sock.deliver(encode(Pong()))
        case Hello() | WatchMsg():
            raise ProtocolError("already_hello")
        case _:
            assert_never(message)
