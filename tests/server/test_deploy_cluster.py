"""The cluster deployment (issue 8): docker-compose.yml's profile ``cluster`` and
deploy/haproxy.cfg point where they should (no Docker engine runs here), HAProxy accepts the
file, and the very file, its backends swapped for two real server processes on one
PostgreSQL and one Redis, balances requests and websockets round robin over them, with the
player's address forwarded."""

from __future__ import annotations

import ipaddress
import os
import re
import secrets
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
import websockets
import yaml
from starlette.routing import Route

from server.config import Settings
from server.web.routes import routes
from tests.support.dbkit import Database
from tests.support.srvkit import TIMEOUT, Client, ServerProc, free_port, play_two, play_until

ROOT = Path(__file__).resolve().parents[2]
COMPOSE = ROOT / "docker-compose.yml"
HAPROXY_CFG = ROOT / "deploy" / "haproxy.cfg"
CLUSTER = {"postgres", "redis", "casino-a", "casino-b", "haproxy"}
GAMES = ("casino-a", "casino-b")
BACKENDS = ("games", "rooms")

postgres_only = pytest.mark.parametrize("backend", ["postgres"], indirect=True)


# -- reading the two files ---------------------------------------------------------------------


def compose() -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load(COMPOSE.read_text())
    return loaded


def haproxy_sections(text: str) -> dict[str, list[list[str]]]:
    """``"backend games"`` -> its directives, each split in words (comments dropped)."""
    sections: dict[str, list[list[str]]] = {}
    current: list[list[str]] | None = None
    for raw in text.splitlines():
        line = raw.split("#", 1)[0].rstrip()
        if not line.strip():
            continue
        if not line[0].isspace():
            current = sections.setdefault(" ".join(line.split()), [])
        else:
            assert current is not None, raw
            current.append(line.split())
    return sections


def directives(section: list[list[str]], *words: str) -> list[list[str]]:
    """The lines of ``section`` that begin with ``words``, the rest of each line."""
    n = len(words)
    return [line[n:] for line in section if line[:n] == list(words)]


def seconds(value: str) -> float:
    number, unit = re.fullmatch(r"(\d+)(ms|s|m|h|d)?", value).groups()  # type: ignore[union-attr]
    return int(number) * {"ms": 0.001, "s": 1, None: 0.001, "m": 60, "h": 3600, "d": 86400}[unit]


def one(section: list[list[str]], *words: str) -> list[str]:
    found = directives(section, *words)
    assert len(found) == 1, (words, found)
    return found[0]


# -- the files point where they should ----------------------------------------------------------


def test_the_default_service_is_as_before_and_outside_the_profile() -> None:
    services = compose()["services"]
    assert "profiles" not in services["casino"]  # `docker compose up` starts it alone
    assert services["casino"]["environment"]["DATABASE_URL"].startswith("sqlite+aiosqlite:")
    assert "REDIS_URL" not in services["casino"]["environment"]
    for name in CLUSTER:
        assert services[name]["profiles"] == ["cluster"], name
    assert set(services) == CLUSTER | {"casino"}


def test_the_game_processes_use_the_cluster_database_and_redis() -> None:
    services = compose()["services"]
    assert services["postgres"]["image"] == "postgres:15"
    assert services["redis"]["image"] == "redis:7"
    pg_env = services["postgres"]["environment"]
    names = set()
    for name in GAMES:
        game = services[name]
        assert game["build"] == services["casino"]["build"] == "."  # one image
        assert game["command"] == ["python", "-m", "server"]
        env = game["environment"]
        names.add(env["NODE_NAME"])
        db = urlsplit(env["DATABASE_URL"])
        assert db.scheme in ("postgresql", "postgresql+asyncpg")
        assert (db.hostname, db.port or 5432) == ("postgres", 5432)
        assert (db.username, db.password, db.path) == (
            pg_env["POSTGRES_USER"],
            pg_env["POSTGRES_PASSWORD"],
            "/" + pg_env["POSTGRES_DB"],
        )
        redis = urlsplit(env["REDIS_URL"])
        assert (redis.scheme, redis.hostname, redis.port or 6379) == ("redis", "redis", 6379)
        assert env["HOST"] == "0.0.0.0"
        assert game["expose"] == [env["PORT"]]
        for needed in ("postgres", "redis"):
            assert game["depends_on"][needed]["condition"] == "service_healthy"
        # the settings parse as the server would read them
        settings = Settings.from_env({k: str(v) for k, v in env.items()})
        assert settings.redis_url == env["REDIS_URL"]
    assert names == set(GAMES)  # each process its own name


