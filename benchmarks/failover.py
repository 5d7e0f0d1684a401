"""Failover after SIGKILL (a module of ``cluster.py``, not a script): rooms play with bots
that behave like the browser, the process owning most of them is killed with SIGKILL and
started again, and for each room it owned the time from the kill to the room's next
acknowledged move is measured."""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import time
from dataclasses import dataclass, field
from typing import Any, Protocol

import benchkit
import httpx
import load
import websockets


class Killable(Protocol):
    name: str

    def kill9(self) -> None: ...
    def start(self) -> Any: ...


class Cluster(Protocol):
    """What the failover needs of ``cluster.Setup``."""

    @property
    def servers(self) -> list[str]: ...
    @property
    def procs(self) -> Any: ...
    async def rows(self, query: str, *params: Any) -> list[Any]: ...


# -- failover --------------------------------------------------------------------------------


class Reconnect(Exception):
    """The server said ``reconnecting`` (or moved the seat): say hello elsewhere."""


@dataclass
class Failover:
    """Which rooms wait for their next acknowledged move since the last kill."""

    kill_at: float = 0.0
    waiting: set[str] = field(default_factory=set)
    times: list[float] = field(default_factory=list)
    acks: int = 0
    guard: float = 0.1  # an ack arriving this soon after the kill was on its way already

    def acked(self, room: str | None) -> None:
        self.acks += 1
        now = time.time()
        if room in self.waiting and now > self.kill_at + self.guard:
            self.waiting.discard(room)
            self.times.append(now - self.kill_at)


class Seat:
    """One seat played like the browser: on a closed socket (or ``reconnecting``) it says
    hello to the next server with the last seq it saw; a move whose answer did not come is
    sent again with the same id and seq."""

    def __init__(
        self,
        token: str,
        room: str,
        servers: list[str],
        first: int,
        rng: random.Random,
        failover: Failover,
    ) -> None:
        self.token, self.servers, self.next = token, servers, first
        self.rng, self.failover = rng, failover
        self.room: str | None = None
        self.room_id = room  # the room's name in its websocket's address (/ws/<room>)
        self.since: int | None = None
        self.pending: dict[str, Any] | None = None  # the move message not yet answered
        self.counter = 0
        self.rematched = -1
        self.reconnects = 0
        self.errors: dict[str, int] = {}

    async def run(self, stop: asyncio.Event) -> None:
        while not stop.is_set():
            server = self.servers[self.next % len(self.servers)]
            self.next += 1
            try:
                async with websockets.connect(
                    load.ws_url(server, self.room_id),
                    open_timeout=10,
                    ping_interval=None,
                    compression=None,
                    **benchkit.source(),
                ) as ws:
                    await ws.send(
                        json.dumps(
                            {
                                "type": "hello",
                                "version": 3,
                                "token": self.token,
                                "since": self.since,
                            }
                        )
                    )
                    await self.play(ws, stop)
            except (OSError, TimeoutError, websockets.WebSocketException, Reconnect):
                pass
            if not stop.is_set():
                self.reconnects += 1
                await asyncio.sleep(self.rng.uniform(0.05, 0.15))

    async def play(self, ws: Any, stop: asyncio.Event) -> None:
        view: dict[str, Any] | None = None
        due: float | None = None  # when to send the next move
        heard = time.monotonic()
        while not stop.is_set():
            wait = 15.0 - (time.monotonic() - heard)
            if due is not None:
                wait = min(wait, due - time.monotonic())
            try:
                text = await asyncio.wait_for(ws.recv(), max(0.0, wait))
            except TimeoutError:
                if time.monotonic() - heard >= 15.0:
                    raise  # nothing for 15 s: try another server
                text = None
            if text is not None:
                heard = time.monotonic()
                msg = json.loads(text)
                kind = msg["type"]
                if kind == "welcome":
                    self.room, self.since, view = msg["room"], msg["seq"], msg["view"]
                    if self.pending is not None:  # its answer was lost: the same id again
                        await ws.send(json.dumps(self.pending))
                elif kind == "events":
                    # a move's frame: its move part over the whole view (protocol 3)
                    self.since, view = msg["seq"], {**(view or {}), **msg["view"]}
                    if self.pending is not None and msg.get("id") == self.pending["id"]:
                        self.answered()
                elif kind == "ack":
                    if self.pending is not None and msg["id"] == self.pending["id"]:
                        self.answered()
                elif kind == "error":
                    code = msg["code"]
                    self.errors[code] = self.errors.get(code, 0) + 1
                    if code == "reconnecting":
                        raise Reconnect
                    if self.pending is not None and msg.get("id") == self.pending["id"]:
                        self.pending = None  # stale, not_your_turn: never played
                elif kind == "seat_moved":
                    raise Reconnect
            if view is None or self.pending is not None:
                continue
            if view["status"] == "finished" and self.rematched != view["match"]:
                self.rematched = view["match"]
                await ws.send('{"type":"rematch"}')
            elif view["status"] == "playing" and view["turn"] == view["seat"] and view["options"]:
                if due is None:
                    due = time.monotonic() + self.rng.uniform(0.2, 0.5)
                elif time.monotonic() >= due:
                    due = None
                    move = benchkit.pick_move(view)
                    if move is None:
                        continue
                    self.counter += 1
                    self.pending = {
                        "type": "move",
                        "move": move,
                        "seq": view["seq"],
                        "id": f"{self.token[:8]}-{self.counter}",
                    }
                    await ws.send(json.dumps(self.pending))
            else:
                due = None

    def answered(self) -> None:
        self.pending = None
        self.failover.acked(self.room)


