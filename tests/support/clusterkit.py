"""Test kit for several server processes (issue 8): real ``python -m server`` processes on
one PostgreSQL database and one Redis, private PostgreSQL and Redis servers that a test may
stop and start, and a player that behaves like the browser client (reconnects to any
process and resumes from its seq, retries its move with the same id)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import secrets
import shutil
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import asyncpg
import httpx
import websockets

from server.engine import Move
from server.rooms.facts import rematch_event
from server.rooms.history import replay
from tests.support.dbkit import PostgresDb, run
from tests.support.srvkit import TIMEOUT, Client, ServerProc, free_port, my_turn, pick_move

PG_BIN = Path("/usr/lib/postgresql/15/bin")
LEASE = "2.5"  # seconds: a dead process's rooms move within about this long


# -- the processes ---------------------------------------------------------------------------


@dataclass
class Cluster:
    """``n`` server processes (``NODE_NAME`` p0, p1, …) on one database and one Redis."""

    tmp: Path
    db: PostgresDb
    redis_url: str
    env: dict[str, str] = field(default_factory=dict)
    procs: list[ServerProc] = field(default_factory=list)
    # its own channels and keys in the shared Redis: clusters of tests run side by side
    prefix: str = field(default_factory=lambda: f"casino-test-{secrets.token_hex(4)}")

    def start(self, n: int, only: dict[int, dict[str, str]] | None = None) -> Cluster:
        """Starts ``n`` processes (``only``: more settings for some of them, by index)."""
        for i in range(len(self.procs), len(self.procs) + n):
            proc_env = {
                "REDIS_URL": self.redis_url,
                "REDIS_PREFIX": self.prefix,
                "NODE_NAME": f"p{i}",
                "LEASE_SECONDS": LEASE,
                "WS_RATE": "5000",
                "WS_BURST": "5000",
                "RATE_ROOMS_PER_MIN": "10000",
                "RATE_JOIN_PER_MIN": "10000",
                **self.env,
                **(only or {}).get(i, {}),
            }
            self.procs.append(ServerProc(self.tmp, proc_env, self.db).start())
        return self

    def __getitem__(self, i: int) -> ServerProc:
        return self.procs[i]

    def alive(self) -> bool:
        return all(p.alive() for p in self.procs)

    def live(self) -> list[ServerProc]:
        return [p for p in self.procs if p.alive()]

    def owner_of(self, room_id: str) -> int | None:
        """The index of the process that holds the room now (None: nobody)."""
        rows = self.db.rows("select owner from rooms where id = ?", room_id)
        owner = rows[0][0] if rows else None
        if owner is None:
            return None
        return int(owner.split("-")[0].removeprefix("p"))

    def stop(self) -> None:
        for proc in self.procs:
            proc.stop()


class PrivateRedis:
    """A Redis server of the test's own (nothing on disk), to stop and start under play."""

    def __init__(self, tmp: Path) -> None:
        self.port = free_port()
        self.tmp = tmp
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> PrivateRedis:
        self.proc = subprocess.Popen(
            [
                "redis-server",
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                str(self.tmp),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        wait_for_port(self.port)
        return self

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait()
            self.proc = None

    def pause(self) -> None:
        """Redis stands still (SIGSTOP): its clients' sockets stay open, nothing answers."""
        assert self.proc is not None
        self.proc.send_signal(signal.SIGSTOP)

    def resume(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGCONT)


class PrivatePostgres:
    """A PostgreSQL 15 cluster of the test's own (initdb as the postgres user), to stop and
    start under play."""

    def __init__(self) -> None:
        self.port = free_port()
        # not under pytest's tmp: that is private to root, and the server runs as postgres
        self.home = Path(tempfile.mkdtemp(prefix="casino-pg-"))
        self.home.chmod(0o755)
        self.dir = self.home / "pg"
        self.log = self.home / "pg.log"

    @staticmethod
    def available() -> str | None:
        """None, or why this machine cannot run one."""
        if not (PG_BIN / "initdb").exists():
            return f"no {PG_BIN}/initdb"
        if os.geteuid() != 0 or shutil.which("runuser") is None:
            return "needs root (runuser -u postgres) to run a private PostgreSQL"
        return None

    def _as_postgres(self, *args: str) -> None:
        subprocess.run(
            ["runuser", "-u", "postgres", "--", *args],
            check=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            timeout=120,
        )

    def init(self) -> PrivatePostgres:
        self.dir.mkdir()
        shutil.chown(self.dir, "postgres", "postgres")
        self.log.touch()
        shutil.chown(self.log, "postgres", "postgres")
        self._as_postgres(
            str(PG_BIN / "initdb"),
            "-D",
            str(self.dir),
            "-A",
            "trust",
            "-U",
            "postgres",
            "--no-sync",
        )
        return self.start()

    def start(self) -> PrivatePostgres:
        self._as_postgres(
            str(PG_BIN / "pg_ctl"),
            "-D",
            str(self.dir),
            "-l",
            str(self.log),
            "-w",
            "-o",
            f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1 -c fsync=off",
            "start",
        )
        return self

    def stop(self) -> None:
        self._as_postgres(str(PG_BIN / "pg_ctl"), "-D", str(self.dir), "-m", "fast", "-w", "stop")

    def remove(self) -> None:
        with contextlib.suppress(subprocess.CalledProcessError):
            self.stop()
        shutil.rmtree(self.home, ignore_errors=True)

    def database(self, name: str = "casino") -> PostgresDb:
        admin = f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

        async def create() -> None:
            con = await asyncpg.connect(admin, timeout=10)
            try:
                await con.execute(f'create database "{name}"')
            finally:
                await con.close()

        run(create())
        return PostgresDb(f"postgresql://postgres@127.0.0.1:{self.port}/{name}")


def wait_for_port(port: int, timeout: float = 30) -> None:
    import socket

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.02)
    raise RuntimeError(f"nothing listens on {port}")


# -- the players --------------------------------------------------------------------------


class Player:
    """One seat, played like the browser does: when its socket closes (a process died,
    the server is reconnecting) it says hello again to the next live process with the last
    seq it saw; a move whose answer did not come is sent again with the same id. A silent
    socket is waited on, as the browser does (it gives one up after 60 s of silence, longer
    than any test): a socket the server forgot to close makes the test time out. It keeps
    every acked move and every event it was told, by seq, and checks as it goes that its
    seq never goes back (no welcome older than what it was told)."""

    def __init__(self, cluster: Cluster, token: str, first: int = 0) -> None:
        self.cluster = cluster
        self.token = token
        self.next = first  # the process to try first
        self.client: Client | None = None
        self.since: int | None = None
        self.acked: dict[str, int] = {}  # move id -> seq
        self.events: dict[int, list[str]] = {}  # seq -> the events told at it (JSON)
        self.errors: list[str] = []  # error codes received
        self.reconnects = 0
        self.rematched = 0  # the match this player asked a rematch after
        self.counter = 0
        self.pending: tuple[str, dict[str, Any], int] | None = None  # (id, move, seq)
        self.highest = 0  # the highest seq it was told
        self.went_back: list[tuple[int, int]] = []  # (told before, then told by a welcome)
        self.closes = 0  # sockets the server closed
        self.on: int | None = None  # the process its socket is on

    @property
    def view(self) -> dict[str, Any] | None:
        return self.client.view if self.client is not None else None

    def describe(self) -> str:
        view = self.view or {}
        return (
            f"seat {view.get('seat')} seq {view.get('seq')} {view.get('status')} "
            f"turn {view.get('turn')} options {len(view.get('options') or [])} "
            f"pending {self.pending} acked {len(self.acked)} "
            f"reconnects {self.reconnects} errors {self.errors[-5:]}"
        )

    def _watch(self, message: dict[str, Any]) -> None:
        seq = message.get("seq")
        if message["type"] == "welcome" and isinstance(seq, int) and seq < self.highest:
            self.went_back.append((self.highest, seq))
        if isinstance(seq, int) and message["type"] in ("welcome", "event"):
            self.highest = max(self.highest, seq)
        if message["type"] == "event":
            self.since = max(self.since or 0, message["seq"])
            told = json.dumps(message["event"], sort_keys=True)
            seen = self.events.setdefault(message["seq"], [])
            if told not in seen:
                seen.append(told)
        elif message["type"] == "welcome":
            self.since = message["seq"]
        elif message["type"] == "error":
            self.errors.append(message["code"])

    async def connect(self, timeout: float = 40.0) -> None:
        deadline = time.monotonic() + timeout
        while True:
            live = self.cluster.live()
            if live:
                server = live[self.next % len(live)]
                self.on = self.cluster.procs.index(server)
                self.next += 1
                try:
                    client, welcome = await Client.hello(server, self.token, self.since)
                except (
                    OSError,
                    TimeoutError,
                    AssertionError,
                    websockets.exceptions.WebSocketException,
                ):
                    pass
                else:
                    client.watch = self._watch
                    self._watch(welcome)
                    for event in welcome["events"]:
                        self._watch({"type": "event", "seq": event["seq"], "event": event["event"]})
                    client.view = welcome["view"]
                    client.seq = welcome["view"]["seq"]
                    self.client = client
                    return
            if time.monotonic() > deadline:
                raise AssertionError("no process took the seat back")
            await asyncio.sleep(0.1)

    async def drop(self) -> None:
        if self.client is not None:
            with contextlib.suppress(Exception):  # already gone
                await self.client.close()
            self.client = None

    async def step(self) -> None:
        """One thing: plays its move when it is its turn (or sends again the move whose
        answer was lost), else reads the next message; on a closed socket, reconnects."""
        try:
            if self.client is None:
                self.reconnects += 1
                await self.connect()
                return
            client = self.client
            view = client.view
            if (
                view is not None
                and view["status"] == "finished"
                and self.rematched != view["match"]
            ):
                self.rematched = view["match"]  # the next match, to play on
                await client.send({"type": "rematch"})
                return
            if self.pending is None and client.view is not None and my_turn(client.view):
                self.counter += 1
                self.pending = (
                    f"{self.token[:6]}-{self.counter}",
                    pick_move(client.view),
                    client.seq,
                )
            if self.pending is not None:
                move_id, move, seq = self.pending
                answer = await client.move(move, seq, move_id)
                if answer["type"] == "ack":
                    self.acked[move_id] = answer["seq"]
                    self.pending = None
                elif answer["code"] in ("stale", "not_your_turn"):
                    self.pending = None  # the table moved on without it: never played
                else:
                    raise ConnectionError(answer["code"])  # e.g. reconnecting
                return
            await client.recv(timeout=0.5)
        except TimeoutError:
            if self.client is None:
                raise
            # silence: the browser keeps waiting (the test's deadline judges)
        except websockets.exceptions.ConnectionClosed:
            self.closes += 1  # the server closed it (1012 and the like): reconnect
            await self.drop()
        except (OSError, websockets.exceptions.WebSocketException, ConnectionError):
            await self.drop()


async def play_rooms(players: list[Player], done: Any, timeout: float = 120.0) -> None:
    """Every player steps (concurrently, each on its own) until ``done()``, judged before
    each of its steps. ``done`` is called in a thread: it may read the database or a
    server's metrics (blocking calls, a new connection each), and 40 players calling it on
    their own loop held that loop still for seconds under load: their handshakes and
    answers waited unread, sockets were given up and moves sent again, and the rooms
    seemed to stand still."""
    deadline = time.monotonic() + timeout

    async def run_one(player: Player) -> None:
        while not await asyncio.to_thread(done):
            assert time.monotonic() < deadline, "play did not get there: " + "; ".join(
                p.describe() for p in players
            )
            await player.step()

    await asyncio.gather(*(run_one(p) for p in players))


def stored_moves(db: PostgresDb, room_id: str) -> list[tuple[int, int, str | None]]:
    return [
        (int(seq), int(match_no), cid)
        for seq, match_no, cid in db.rows(
            "select seq, match_no, client_id from moves where room_id = ? order by seq", room_id
        )
    ]


def check_nothing_lost_nothing_doubled(db: PostgresDb, room_id: str, players: list[Player]) -> int:
    """Every move a player was told is acked is stored at its seq, with its id; the
    stored seqs run 1, 2, 3, … with no gap but the one seq that opens each next match (its
    rematch event); no seq was ever told as two different events; what each player was
    told is the stored log replayed (``check_told_is_stored``). Returns the number of
    stored moves."""
    check_told_is_stored(db, room_id, players)
    stored = stored_moves(db, room_id)
    expected, previous_match = 1, 1
    for seq, match_no, _ in stored:
        if match_no != previous_match:
            assert match_no == previous_match + 1, stored
            expected += 1  # the rematch's own seq
            previous_match = match_no
        assert seq == expected, (seq, expected, stored)
        expected += 1
    by_id = {cid: seq for seq, _, cid in stored if cid is not None}
    for player in players:
        for move_id, seq in player.acked.items():
            assert by_id.get(move_id) == seq, (move_id, seq, by_id.get(move_id))
        for seq, told in player.events.items():
            kinds = [json.loads(t)["kind"] for t in told]
            # one seq, one change: a move (maybe ending a hand or the match) or a rematch;
            # the same event told twice (a replay after a reconnect) is kept once
            assert len(told) == len(set(told)), (seq, told)
            assert kinds.count("move") <= 1 and kinds.count("rematch") <= 1, (seq, told)
            assert not ("move" in kinds and "rematch" in kinds), (seq, told)
    return len(stored)


def http_until_ok(server: ServerProc, path: str, body: Any) -> httpx.Response:
    """POSTs until the answer is not 503 (the server reconnecting)."""
    deadline = time.monotonic() + TIMEOUT * 3
    while True:
        answer = server.post(path, body)
        if answer.status_code != 503 or time.monotonic() > deadline:
            return answer
        time.sleep(0.1)


# -- the oracle ----------------------------------------------------------------------------


def stored_events(db: PostgresDb, room_id: str) -> dict[int, list[str]]:
    """Every event of the room by seq, as its stored log replays them (JSON, sorted keys):
    each match from its seed and moves, each next match opened by its rematch event."""
    room = db.rows("select seed, match_no from rooms where id = ?", room_id)[0]
    finished = {
        int(m): (str(seed), int(last))
        for m, seed, last in db.rows(
            "select match_no, seed, last_seq from finished_matches where room_id = ?", room_id
        )
    }
    rows = db.rows(
        "select seq, match_no, seat, move, client_id from moves where room_id = ? order by seq",
        room_id,
    )
    events: dict[int, list[str]] = {}
    for match_no in range(1, int(room[1]) + 1):
        seed = finished[match_no][0] if match_no in finished else str(room[0])
        if match_no > 1:
            opened = finished[match_no - 1][1] + 1
            events[opened] = [canonical(json.loads(rematch_event(match_no)))]
        of_match = [r for r in rows if int(r[1]) == match_no]
        played = replay(seed, ((int(r[2]), Move.parse(r[3]), r[4] is None) for r in of_match))
        for row, move in zip(of_match, played, strict=True):
            events[int(row[0])] = [canonical(e) for e in move.events()]
    return events


def canonical(event: Any) -> str:
    return json.dumps(event, sort_keys=True, ensure_ascii=False)


def check_told_is_stored(db: PostgresDb, room_id: str, players: list[Player]) -> int:
    """Each player was told, at each seq it saw, exactly the stored log's events (never an
    event the log does not hold, never one twice); its seq never went back; returns the
    number of seqs the log holds."""
    stored = stored_events(db, room_id)
    for player in players:
        assert player.went_back == [], player.went_back
        for seq, told in player.events.items():
            assert seq in stored, (seq, told)
            assert sorted(canonical(json.loads(t)) for t in told) == sorted(stored[seq]), (
                seq,
                told,
                stored[seq],
            )
        for move_id, seq in player.acked.items():
            ids = db.rows("select client_id from moves where room_id = ? and seq = ?", room_id, seq)
            assert ids == [(move_id,)], (move_id, seq, ids)
    return len(stored)