def test_only_haproxy_publishes_a_port_and_it_is_the_frontend() -> None:
    services = compose()["services"]
    published = {name for name in CLUSTER if services[name].get("ports")}
    assert published == {"haproxy"}
    (port,) = services["haproxy"]["ports"]
    host_port, container_port = port.split(":")
    frontend = haproxy_sections(HAPROXY_CFG.read_text())["frontend casino"]
    assert one(frontend, "bind") == [f":{container_port}"]
    (mount,) = services["haproxy"]["volumes"]
    source, target, mode = mount.split(":")
    assert (ROOT / source).resolve() == HAPROXY_CFG and mode == "ro"
    assert target == "/usr/local/etc/haproxy/haproxy.cfg"  # where the image reads it
    assert services["haproxy"]["image"].startswith("haproxy:")
    assert set(services["haproxy"]["depends_on"]) == set(GAMES)
    for name in GAMES:  # links and QR codes name the site as players reach it
        assert services[name]["environment"]["PUBLIC_ORIGIN"] == f"http://localhost:{host_port}"


def test_the_game_believes_forwarded_headers_from_haproxy_alone() -> None:
    top = compose()
    services = top["services"]
    address = services["haproxy"]["networks"]["cluster"]["ipv4_address"]
    (subnet,) = [c["subnet"] for c in top["networks"]["cluster"]["ipam"]["config"]]
    assert ipaddress.ip_address(address) in ipaddress.ip_network(subnet)
    for name in CLUSTER - {"haproxy"}:
        assert services[name]["networks"] == ["cluster"], name
    for name in GAMES:
        assert services[name]["environment"]["FORWARDED_ALLOW_IPS"] == address
    frontend = haproxy_sections(HAPROXY_CFG.read_text())["frontend casino"]
    assert ["forwardfor"] in directives(frontend, "option")


def test_haproxy_balances_http_round_robin_and_a_rooms_sockets_by_its_hash() -> None:
    """Issue 21: HTTP goes round robin; /ws/<room> by a consistent hash of the path's first
    two levels (the room), over the same game services."""
    services = compose()["services"]
    sections = haproxy_sections(HAPROXY_CFG.read_text())
    frontend = sections["frontend casino"]
    backend = sections[f"backend {one(frontend, 'default_backend')[0]}"]
    assert one(backend, "balance") == ["roundrobin"]
    assert one(frontend, "use_backend") == ["rooms", "if", "{", "path_beg", "/ws/", "}"]
    rooms = sections["backend rooms"]
    assert one(rooms, "balance") == ["uri", "path-only", "depth", "2"]
    assert one(rooms, "hash-type") == ["consistent"]
    for section in (backend, rooms):
        servers = {line[0]: line[1:] for line in directives(section, "server")}
        assert set(servers) == set(GAMES)
        for name, rest in servers.items():
            assert rest[0] == f"{name}:{services[name]['environment']['PORT']}"
            assert "check" in rest
    # no other sticky routing (cookies, stick tables on requests)
    text = HAPROXY_CFG.read_text()
    for sticky in ("cookie ", "stick on", "stick match", "balance source"):
        assert sticky not in text, sticky
    assert "http-server-close" not in text and "httpclose" not in text


def test_health_check_path_is_a_route_of_the_app() -> None:
    backend = haproxy_sections(HAPROXY_CFG.read_text())["backend games"]
    method, path = one(backend, "option", "httpchk")
    app_paths = {
        r.path
        for r in routes(Settings())
        if isinstance(r, Route) and method in (r.methods or set())
    }
    assert method == "GET" and path in app_paths
    assert one(backend, "http-check", "expect") == ["status", "200"]


