"""Test kit for the server tests: the real server as a subprocess, and a websocket client
that records every message it receives. No mocks of our code."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import resource
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import httpx
import websockets

from tests.support.dbkit import Database, SqliteDb

ROOT = Path(__file__).resolve().parents[2]
PYTHON = sys.executable
TIMEOUT = 10.0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class ServerProc:
    """``python -m server`` on a free port with its database: ``db``, else its own SQLite
    file in ``tmp``."""

    tmp: Path
    env_extra: dict[str, str] = field(default_factory=dict)
    db: Database | None = None
    port: int = 0
    proc: subprocess.Popen[bytes] | None = None
    soft_files: int | None = None  # start the server with this soft open-file limit

    def __post_init__(self) -> None:
        self.database: Database = self.db or SqliteDb(self.tmp / "casino.db")

    @property
    def db_path(self) -> Path:
        """The SQLite file (for tests about SQLite itself)."""
        assert isinstance(self.database, SqliteDb), "not on SQLite"
        return self.database.path

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws"

    def start(self) -> ServerProc:
        self.port = self.port or free_port()
        env = dict(os.environ)
        env.update(
            {
                "DATABASE_URL": self.database.url,
                "PORT": str(self.port),
                "HOST": "127.0.0.1",
                "COMPUTER_DELAY": "0",
                "LOG_LEVEL": "warning",
                "PYTHONUNBUFFERED": "1",
            }
        )
        env.update(self.env_extra)
        # the server writes its log to the file itself: this process keeps no handle of it
        with open(self.tmp / f"server-{self.port}.log", "ab") as log:
            self.proc = subprocess.Popen(
                [PYTHON, "-m", "server"],
                cwd=ROOT,
                env=env,
                stdout=log,
                stderr=log,
                preexec_fn=None if self.soft_files is None else self._lower_file_limit,
            )
        deadline = time.monotonic() + 150  # a busy machine starts Python (and migrates) slowly
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                self.proc = None
                raise RuntimeError(f"server exited: {self.read_log()}")
            try:
                if httpx.get(f"{self.base}/healthz", timeout=1).status_code == 200:
                    return self
            except httpx.HTTPError:
                pass
            time.sleep(0.05)
        self.stop()  # never left running behind a failed start
        raise RuntimeError(f"server did not start: {self.read_log()}")

    def _lower_file_limit(self) -> None:
        hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
        assert self.soft_files is not None
        resource.setrlimit(resource.RLIMIT_NOFILE, (self.soft_files, hard))

    def read_log(self) -> str:
        return (self.tmp / f"server-{self.port}.log").read_text(errors="replace")

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None

    def kill9(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()
        self.proc = None

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    # -- HTTP --------------------------------------------------------------------------

    def post(self, path: str, body: Any, **kw: Any) -> httpx.Response:
        return httpx.post(f"{self.base}{path}", json=body, timeout=TIMEOUT, **kw)

    def get(self, path: str, **kw: Any) -> httpx.Response:
        return httpx.get(f"{self.base}{path}", timeout=TIMEOUT, **kw)

    def computer_room(self, level: str = "facil", name: str = "Ana") -> dict[str, Any]:
        r = self.post("/api/rooms", {"mode": "computer", "level": level, "name": name})
        assert r.status_code == 201, r.text
        return dict(r.json())

    def friend_room(self) -> tuple[dict[str, Any], dict[str, Any]]:
        r = self.post("/api/rooms", {"mode": "friend", "name": "Ana"})
        assert r.status_code == 201, r.text
        a = r.json()
        r = self.post("/api/join", {"invite": a["invite"], "name": "Primo"})
        assert r.status_code == 200, r.text
        return a, r.json()

    # -- the database, read directly -----------------------------------------------------

    def db_rows(self, sql: str, *args: Any) -> list[tuple[Any, ...]]:
        return self.database.rows(sql, *args)

    def db_execute(self, sql: str, *args: Any) -> None:
        self.database.execute(sql, *args)


class Client:
    """One websocket connection; ``log`` keeps every message received."""

    made = 0
    open_now: ClassVar[set[Client]] = set()  # every client not closed yet (close_left_open)

    def __init__(self, ws: Any, token: str | None = None) -> None:
        Client.open_now.add(self)
        self.ws = ws
        self.token = token
        self.log: list[dict[str, Any]] = []
        self.raw: list[str] = []  # every frame as received
        self.frames: list[dict[str, Any]] = []  # every frame, parsed
        self.pending: list[dict[str, Any]] = []
        self.view: dict[str, Any] | None = None
        self.held: dict[str, Any] | None = None  # the whole view, as the browser holds it
        self.seq = 0
        self.counter = 0
        self.watch: Any = None  # called with every message received
        Client.made += 1
        self.prefix = f"c{Client.made}"

    @classmethod
    async def open(cls, server: ServerProc, **kw: Any) -> Client:
        ws = await websockets.connect(server.ws_url, open_timeout=TIMEOUT, **kw)
        return cls(ws)

    @classmethod
    async def hello(
        cls, server: ServerProc, token: str, since: int | None = None, **kw: Any
    ) -> tuple[Client, dict[str, Any]]:
        client = await cls.open(server, **kw)
        client.token = token
        try:
            await client.send({"type": "hello", "version": 3, "token": token, "since": since})
            welcome = await client.recv()
            assert welcome["type"] == "welcome", welcome
        except BaseException:
            await client.close()  # never left open behind a failed hello
            raise
        return client, welcome

    @classmethod
    async def watcher(
        cls, server: ServerProc, code: str, since: int | None = None, **kw: Any
    ) -> tuple[Client, dict[str, Any]]:
        """A watcher: ``watch`` with the watch link's code; the answer is its welcome."""
        client = await cls.open(server, **kw)
        try:
            await client.send({"type": "watch", "version": 3, "code": code, "since": since})
            welcome = await client.recv()
            assert welcome["type"] == "watching", welcome
        except BaseException:
            await client.close()
            raise
        return client, welcome

    async def send(self, message: Any) -> None:
        await self.ws.send(message if isinstance(message, str | bytes) else json.dumps(message))

    async def recv(self, timeout: float = TIMEOUT) -> dict[str, Any]:
        """The next message. An ``events`` frame (one per change) is read as one ``event``
        message per event, then the mover's ``ack``, so tests can wait for either."""
        if not self.pending:
            text = await asyncio.wait_for(self.ws.recv(), timeout)
            self.raw.append(text)
            frame: dict[str, Any] = json.loads(text)
            self.frames.append(frame)
            self.held = apply_frame(self.held, frame)
            self.pending = split_frame(frame, self.held)  # its view whole, as the browser's
            # the whole frame was told at once: logged and watched at once, even if the
            # socket closes before the test reads all of its parts
            self.log.extend(self.pending)
            if self.watch is not None:
                for part in self.pending:
                    self.watch(part)
        message = self.pending.pop(0)
        if "view" in message:
            self.view = message["view"]
            self.seq = message["view"]["seq"]
        return message

    async def recv_until(self, pred: Any, timeout: float = TIMEOUT) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            message = await self.recv(max(0.01, deadline - time.monotonic()))
            if pred(message):
                return message

    async def move(
        self, move: dict[str, Any], seq: int | None = None, move_id: str | None = None
    ) -> dict[str, Any]:
        """Sends a move and returns its answer (ack or error), reading events meanwhile."""
        self.counter += 1
        move_id = move_id or f"{self.prefix}-{self.counter}"
        await self.send(
            {"type": "move", "move": move, "seq": self.seq if seq is None else seq, "id": move_id}
        )
        return await self.recv_until(
            lambda m: m["type"] in ("ack", "error") and m.get("id") == move_id
        )

    async def close(self) -> None:
        Client.open_now.discard(self)
        await self.ws.close()


