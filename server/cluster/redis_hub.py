"""The hub between server processes, on Redis pub/sub (redis-py asyncio).

Each process subscribes to one channel of its own, ``<REDIS_PREFIX>:node:<node id>``, and
receives there four kinds of messages (JSON): frames for the sockets it holds (``frame``),
room commands for the rooms it owns (``call``), the answers to its own calls (``answer``),
and the other processes' heartbeats (``beat``). Outgoing messages go through one bounded
queue and one sender task, published in order in one pipeline per batch, so the frames to
one socket arrive in the order the room sent them.

Why pub/sub and not streams: the durable record of a room is the database, and a client
that missed frames resumes from ``since`` by replaying stored events. So a message needs no
storage in Redis, only the lowest latency, and every way it can go missing is noticed:

- Every message carries its sender's sequence number for this receiver, and every
  ``BEAT`` seconds each process tells each live peer (and itself) the last number it sent
  it. A receiver that sees a gap, or hears nothing from a live peer for ``SILENCE``
  seconds, closes with ``reconnecting`` (1012) the sockets it holds for *that peer's*
  rooms (``events.peer_lost``): the browser reconnects at once and resumes from its last seq.
  Nothing a player was told is lost or doubled, and a lost *last* frame is noticed within
  about a second, even in a room that waits for that very frame.
- A process that does not hear its own heartbeat for ``SILENCE`` seconds is cut off from
  Redis: it says so (``healthy`` is False, ``/healthz`` answers 503), subscribes again,
  and reports it (``events.cut_off``) so that its remote listeners and routes are dropped.
- A call carries its deadline on the database's clock (``clock``), ``CLOCK_SLACK`` before
  its caller gives up: one that arrives late is dropped, never carried out after its caller
  gave up. A call whose way is down, or
  whose answer does not come, is answered ``reconnecting``; a call to a process nobody
  listens for (``PUBLISH`` reached no subscriber) fails at once with ``PeerGone``.
- The queue holds at most ``MAX_QUEUE`` messages: past that the link is treated as down.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import time
from collections.abc import Callable
from typing import Any

import orjson
import redis.asyncio as redis

from ..protocol import ProtocolError
from .events import ClusterEvents
from .hub import LocalHub, Sink
from .node import node_of
from .peers import Payload, PeerGone, error_from_wire, error_to_wire

log = logging.getLogger("server.redis_hub")

MAX_BATCH = 256
MAX_QUEUE = 20_000  # messages waiting to be published
RECONNECT_DELAYS = (0.05, 0.2, 0.5, 1.0, 2.0)
BEAT = 0.3  # seconds between heartbeats
SILENCE = 1.5  # seconds without a word from a live peer (or from itself) before it is lost
CLOCK_SLACK = 0.2  # seconds: how far two processes' readings of the database's clock may differ


class RedisHub:
    """``Hub`` and ``Peers`` over Redis pub/sub."""

    def __init__(
        self,
        url: str,
        node: str,
        prefix: str = "casino",
        *,
        clock: Callable[[], float] = time.time,
        peers: Callable[[], frozenset[str]] = frozenset,
        events: ClusterEvents | None = None,
    ) -> None:
        self.node = node
        self.prefix = f"{prefix}:node:"
        self.redis = redis.Redis.from_url(
            url, socket_timeout=2, socket_connect_timeout=2, health_check_interval=1
        )
        self.clock = clock  # the database's time (calls' deadlines)
        self.peers = peers  # the live processes (their heartbeats are expected)
        self.events = events or ClusterEvents()  # calls, lost peers, the link lost
        self.local = LocalHub()  # the sockets of this process
        self._out: asyncio.Queue[tuple[str, dict[str, Any]]] = asyncio.Queue(MAX_QUEUE)
        self._sent: dict[str, int] = {}  # receiver -> last sequence number sent
        self._seen: dict[str, int] = {}  # sender -> last sequence number received
        self._heard: dict[str, float] = {}  # sender -> when it was last heard (monotonic)
        self._silent: set[str] = set()  # peers reported lost since they were last heard
        self._expected: dict[str, float] = {}  # peer -> when it was first expected to beat
        self._calls: dict[int, asyncio.Future[Any]] = {}
        self._call_ids = itertools.count(1)
        self._tasks: list[asyncio.Task[None]] = []
        self._handlers: set[asyncio.Task[None]] = set()
        self.subscribed = asyncio.Event()
        self._listener: asyncio.Task[None] | None = None
        self._generation = 0  # the listener that may hand messages on (_restart_listener)
        self._down = False
        self.lost_frames = 0  # counted: frames a receiver saw missing
        self.crossed = 0  # counted: frames published to another process

    @property
    def healthy(self) -> bool:
        """Subscribed, and hearing its own heartbeat."""
        return self.subscribed.is_set() and not self._down

    async def start(self) -> None:
        loop = asyncio.get_running_loop()
        self._listener = loop.create_task(self._listen(), name="redis hub listen")
        self._tasks = [
            loop.create_task(self._send_loop(), name="redis hub send"),
            loop.create_task(self._beat_loop(), name="redis hub beat"),
        ]
        with contextlib.suppress(TimeoutError):  # Redis away at start: play what is local
            await asyncio.wait_for(self.subscribed.wait(), 5)

    async def close(self) -> None:
        """Sends what is queued (a second at most), then stops."""
        for _ in range(100):
            if self._out.empty():
                break
            await asyncio.sleep(0.01)
        tasks = [*self._tasks, *self._handlers, *([self._listener] if self._listener else [])]
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(BaseException):
                await task
        await self.redis.aclose()

    # -- Hub -------------------------------------------------------------------------------

    def register(self, room_id: str, channel: int, conn: str, sink: Sink) -> None:
        self.local.register(room_id, channel, conn, sink)

    def attached(self, room_id: str, channel: int, conn: str) -> None:
        self.local.attached(room_id, channel, conn)

    def unregister(self, room_id: str, channel: int, conn: str) -> None:
        self.local.unregister(room_id, channel, conn)

    def local_rooms(self) -> set[str]:
        return self.local.local_rooms()

    def close_room(
        self, room_id: str, text: str, code: int, *, attached_only: bool = False
    ) -> None:
        self.local.close_room(room_id, text, code, attached_only=attached_only)

    def close_all(self, text: str, code: int) -> None:
        self.local.close_all(text, code)

    async def publish(
        self, room_id: str, channel: int, conn: str, text: str, close: int | None = None
    ) -> None:
        node = node_of(conn)
        if node == self.node:
            self.local.deliver(room_id, channel, conn, text, close)
            return
        self.crossed += 1
        # "seat": the channel's name on the wire since the first release (a rolling deploy)
        message = {"kind": "frame", "room": room_id, "seat": channel, "conn": conn,
                   "text": text, "close": close}  # fmt: skip
        self._post(node, message)

    # -- Peers -----------------------------------------------------------------------------

    async def call(self, node: str, room_id: str, payload: Payload, timeout: float) -> Any:
        call_id = next(self._call_ids)
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._calls[call_id] = future
        message = {"kind": "call", "id": call_id, "room": room_id, "command": payload,
                   "deadline": self._deadline(timeout)}  # fmt: skip
        try:
            if not self._post(node, message):
                raise ProtocolError("reconnecting")
            return await asyncio.wait_for(future, timeout)
        except TimeoutError:
            raise ProtocolError("reconnecting") from None
        finally:
            self._calls.pop(call_id, None)

    def tell(self, node: str, room_id: str, payload: Payload, timeout: float) -> None:
        """A command whose answer nobody waits for (id 0: none is sent)."""
        message = {"kind": "call", "id": 0, "room": room_id, "command": payload,
                   "deadline": self._deadline(timeout)}  # fmt: skip
        self._post(node, message)

    def _deadline(self, timeout: float) -> float:
        """When the receiver must drop a call: ``CLOCK_SLACK`` before the caller gives up,
        so that two processes' readings of the database's clock, a little apart, never let
        a call be carried out after its caller said ``reconnecting``."""
        return self.clock() + timeout - min(CLOCK_SLACK, timeout / 2)

    # -- sending ---------------------------------------------------------------------------

    def _post(self, node: str, message: dict[str, Any]) -> bool:
        """Queues ``message`` for ``node``; False when the queue is full (the link is as
        good as down: the receiver will see the gap)."""
        n = self._sent.get(node, 0) + 1
        self._sent[node] = n
        message["from"] = self.node
        message["n"] = n
        try:
            self._out.put_nowait((node, message))
        except asyncio.QueueFull:
            if not self._down:
                log.warning("redis hub: %d messages wait to be sent: the link is down", MAX_QUEUE)
            return False
        return True

    async def _send_loop(self) -> None:
        while True:
            batch = [await self._out.get()]
            while not self._out.empty() and len(batch) < MAX_BATCH:
                batch.append(self._out.get_nowait())
            try:
                async with self.redis.pipeline(transaction=False) as pipe:
                    for node, message in batch:
                        pipe.publish(self.prefix + node, orjson.dumps(message))
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
        # maybe lost (maybe not: the receivers' numbers tell them which)
        log.warning("redis hub: %d messages not sent: %s", len(batch), exc)
        for _, message in batch:
            if message["kind"] == "call":
                self._fail_call(message["id"], ProtocolError("reconnecting"))

    def _fail_call(self, call_id: int, exc: Exception) -> None:
        future = self._calls.get(call_id)
        if future is not None and not future.done():
            future.set_exception(exc)

    # -- heartbeats ------------------------------------------------------------------------

    async def _beat_loop(self) -> None:
        woke = time.monotonic()
        while True:
            await asyncio.sleep(BEAT)
            slept, woke = time.monotonic() - woke, time.monotonic()
            peers = self.peers() | {self.node}
            for node in peers:
                beat = {"kind": "beat", "from": self.node, "sent": self._sent.get(node, 0)}
                with contextlib.suppress(asyncio.QueueFull):
                    self._out.put_nowait((node, beat))
            if slept > BEAT + SILENCE / 2:
                # this process stood still (a busy machine): what waits unread in its socket
                # is not silence; judged at the next beat, once the listener has read it
                continue
            self._judge(peers)

    def _judge(self, peers: frozenset[str]) -> None:
        """Who has been silent too long: a peer's rooms here are given up; our own silence
        means this process is cut off from Redis."""
        now = time.monotonic()
        for node in peers:
            # a peer is given SILENCE from when it was first expected, not from our start
            heard = self._heard.get(node) or self._expected.setdefault(node, now)
            if now - heard <= SILENCE:
                continue
            if node == self.node:
                if self.subscribed.is_set() and node in self._heard:
                    log.warning("redis hub: %s does not hear itself: cut off", self.node)
                    self._restart_listener()
            elif node not in self._silent:
                self._silent.add(node)
                log.warning("redis hub: nothing from %s for %.1f s", node, now - heard)
                self.events.peer_lost(node)

    def _restart_listener(self) -> None:
        self._down = True
        self.subscribed.clear()
        if self._listener is not None:
            self._listener.cancel()
        self._lost(ConnectionError("no heartbeat of its own"))
        self._heard[self.node] = time.monotonic()  # give the new subscription its chance
        self._generation += 1  # the old listener, should its cancel be lost, hears no more
        self._listener = asyncio.get_running_loop().create_task(self._listen())

    # -- receiving -------------------------------------------------------------------------

    async def _listen(self) -> None:
        generation = self._generation
        attempt = 0
        while generation == self._generation:
            try:
                async with self.redis.pubsub() as pubsub:
                    await pubsub.subscribe(self.prefix + self.node)
                    self._seen.clear()  # a new subscription: every sender starts afresh
                    # its own heartbeat is awaited from now (those before were lost)
                    self._heard[self.node] = time.monotonic()
                    self.subscribed.set()
                    attempt = 0
                    # (redis-py can lose a cancel inside get_message: a listener that was
                    # replaced stops by itself, before it hands on a message twice)
                    while generation == self._generation:
                        message = await pubsub.get_message(
                            ignore_subscribe_messages=True, timeout=1.0
                        )
                        if generation != self._generation:
                            return
                        if message is not None and message["type"] == "message":
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
        self.events.cut_off()

    def _receive(self, message: dict[str, Any]) -> None:
        sender = message.get("from", "")
        self._heard[sender] = time.monotonic()
        self._silent.discard(sender)
        if sender == self.node and self._down:
            log.warning("redis hub: %s hears itself again", self.node)
            self._down = False
        if message["kind"] == "beat":
            sent = int(message.get("sent", 0))
            seen = self._seen.get(sender)
            if seen is None or sent < seen:
                self._seen[sender] = sent  # the first word of a sender (or it started again)
            elif sent > seen:
                self._gap(sender, sent - seen)
                self._seen[sender] = sent
            return
        n = message.get("n", 0)
        last = self._seen.get(sender)
        if last is not None and n <= last:
            # heard already (a sender's numbers only go up: a new process is a new node)
            log.info("redis hub: message %d from %s heard twice: dropped", n, sender)
            return
        self._seen[sender] = n
        if last is not None and n != last + 1:
            self._gap(sender, n - last - 1)
        match message["kind"]:
            case "frame":
                self.local.deliver(
                    message["room"], message["seat"], message["conn"], message["text"],
                    message["close"],
                )  # fmt: skip
            case "call":
                deadline = message.get("deadline")
                if deadline is not None and self.clock() > deadline:
                    log.info("redis hub: a call from %s came too late: dropped", sender)
                    return
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

    def _gap(self, sender: str, missing: int) -> None:
        self.lost_frames += max(0, missing)
        log.warning("redis hub: %d messages from %s lost", missing, sender)
        self.events.peer_lost(sender)

    async def _answer(self, sender: str, message: dict[str, Any]) -> None:
        answer: dict[str, Any] = {"kind": "answer", "id": message["id"]}
        try:
            answer["result"] = await self.events.call(message["room"], message["command"])
        except Exception as exc:
            if not isinstance(exc, ProtocolError):
                log.debug("call %s failed: %r", message["command"].get("type"), exc)
            answer["error"] = error_to_wire(exc)
        if message["id"]:
            self._post(sender, answer)


__all__ = ["RedisHub"]