def test_timeouts_let_websockets_live() -> None:
    defaults = haproxy_sections(HAPROXY_CFG.read_text())["defaults"]
    assert one(defaults, "mode") == ["http"]  # HAProxy upgrades websockets in http mode
    timeouts = {line[0]: seconds(line[1]) for line in directives(defaults, "timeout")}
    assert timeouts["tunnel"] >= 600  # an upgraded websocket; the client pings every 25 s
    assert timeouts["client"] >= 25 and timeouts["server"] >= 25
    assert timeouts["http-request"] <= 30  # a slow-loris request is still cut


# -- HAProxy itself --------------------------------------------------------------------------------


def haproxy() -> str:
    found = shutil.which("haproxy") or shutil.which("haproxy", path="/usr/sbin")
    if found is None:
        if os.environ.get("CI") == "true":
            raise AssertionError("haproxy is not installed (scripts/test.sh installs it)")
        pytest.skip("haproxy is not installed: apt-get install -y haproxy")
    return found


def render(text: str, listen: int, backends: dict[str, int]) -> str:
    """The config with its frontend on 127.0.0.1:``listen`` and each server at a local
    port; every other line as it is."""
    out = []
    for line in text.splitlines():
        words = line.split()
        if words[:1] == ["bind"]:
            line = line.replace(words[1], f"127.0.0.1:{listen}")
        elif words[:1] == ["server"] and words[1] in backends:
            line = line.replace(words[2], f"127.0.0.1:{backends[words[1]]}")
        out.append(line)
    rendered = "\n".join(out) + "\n"
    # the frontend, and each server in both backends (HTTP and the rooms' sockets)
    assert rendered.count("127.0.0.1:") == 1 + 2 * len(backends), rendered
    return rendered


def test_haproxy_accepts_the_config(tmp_path: Path) -> None:
    binary = haproxy()
    checked = subprocess.run(
        [binary, "-c", "-f", str(HAPROXY_CFG)], capture_output=True, text=True, timeout=30
    )
    assert checked.returncode == 0, checked.stderr
    # rendered with addresses it can resolve, not even a warning
    cfg = tmp_path / "haproxy.cfg"
    cfg.write_text(
        render(HAPROXY_CFG.read_text(), free_port(), {name: free_port() for name in GAMES})
    )
    checked = subprocess.run(
        [binary, "-c", "-f", str(cfg)], capture_output=True, text=True, timeout=30
    )
    assert checked.returncode == 0 and "WARNING" not in checked.stdout + checked.stderr, (
        checked.stdout + checked.stderr
    )


@postgres_only
def test_migrations_run_once_when_processes_start_together(db: Database) -> None:
    """Four processes migrating one fresh PostgreSQL database at once (as the compose
    profile's two do): all succeed (an advisory lock, migrations/env.py)."""
    code = f"from server.store.migrate import upgrade; upgrade({db.url!r})"
    procs = [
        subprocess.Popen([sys.executable, "-c", code], cwd=ROOT, stderr=subprocess.PIPE, text=True)
        for _ in range(4)
    ]
    results = [(p.returncode, p.communicate(timeout=120)[1]) for p in procs]
    results = [(p.returncode, err) for p, (_, err) in zip(procs, results, strict=True)]
    assert all(rc == 0 for rc, _ in results), results
    assert db.rows("select count(*) from alembic_version") == [(1,)]


# -- the real thing: HAProxy with the repo's config in front of two processes -----------------


def with_servers(text: str, names: list[str]) -> str:
    """The config with a ``server`` line for each of ``names`` in every backend, each a
    copy of the backend's first one (a process added to the deployment)."""
    out = []
    for line in text.splitlines():
        out.append(line)
        words = line.split()
        if words[:1] == ["server"] and words[1] == GAMES[-1]:
            for name in names:
                out.append(line.replace(GAMES[-1], name))
    return "\n".join(out) + "\n"


