"""Several server processes on one PostgreSQL database and one Redis (issue 8): real
``python -m server`` processes, real PostgreSQL and Redis, websocket clients that behave
like the browser (clusterkit.Player). A seat's socket may land on any process; each room
has one owner at a time; a killed owner costs no acknowledged move and plays no seq twice;
Redis and PostgreSQL may go away for a while."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.support.clusterkit import (
    Cluster,
    Player,
    PrivatePostgres,
    PrivateRedis,
    check_nothing_lost_nothing_doubled,
    http_until_ok,
    play_rooms,
)
from tests.support.dbkit import PostgresBackend
from tests.support.services import skip_unless_there
from tests.support.srvkit import TIMEOUT, Client, is_event, play_two, presence, saw


async def test_judging_whether_play_is_done_leaves_the_players_loop_free() -> None:
    """``play_rooms`` judges ``done`` off the players' loop: a judge that blocks (it reads
    the database, a new connection each time) never holds up the players' sockets. Forty
    players judging on their loop held it for seconds at a load of 20: handshakes and
    answers waited unread, and the deploy test's rooms seemed to stand still."""
    loop = asyncio.get_running_loop()
    loop_ran = threading.Event()
    judged_on: list[int] = []

    def done() -> bool:
        judged_on.append(threading.get_ident())
        loop.call_soon_threadsafe(loop_ran.set)  # runs only if the loop is free meanwhile
        return loop_ran.wait(TIMEOUT)

    player = Player(None, "token")  # type: ignore[arg-type]  # done at once: never steps
    await play_rooms([player], done, timeout=TIMEOUT)
    assert judged_on and threading.get_ident() not in judged_on
    assert player.reconnects == 0


@pytest.fixture
def cluster(make_cluster: Callable[..., Cluster]) -> Cluster:
    """Three processes; rooms leave memory 0.3 s after their last socket, a friend's grace
    is 0.3 s."""
    return make_cluster(3, ROOM_IDLE="0.3", GRACE_SECONDS="0.3")


def test_the_processes_share_one_database_and_each_room_has_one_owner(cluster: Cluster) -> None:
    # each process writes its node row when it first claims its lease, which a loaded
    # machine may do after the process already answers: polled to a deadline
    deadline = time.monotonic() + TIMEOUT
    while True:
        nodes = cluster.db.rows("select id from nodes order by id")
        names = [n.split("-")[0] for (n,) in nodes]
        if names == ["p0", "p1", "p2"] or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    assert names == ["p0", "p1", "p2"]
    room = cluster[0].computer_room()
    assert cluster.owner_of(room["room"]) is None  # nobody's until its first visitor


async def test_two_seats_on_two_processes_play_a_whole_match(cluster: Cluster) -> None:
    a, b = cluster[0].friend_room()
    one, _ = await Client.hello(cluster[0], a["token"])
    two, _ = await Client.hello(cluster[1], b["token"])
    owner = cluster.owner_of(a["room"])
    assert owner in (0, 1)
    end = await play_two(one, two, is_event("match_end"))
    await saw(two, is_event("match_end"))
    assert one.view is not None and two.view is not None
    assert one.view["scores"] == two.view["scores"] == end["event"]["scores"]
    assert cluster.owner_of(a["room"]) == owner  # one owner the whole match
    seqs = [
        s
        for (s,) in cluster.db.rows(
            "select seq from moves where room_id = ? order by seq", a["room"]
        )
    ]
    assert seqs == list(range(1, len(seqs) + 1)) and one.view["seq"] == seqs[-1]
    await one.close()
    await two.close()


async def test_a_computer_room_played_from_another_process(cluster: Cluster) -> None:
    room = cluster[2].computer_room("normal")
    first, _ = await Client.hello(cluster[0], room["token"])  # p0 takes the room
    assert cluster.owner_of(room["room"]) == 0
    second, welcome = await Client.hello(cluster[1], room["token"])  # the seat moves to p1
    await saw(first, lambda m: m["type"] == "seat_moved")
    assert cluster.owner_of(room["room"]) == 0 and welcome["seat"] == 0
    player = Player(cluster, room["token"])
    player.client = second
    second.watch = player._watch
    second.view = welcome["view"]
    await play_rooms([player], lambda: bool(player.view and player.view["status"] == "finished"))
    assert cluster.owner_of(room["room"]) == 0
    check_nothing_lost_nothing_doubled(cluster.db, room["room"], [player])


