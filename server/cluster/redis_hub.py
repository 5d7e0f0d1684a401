"""The hub between server processes, on Redis pub/sub (redis-py asyncio).

Each process subscribes to one channel of its own, ``casino:node:<node id>``, and receives
there three kinds of messages (JSON): frames for the sockets it holds (``frame``), room
commands for the rooms it owns (``call``) and the answers to its own calls (``answer``).
Outgoing messages go through one queue and one sender task, published in order in one
pipeline per batch, so the frames to one socket arrive in the order the room sent them.

Why pub/sub and not streams: the durable record of a room is the database, and a client
that missed frames resumes from ``since`` by replaying stored events. So a message needs no
storage in Redis, only the lowest latency; what happens when Redis blips:

- A message published while Redis is away is lost (pub/sub keeps nothing).
- Every message carries its sender's sequence number for this receiver. A receiver that
  sees a gap, or that loses its subscription, closes with ``reconnecting`` (1012) the
  sockets it holds for rooms owned elsewhere; the browser reconnects at once, to any
  process, and resumes from its last seq. Nothing a player was told is lost or doubled.
- A call whose way is down, or whose answer does not come, is answered
  ``reconnecting``; every command a client may retry is safe to retry (move ids, join and
  rejoin keys). A call to a process nobody listens for (``PUBLISH`` reached no subscriber)
  fails at once with ``PeerGone``: the caller waits for that process's lease to lapse.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
from collections.abc import Awaitable, Callable
from typing import Any

import orjson
import redis.asyncio as redis

from ..protocol import ProtocolError
from .hub import LocalHub, Sink
from .node import node_of
from .peers import Payload, PeerGone, error_from_wire, error_to_wire

log = logging.getLogger("server.redis_hub")

CHANNEL = "casino:node:"
MAX_BATCH = 256
RECONNECT_DELAYS = (0.05, 0.2, 0.5, 1.0, 2.0)

OnCall = Callable[[str, Payload], Awaitable[Any]]  # (room id, command) -> answer


class RedisHub:
    """``Hub`` and ``Peers`` over Redis pub/sub."""

    def __init__(self, url: str, node: str) -> None:
        self.node = node
        self.redis = redis.Redis.from_url(url, socket_timeout=5, socket_connect_timeout=2)
        self.on_call: OnCall | None = None
        # sockets here whose room is owned elsewhere must reconnect: (reason) -> None
        self.on_lost: Callable[[], None] | None = None
        self.local = LocalHub()  # the sockets of this process
        self._out: asyncio.Queue[tuple[str, dict[str, Any]]] = asyncio.Queue()
        self._sent: dict[str, int] = {}  # receiver -> last sequence number sent
        self._seen: dict[str, int] = {}  # sender -> last sequence number received
        self._calls: dict[int, asyncio.Future[Any]] = {}
        self._call_ids = itertools.count(1)
        self._tasks: list[asyncio.Task[None]] = []
        self._handlers: set[asyncio.Task[None]] = set()
        self.subscribed = asyncio.Event()
        self._down = False

    async def start(self) -> None:
        loop = asyncio.get_running_loop()
        self._tasks = [
            loop.create_task(self._listen(), name="redis hub listen"),
            loop.create_task(self._send_loop(), name="redis hub send"),
        ]
        with contextlib.suppress(TimeoutError):  # Redis away at start: play what is local
            await asyncio.wait_for(self.subscribed.wait(), 5)

    async def close(self) -> None:
        """Sends what is queued (a second at most), then stops."""
        for _ in range(100):
            if self._out.empty():
                break
            await asyncio.sleep(0.01)
        for task in [*self._tasks, *self._handlers]:
            task.cancel()
        for task in [*self._tasks, *self._handlers]:
            with contextlib.suppress(BaseException):
                await task
        await self.redis.aclose()

    # -- Fanout ----------------------------------------------------------------------------

    def register(self, room_id: str, channel: int, conn: str, sink: Sink) -> None:
        self.local.register(room_id, channel, conn, sink)

    def unregister(self, room_id: str, channel: int, conn: str) -> None:
        self.local.unregister(room_id, channel, conn)

    def local_rooms(self) -> set[str]:
        return self.local.local_rooms()

    def close_room(self, room_id: str, text: str, code: int) -> None:
        self.local.close_room(room_id, text, code)

    async def publish(
        self, room_id: str, channel: int, conn: str, text: str, close: int | None = None
    ) -> None:
        node = node_of(conn)
        if node == self.node:
            self.local.deliver(room_id, channel, conn, text, close)
            return
        self._post(
            node,
            {
                "kind": "frame",
                "room": room_id,
                "seat": channel,
                "conn": conn,
                "text": text,
                "close": close,
            },
        )

    # -- Peers -----------------------------------------------------------------------------

    async def call(self, node: str, room_id: str, payload: Payload, timeout: float) -> Any:
        call_id = next(self._call_ids)
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._calls[call_id] = future
        self._post(
            node,
            {"kind": "call", "id": call_id, "room": room_id, "command": payload},
        )
        try:
            return await asyncio.wait_for(future, timeout)
        except TimeoutError:
            raise ProtocolError("reconnecting") from None
        finally:
            self._calls.pop(call_id, None)

    # -- sending ---------------------------------------------------------------------------

    def _post(self, node: str, message: dict[str, Any]) -> None:
        n = self._sent.get(node, 0) + 1
        self._sent[node] = n
        message["from"] = self.node
        message["n"] = n
        self._out.put_nowait((node, message))

    async def _send_loop(self) -> None:
        while True:
            batch = [await self._out.get()]
            while not self._out.empty() and len(batch) < MAX_BATCH:
                batch.append(self._out.get_nowait())
            try:
                async with self.redis.pipeline(transaction=False) as pipe:
                    for node, message in batch:
                        pipe.publish(CHANNEL + node, orjson.dumps(message))
                    reached = await pipe.execute()
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                self._sending_failed(batch, exc)
                continue
            for (_, message), count in zip(batch, reached, strict=True):
                if count == 0 and message["kind"] == "call":
                    self._fail_call(message["id"], PeerGone())

    def _sending_failed(self, batch: list[tuple[str, dict[str, Any]]], exc: Exception) -> None:
        # lost: the receivers see the gap in our numbers (or lost Redis themselves)
        log.warning("redis hub: %d messages not sent: %s", len(batch), exc)
        for _, message in batch:
            if message["kind"] == "call":
                self._fail_call(message["id"], ProtocolError("reconnecting"))

    def _fail_call(self, call_id: int, exc: Exception) -> None:
        future = self._calls.get(call_id)
        if future is not None and not future.done():
            future.set_exception(exc)

    # -- receiving -------------------------------------------------------------------------

    async def _listen(self) -> None:
        attempt = 0
        while True:
            try:
                async with self.redis.pubsub() as pubsub:
                    await pubsub.subscribe(CHANNEL + self.node)
                    self._seen.clear()  # a new subscription: every sender starts afresh
                    if self._down:
                        log.warning("redis hub: subscribed again")
                        self._down = False
                    self.subscribed.set()
                    attempt = 0
                    while True:
                        message = await pubsub.get_message(
                            ignore_subscribe_messages=True, timeout=1.0
                        )
                        if message is None:
                            await pubsub.ping()  # a dead server shows here
                            continue
                        if message["type"] == "message":
                            self._receive(orjson.loads(message["data"]))
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                self._lost(exc)
            await asyncio.sleep(RECONNECT_DELAYS[min(attempt, len(RECONNECT_DELAYS) - 1)])
            attempt += 1

    def _lost(self, exc: Exception) -> None:
        self.subscribed.clear()
        if not self._down:
            log.warning("redis hub: subscription lost: %s", exc)
            self._down = True
        for future in self._calls.values():
            if not future.done():
                future.set_exception(ProtocolError("reconnecting"))
        if self.on_lost is not None:
            self.on_lost()

    def _receive(self, message: dict[str, Any]) -> None:
        sender, n = message.get("from", ""), message.get("n", 0)
        last = self._seen.get(sender)
        self._seen[sender] = n
        if last is not None and n != last + 1 and self.on_lost is not None:
            log.warning("redis hub: %d messages from %s lost", n - last - 1, sender)
            self.on_lost()
        match message["kind"]:
            case "frame":
                self.local.deliver(
                    message["room"],
                    message["seat"],
                    message["conn"],
                    message["text"],
                    message["close"],
                )
            case "call":
                task = asyncio.get_running_loop().create_task(self._answer(sender, message))
                self._handlers.add(task)
                task.add_done_callback(self._handlers.discard)
            case "answer":
                future = self._calls.get(message["id"])
                if future is not None and not future.done():
                    if "error" in message:
                        future.set_exception(error_from_wire(message["error"]))
                    else:
                        future.set_result(message["result"])

    async def _answer(self, sender: str, message: dict[str, Any]) -> None:
        answer: dict[str, Any] = {"kind": "answer", "id": message["id"]}
        try:
            if self.on_call is None:
                raise ProtocolError("reconnecting")
            answer["result"] = await self.on_call(message["room"], message["command"])
        except Exception as exc:
            if not isinstance(exc, ProtocolError):
                log.debug("call %s failed: %r", message["command"].get("type"), exc)
            answer["error"] = error_to_wire(exc)
        self._post(sender, answer)


__all__ = ["RedisHub"]