class Front:
    """HAProxy running the rendered config (``more``: processes beyond the config's own)."""

    def __init__(
        self, tmp: Path, backends: dict[str, int], port: int = 0, more: list[str] | None = None
    ) -> None:
        self.port = port or free_port()
        self.cfg = tmp / "haproxy.cfg"
        text = with_servers(HAPROXY_CFG.read_text(), more or [])
        self.cfg.write_text(render(text, self.port, backends))
        self.log_path = tmp / "haproxy.log"
        self.log = open(self.log_path, "ab")  # noqa: SIM115
        self.proc = subprocess.Popen(
            [haproxy(), "-db", "-f", str(self.cfg)], stdout=self.log, stderr=self.log
        )
        deadline = time.monotonic() + 30
        while True:
            assert self.proc.poll() is None, self.log_path.read_text()
            try:
                if httpx.get(f"{self.base}/healthz", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert time.monotonic() < deadline, self.log_path.read_text()
            time.sleep(0.05)

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.log.close()


@pytest.fixture
def cluster(
    tmp_path: Path, db: Database, redis_url: str
) -> Iterator[tuple[Front, list[ServerProc]]]:
    """Two processes on one PostgreSQL database and one Redis, started at once (as compose
    starts them), believing HAProxy's X-Forwarded-For, logging each request; HAProxy in
    front."""
    env = {
        "REDIS_URL": redis_url,
        "REDIS_PREFIX": f"casino-test-{secrets.token_hex(4)}",
        "FORWARDED_ALLOW_IPS": "127.0.0.1",
        "ACCESS_LOG": "1",
        "LOG_LEVEL": "info",
        "AI_WORKERS": "1",
        "ROOM_IDLE": "0.2",
        "GRACE_SECONDS": "0.2",
    }
    procs = [ServerProc(tmp_path, env, db) for _ in GAMES]
    errors: list[BaseException] = []

    def start(proc: ServerProc) -> None:
        try:
            proc.start()
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=start, args=(p,)) for p in procs]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    front = None
    try:
        assert not errors, errors
        front = Front(tmp_path, {name: p.port for name, p in zip(GAMES, procs, strict=True)})
        yield front, procs
    finally:
        if front is not None:
            front.stop()
        for proc in procs:
            proc.stop()


def lines_with(proc: ServerProc, needle: str) -> list[str]:
    return [line for line in proc.read_log().splitlines() if needle in line]


@postgres_only
def test_requests_go_round_robin_with_the_players_address(
    cluster: tuple[Front, list[ServerProc]],
) -> None:
    """Six requests from 127.0.0.2 through HAProxy: three reach each process, each seen
    as coming from 127.0.0.2 (HAProxy's X-Forwarded-For, believed)."""
    front, procs = cluster
    probe = secrets.token_hex(4)
    transport = httpx.HTTPTransport(local_address="127.0.0.2")
    with httpx.Client(transport=transport, timeout=TIMEOUT) as http:
        for i in range(6):
            r = http.get(f"{front.base}/healthz?probe={probe}-{i}")
            assert r.status_code == 200 and r.json()["ok"] is True
    deadline = time.monotonic() + TIMEOUT
    while sum(len(lines_with(p, probe)) for p in procs) < 6:
        assert time.monotonic() < deadline, [p.read_log()[-2000:] for p in procs]
        time.sleep(0.05)
    seen = [lines_with(p, probe) for p in procs]
    assert [len(s) for s in seen] == [3, 3], seen
    for line in seen[0] + seen[1]:
        assert "127.0.0.2:" in line, line


@postgres_only
def test_haproxy_checks_the_health_of_each_process(cluster: tuple[Front, list[ServerProc]]) -> None:
    """HAProxy's own checks (``option httpchk``, HTTP/1.0 without a Host) reach /healthz of
    both processes and are answered 200; a stopped process is taken out and every request
    then goes to the other one."""
    front, procs = cluster
    deadline = time.monotonic() + 3 * TIMEOUT
    while not all(lines_with(p, '"GET /healthz HTTP/1.0" 200') for p in procs):
        assert time.monotonic() < deadline, [p.read_log()[-2000:] for p in procs]
        time.sleep(0.05)
    procs[0].stop()
    # each backend checks on its own: the process is out of both (HTTP and the rooms' sockets)
    while not all(f"{b}/casino-a is DOWN" in front.log_path.read_text() for b in BACKENDS):
        assert time.monotonic() < deadline, front.log_path.read_text()
        time.sleep(0.05)
    probe = secrets.token_hex(4)
    for i in range(4):
        r = httpx.get(f"{front.base}/healthz?probe={probe}-{i}", timeout=TIMEOUT)
        assert r.status_code == 200
    while len(lines_with(procs[1], probe)) < 4:  # each line written as its answer went
        assert time.monotonic() < deadline, procs[1].read_log()[-2000:]
        time.sleep(0.05)