async def test_reconnect_and_rejoin_land_on_other_processes(cluster: Cluster) -> None:
    a, b = cluster[0].friend_room()
    one, _ = await Client.hello(cluster[0], a["token"])
    two, _ = await Client.hello(cluster[1], b["token"])
    await play_two(one, two, lambda m: "view" in m and m["view"]["seq"] >= 6)
    seen = one.seq
    await one.close()
    await saw(two, presence(0, "away"))
    # a move meanwhile, then seat 0 comes back on p2 and gets what it missed from its seq
    if two.view is not None and two.view["turn"] == 1:
        await play_two(two, two, lambda m: "view" in m and m["view"]["seq"] > seen, limit=2)
    again, welcome = await Client.hello(cluster[2], a["token"], since=seen)
    assert [e["seq"] for e in welcome["events"]] == list(range(seen + 1, welcome["seq"] + 1))
    await saw(two, presence(0, "here"))
    # carried to another device: the code is made on p1 and used on p2; the old socket
    # (on p2, whatever process owns the room) is told its seat moved
    code = cluster[1].post("/api/rejoin-codes", {"token": a["token"]}).json()
    moved = cluster[2].post("/api/rejoin", {"code": code["code"]})
    assert moved.status_code == 200, moved.text
    await saw(again, lambda m: m["type"] == "seat_moved")
    three, _ = await Client.hello(cluster[0], moved.json()["token"])
    assert three.view is not None and three.view["seq"] == welcome["seq"]
    for client in (two, three):
        await client.close()


async def test_takeover_and_rematch_across_processes(cluster: Cluster) -> None:
    a, b = cluster[1].friend_room()
    one, _ = await Client.hello(cluster[0], a["token"])
    two, _ = await Client.hello(cluster[1], b["token"])
    await play_two(one, two, lambda m: "view" in m and m["view"]["seq"] >= 4)
    await two.close()  # the friend leaves; after the grace, seat 0 hands the seat over
    await saw(one, presence(1, "away"))
    deadline = time.monotonic() + 10
    while True:
        await one.send({"type": "takeover", "level": "facil"})
        answer = await one.recv_until(lambda m: m["type"] in ("presence", "error"))
        if answer["type"] == "presence" and answer["presence"]["state"] == "computer":
            break
        assert answer["type"] == "error" and answer["code"] == "too_early", answer
        assert time.monotonic() < deadline
    end = await play_two(one, one, is_event("match_end"))
    assert end["event"]["kind"] == "match_end"
    await one.send({"type": "rematch"})  # the computer in seat 1 wants one too
    rematch = await saw(one, is_event("rematch"))
    assert rematch["view"]["match"] == 2
    back, welcome = await Client.hello(cluster[2], b["token"])  # the friend returns on p2
    assert welcome["view"]["match"] == 2 and welcome["view"]["players"][1]["kind"] == "person"
    await saw(one, presence(1, "here"))
    for client in (one, back):
        await client.close()


async def test_killing_the_owner_loses_no_acknowledged_move(cluster: Cluster) -> None:
    """SIGKILL of the process that owns the rooms, eight times in the middle of play
    (restarted each time): every move a player was told about is stored at its seq, no
    seq is played twice, and every room goes on, on another process."""
    rooms = [cluster[i % 3].computer_room() for i in range(3)]
    friend = cluster[0].friend_room()
    players = [Player(cluster, r["token"], first=i) for i, r in enumerate(rooms)]
    players += [Player(cluster, friend[0]["token"], 0), Player(cluster, friend[1]["token"], 1)]
    kills = 8
    killed: list[int] = []
    stalled: list[str] = []

    def total() -> int:
        return sum(len(p.acked) for p in players)

    async def killer() -> None:
        for _ in range(kills):
            target = total() + 10
            deadline = time.monotonic() + 60
            while total() < target:
                if time.monotonic() > deadline:
                    stalled.append(
                        "; ".join(p.describe() for p in players)
                        + " owners "
                        + str([cluster.owner_of(r["room"]) for r in [*rooms, friend[0]]])
                    )
                    finished.set()
                    return
                await asyncio.sleep(0.05)
            owners = [cluster.owner_of(r["room"]) for r in rooms]
            victim = max(range(3), key=lambda i: owners.count(i))
            await asyncio.to_thread(cluster[victim].kill9)
            killed.append(victim)
            await asyncio.to_thread(cluster[victim].start)
        finished.set()

    finished = asyncio.Event()
    kill_task = asyncio.create_task(killer())
    await play_rooms(players, finished.is_set, timeout=240)
    await kill_task
    assert not stalled, stalled
    # and every room still plays: three more moves each (or its match is over)
    marks = [len(p.acked) for p in players]
    await play_rooms(
        players,
        lambda: all(
            len(p.acked) >= m + 3 or (p.view is not None and p.view["status"] == "finished")
            for p, m in zip(players, marks, strict=True)
        ),
        timeout=120,
    )
    assert len(killed) == kills
    for room, player in zip(rooms, players[:3], strict=True):
        assert check_nothing_lost_nothing_doubled(cluster.db, room["room"], [player]) > 0
    check_nothing_lost_nothing_doubled(cluster.db, friend[0]["room"], players[3:])
    assert sum(p.reconnects for p in players) >= kills