async def close_left_open() -> None:
    """Closes every client a test left open, at its end: a socket is never left to the
    garbage collector, whose ResourceWarning (an error here) would fail whichever test ran
    then."""
    for client in list(Client.open_now):
        with contextlib.suppress(Exception):  # its server may be gone already
            await asyncio.wait_for(client.close(), TIMEOUT)
        client.ws.transport.abort()  # closed, or given up on: either way, let go
    Client.open_now.clear()


def apply_frame(held: dict[str, Any] | None, frame: dict[str, Any]) -> dict[str, Any] | None:
    """The whole view a client holds after ``frame``, as the browser makes it
    (client/js/lib/heldview.js): a welcome (``welcome``, ``watching``) or a ``state``
    replaces it, a move's ``events`` frame lays its keys (the move part) over it,
    ``presence`` and ``watchers`` patch the keys they tell."""
    kind = frame.get("type")
    if kind in ("welcome", "watching", "state"):
        return dict(frame["view"])
    if held is None:
        return dict(frame["view"]) if kind == "events" else None
    if kind == "events":
        return {**held, **frame["view"]}
    if kind == "presence":
        presence = list(held["presence"])
        presence[frame["seat"]] = frame["presence"]
        return {**held, "presence": presence}
    if kind == "watchers":
        return {**held, "watchers": frame["count"]}
    return held