async def ws_through(front: Front, token: str) -> Client:
    ws = await websockets.connect(f"ws://127.0.0.1:{front.port}/ws", open_timeout=TIMEOUT)
    client = Client(ws, token)
    await client.send({"type": "hello", "version": 3, "token": token, "since": None})
    welcome = await client.recv()
    assert welcome["type"] == "welcome", welcome
    return client


@postgres_only
async def test_websockets_play_through_haproxy_on_both_processes(
    cluster: tuple[Front, list[ServerProc]],
) -> None:
    """Four computer rooms, each made and played through HAProxy on a websocket of its own:
    the sockets are spread over both processes (the rooms were made on either), and each
    room plays its first few moves."""
    front, procs = cluster
    tokens = []
    for _ in range(4):
        r = httpx.post(
            f"{front.base}/api/rooms",
            json={"mode": "computer", "level": "facil", "name": "Ana"},
            timeout=TIMEOUT,
        )
        assert r.status_code == 201, r.text
        tokens.append(r.json()["token"])
    clients = [await ws_through(front, token) for token in tokens]
    try:
        accepted = [len(lines_with(p, '"WebSocket /ws" [accepted]')) for p in procs]
        assert accepted == [2, 2], accepted  # round robin, websockets too
        for client in clients:
            acks: list[int] = []

            def three_acks(m: dict[str, Any], acks: list[int] = acks) -> bool:
                if m["type"] == "ack":
                    acks.append(m["seq"])
                return len(acks) >= 3

            await play_until(client, three_acks)
            assert acks == sorted(set(acks))  # moves acknowledged once each, in order
    finally:
        for client in clients:
            await client.close()
    for proc in procs:
        assert proc.alive()
        assert "Traceback" not in proc.read_log()


@postgres_only
async def test_a_friend_room_plays_with_its_seats_on_both_processes(
    cluster: tuple[Front, list[ServerProc]],
) -> None:
    """Both seats of one friend room through HAProxy: round robin puts their sockets on
    different processes, and the two play moves that each sees (the processes forward
    between them over Redis)."""
    front, procs = cluster
    with httpx.Client(base_url=front.base, timeout=TIMEOUT) as http:
        r = http.post("/api/rooms", json={"mode": "friend", "name": "Ana"})
        assert r.status_code == 201, r.text
        host = r.json()
        r = http.post("/api/join", json={"invite": host["invite"], "name": "Primo"})
        assert r.status_code == 200, r.text
        guest = r.json()
    before = [len(lines_with(p, '"WebSocket /ws" [accepted]')) for p in procs]
    a = await ws_through(front, host["token"])
    b = await ws_through(front, guest["token"])
    try:
        after = [len(lines_with(p, '"WebSocket /ws" [accepted]')) for p in procs]
        assert [x - y for x, y in zip(after, before, strict=True)] == [1, 1], (before, after)
        start = a.seq
        await play_two(a, b, lambda m: m["type"] == "event" and m["seq"] >= start + 6)
        assert b.seq >= start + 6
        assert a.view is not None and b.view is not None
        assert a.view["seat"] == 0 and b.view["seat"] == 1
    finally:
        await a.close()
        await b.close()
    for proc in procs:
        assert "Traceback" not in proc.read_log()


# -- a room's sockets land on its owner (issue 21) --------------------------------------------


class Through:
    """HAProxy's address for one room's sockets (``/ws/<room>``), standing where the test
    kit expects a server process (``ws_url``)."""

    def __init__(self, front: Front, room: str) -> None:
        self.front = front
        self.room = room

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.front.port}/ws/{self.room}"


class ThroughFront:
    """What clusterkit's players need of a cluster: the one way in, HAProxy, per room."""

    def __init__(self, via: Through) -> None:
        self.procs = [via]

    def live(self) -> list[Through]:
        return self.procs


def metric(server: ServerProc, name: str) -> float:
    text = httpx.get(f"{server.base}/metrics", timeout=TIMEOUT).text
    found = re.search(rf"^{name}(?:_total)? (\S+)$", text, re.M)
    assert found is not None, (name, text[:2000])
    return float(found.group(1))