@pytest.fixture
def private_services(pg: PostgresBackend, tmp_path: Path) -> Iterator[tuple[PrivateRedis, Path]]:
    redis = PrivateRedis(tmp_path).start()
    yield redis, tmp_path
    redis.stop()


async def test_redis_restarted_under_play(
    pg: PostgresBackend, private_services: tuple[PrivateRedis, Path]
) -> None:
    """Redis goes away for a while under play: the players are told the server is
    reconnecting, no process crashes, nothing acknowledged is lost, and play resumes by
    itself when Redis is back."""
    redis, tmp = private_services
    cluster = Cluster(tmp, pg.database(tmp), redis.url).start(2)
    try:
        a, b = cluster[0].friend_room()
        room = cluster[1].computer_room()
        players = [
            Player(cluster, a["token"], 0),
            Player(cluster, b["token"], 1),
            Player(cluster, room["token"], 0),
        ]
        await play_rooms(players, lambda: all(len(p.acked) >= 3 for p in players))
        redis.stop()
        marks = [len(p.acked) for p in players]
        # play on (what both seats can reach on one process may go on) until some player
        # was told the server is reconnecting
        await play_rooms(
            players,
            lambda: (
                any("reconnecting" in p.errors for p in players)
                or any(p.reconnects for p in players)
            ),
            timeout=30,
        )
        redis.start()
        await play_rooms(
            players, lambda: all(len(p.acked) >= m + 4 for p, m in zip(players, marks, strict=True))
        )
        assert cluster.alive()
        check_nothing_lost_nothing_doubled(cluster.db, a["room"], players[:2])
        check_nothing_lost_nothing_doubled(cluster.db, room["room"], players[2:])
        for proc in cluster.procs:
            assert "Traceback" not in proc.read_log(), proc.read_log()[-3000:]
    finally:
        cluster.stop()


async def test_postgresql_restarted_under_play(tmp_path: Path, redis_url: str) -> None:
    """PostgreSQL goes away for a while under play (a private server, stopped and started):
    clients get ``reconnecting``, no process crashes, nothing acknowledged is lost, and
    play resumes by itself."""
    skip_unless_there("postgres")
    why = PrivatePostgres.available()
    if why is not None:
        pytest.skip(why)
    postgres = PrivatePostgres()
    cluster = Cluster(tmp_path, postgres.init().database(), redis_url)
    try:
        cluster.start(2)
        a, b = cluster[0].friend_room()
        room = cluster[1].computer_room()
        players = [
            Player(cluster, a["token"], 0),
            Player(cluster, b["token"], 1),
            Player(cluster, room["token"], 1),
        ]
        await play_rooms(players, lambda: all(len(p.acked) >= 3 for p in players))
        await asyncio.to_thread(postgres.stop)
        await play_rooms(
            players,
            lambda: (
                any("reconnecting" in p.errors for p in players)
                or any(p.reconnects for p in players)
            ),
            timeout=30,
        )
        down = http_until_ok  # the HTTP API says so too
        assert (
            cluster[0]
            .post("/api/rooms", {"mode": "computer", "level": "facil"})
            .json()["error"]["code"]
            == "reconnecting"
        )
        await asyncio.to_thread(postgres.start)
        marks = [len(p.acked) for p in players]
        await play_rooms(
            players, lambda: all(len(p.acked) >= m + 4 for p, m in zip(players, marks, strict=True))
        )
        assert (
            down(cluster[0], "/api/rooms", {"mode": "computer", "level": "facil"}).status_code
            == 201
        )
        assert cluster.alive()
        check_nothing_lost_nothing_doubled(cluster.db, a["room"], players[:2])
        check_nothing_lost_nothing_doubled(cluster.db, room["room"], players[2:])
    finally:
        cluster.stop()
        postgres.remove()