def split_frame(frame: dict[str, Any], held: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """An ``events`` frame as one ``event`` message per event, then the mover's ``ack``;
    ``held``: the whole view after it (``apply_frame``), which each part carries instead of
    the frame's move part."""
    if frame.get("type") != "events":
        return [frame]
    view = frame["view"] if held is None else held
    parts: list[dict[str, Any]] = [
        {"type": "event", "seq": frame["seq"], "event": e, "view": view} for e in frame["events"]
    ]
    if "id" in frame:
        parts.append({"type": "ack", "id": frame["id"], "seq": frame["seq"]})
    return parts


def is_event(kind: str) -> Any:
    """A predicate: an event of that kind."""
    return lambda m: m["type"] == "event" and m["event"]["kind"] == kind


def presence(seat: int, state: str) -> Any:
    """A predicate: a presence message saying ``seat`` is now ``state``."""
    return lambda m: (
        m["type"] == "presence" and m["seat"] == seat and m["presence"]["state"] == state
    )


def pick_move(view: dict[str, Any]) -> dict[str, Any]:
    """A legal move from the view's options: a capture, else a trail, else a build."""
    options = view["options"]
    assert options, view
    for opt in options:
        if opt["llevarte"]:
            return dict(opt["llevarte"])
    for opt in options:
        if opt["trail"]:
            return {"kind": "trail", "card": opt["card"]}
    for opt in options:
        if opt["builds"]:
            return dict(opt["builds"][0]["move"])
    raise AssertionError(f"no option to play in {view}")


def my_turn(view: dict[str, Any] | None) -> bool:
    return bool(
        view and view["status"] == "playing" and view["turn"] == view["seat"] and view["options"]
    )


def _check(client: Client, start: int, stop: Any) -> dict[str, Any] | None:
    for message in client.log[start:]:
        if stop(message):
            return message
    return None


async def _play(
    watched: Client, players: tuple[Client, ...], stop: Any, limit: int
) -> dict[str, Any]:
    """``players`` play their turns (``pick_move``) until a message to ``watched`` satisfies
    ``stop``. After each move, waits until the other players saw it."""
    checked = 0
    for _ in range(limit):
        found = _check(watched, checked, stop)
        if found is not None:
            return found
        checked = len(watched.log)
        mover = next((p for p in players if my_turn(p.view)), None)
        if mover is None:  # e.g. the computer's move or a move's last events on their way
            await watched.recv()
            continue
        view = mover.view
        assert view is not None
        answer = await mover.move(pick_move(view))
        assert answer["type"] == "ack", answer
        seq = answer["seq"]
        for other in players:
            if other is not mover and other.seq < seq:
                await other.recv_until(lambda m, s=seq: "view" in m and m["view"]["seq"] >= s)
    raise AssertionError("the game did not get there")


async def play_until(client: Client, stop: Any, limit: int = 3000) -> dict[str, Any]:
    """Plays the client's turns against the computer until a received message satisfies
    ``stop``."""
    return await _play(client, (client,), stop, limit)


async def play_two(a: Client, b: Client, stop: Any, limit: int = 3000) -> dict[str, Any]:
    """Two people (seat 0 ``a``, seat 1 ``b``) play until a message to ``a`` satisfies
    ``stop``."""
    return await _play(a, (a, b), stop, limit)


async def saw(client: Client, pred: Any, timeout: float = TIMEOUT) -> dict[str, Any]:
    """The first message already received that satisfies ``pred``, or the next one."""
    found = _check(client, 0, pred)
    return found if found is not None else await client.recv_until(pred, timeout)