@postgres_only
async def test_a_rooms_sockets_land_on_its_owner_and_follow_it(
    tmp_path: Path, db: Database, redis_url: str
) -> None:
    """Two processes behind HAProxy with the repository's configuration: both seats and a
    watcher of each of 20 rooms land on one process, the one that takes the room, and no
    frame crosses Redis. A third process joins (HAProxy is given it): the rooms whose
    sockets now land on it move there at their next quiet moment, and again no frame
    crosses once they have."""
    from tests.support.clusterkit import Player, play_rooms

    env = {"REDIS_URL": redis_url, "REDIS_PREFIX": f"casino-test-{secrets.token_hex(4)}",
           "FORWARDED_ALLOW_IPS": "127.0.0.1", "ROOM_IDLE": "60", "GRACE_SECONDS": "60",
           "WS_RATE": "5000", "WS_BURST": "5000", "RATE_ROOMS_PER_MIN": "10000",
           "RATE_JOIN_PER_MIN": "10000",
           "LOG_LEVEL": os.environ.get("TEST_LOG_LEVEL", "warning")}  # fmt: skip
    procs = [ServerProc(tmp_path, env, db).start() for _ in range(2)]
    front = Front(tmp_path, dict(zip(GAMES, [p.port for p in procs], strict=True)))
    players: list[Player] = []
    watchers: dict[str, Client] = {}
    try:
        rooms: list[tuple[str, str, list[Player]]] = []
        with httpx.Client(base_url=front.base, timeout=TIMEOUT) as http:
            for _ in range(20):
                a = http.post("/api/rooms", json={"mode": "friend", "name": "Ana"}).json()
                b = http.post("/api/join", json={"invite": a["invite"], "name": "Primo"}).json()
                code = a["watch_url"].rsplit("/", 1)[1]
                assert http.get(f"/api/watch/{code}").json() == {"room": a["room"]}
                via = ThroughFront(Through(front, a["room"]))
                pair = [Player(via, a["token"]), Player(via, b["token"])]  # type: ignore[arg-type]
                rooms.append((a["room"], code, pair))
                players.extend(pair)
        for room, code, pair in rooms:
            for player in pair:
                await player.connect()
            watchers[room], _ = await Client.watcher(Through(front, room), code)  # type: ignore[arg-type]

        def moved(n: int) -> bool:
            counts = dict(db.rows("select room_id, count(*) from moves group by room_id"))
            return all(counts.get(room, 0) >= n for room, _, _ in rooms)

        await play_rooms(players, lambda: moved(3), 60)
        held = [metric(p, "casino_rooms_held") for p in procs]
        assert sum(held) == 20 and min(held) > 0, held  # the hash spread them
        assert [metric(p, "casino_frames_crossed") for p in procs] == [0, 0]
        assert sum(metric(p, "casino_frames_delivered") for p in procs) > 0
        # a third process joins; HAProxy is given it (its sockets reconnect through it)
        procs.append(ServerProc(tmp_path, env, db).start())
        front.stop()
        names = {
            **dict(zip(GAMES, [p.port for p in procs], strict=False)),
            "casino-c": procs[2].port,
        }
        front = Front(tmp_path, names, port=front.port, more=["casino-c"])
        for room, _, _ in rooms:
            await watchers[room].close()
        await play_rooms(players, lambda: metric(procs[2], "casino_rooms_held") > 0
                         and moved(6), 90)  # fmt: skip
        for room, code, _ in rooms:
            watchers[room], _ = await Client.watcher(Through(front, room), code)  # type: ignore[arg-type]
        # every room on the process its sockets land on: play on, nothing crosses
        await play_rooms(players, lambda: moved(7), 60)
        quiet = time.monotonic() + 2.5  # longer than a room's quiet moment: handoffs done
        await play_rooms(players, lambda: time.monotonic() > quiet, 30)
        crossed = [metric(p, "casino_frames_crossed") for p in procs]
        await play_rooms(players, lambda: moved(10), 60)
        assert [metric(p, "casino_frames_crossed") for p in procs] == crossed
        assert metric(procs[2], "casino_rooms_held") > 0
        assert sum(metric(p, "casino_handoffs") for p in procs) > 0
    finally:
        for player in players:
            await player.drop()
        for watcher in watchers.values():
            await watcher.close()
        front.stop()
        for proc in procs:
            proc.stop()