async def failover_run(setup: Cluster, rooms: int, kills: int, seed: int) -> dict[str, Any]:
    failover, stop = Failover(), asyncio.Event()
    servers = setup.servers
    seats: list[Seat] = []
    sem = asyncio.Semaphore(16)
    async with contextlib.AsyncExitStack() as stack:
        https = [
            await stack.enter_async_context(httpx.AsyncClient(base_url=s, timeout=60))
            for s in servers
        ]
        pairs = await asyncio.gather(
            *(benchkit.make_room(https[i % len(servers)], sem) for i in range(rooms))
        )
    for i, (token_a, token_b, _, room) in enumerate(pairs):
        for j, token in enumerate((token_a, token_b)):
            rng = random.Random(f"{seed}:{i}:{j}")
            seats.append(Seat(token, room, servers, i + j, rng, failover))
    tasks = [asyncio.create_task(seat.run(stop)) for seat in seats]
    per_kill: list[dict[str, Any]] = []
    try:
        await asyncio.sleep(3)  # every room taken and playing
        for k in range(kills):
            ids = sorted({s.room for s in seats if s.room is not None})
            owned = await setup.rows(
                "select id, owner from rooms where id = any($1::text[]) and owner is not null", ids
            )
            by_node: dict[str, list[str]] = {}
            for row in owned:
                by_node.setdefault(row["owner"].split("-")[0], []).append(row["id"])
            name = max(by_node, key=lambda n: len(by_node[n]))
            victim = next(p for p in setup.procs if p.name == name)
            failover.waiting = set(by_node[name])
            affected = len(failover.waiting)
            before = len(failover.times)
            failover.kill_at = time.time()
            victim.kill9()
            restart = asyncio.create_task(asyncio.to_thread(victim.start))
            deadline = time.monotonic() + 60
            while failover.waiting and time.monotonic() < deadline:
                await asyncio.sleep(0.05)
            await restart
            got = failover.times[before:]
            row = {
                "kill": k + 1,
                "victim": name,
                "rooms_affected": affected,
                "rooms_recovered": len(got),
                "max_s": round(max(got, default=0), 2),
                "reconnects": sum(s.reconnects for s in seats),
            }
            per_kill.append(row)
            print("  failover:", json.dumps(row), flush=True)
            failover.waiting = set()
            await asyncio.sleep(1.0)  # the restarted process settles, rooms play on
    finally:
        stop.set()
        await asyncio.gather(*tasks, return_exceptions=True)
    errors: dict[str, int] = {}
    for seat in seats:
        for code, n in seat.errors.items():
            errors[code] = errors.get(code, 0) + n
    times = failover.times
    return {
        "kills": kills,
        "samples": len(times),
        "unrecovered": sum(r["rooms_affected"] - r["rooms_recovered"] for r in per_kill),
        "p50_s": round(benchkit.percentile(times, 0.5), 2),
        "p99_s": round(benchkit.percentile(times, 0.99), 2),
        "max_s": round(max(times, default=float("nan")), 2),
        "acks": failover.acks,
        "errors": errors,
        "per_kill": per_kill,
    }
