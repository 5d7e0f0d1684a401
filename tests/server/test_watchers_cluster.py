"""Watchers and reactions across server processes (one PostgreSQL, one Redis): a watcher's
socket may be on any process, its commands reach the room's owner, the owner's frames come
back; the cap and the reaction limit say the same thing from any process; the watchers of
a process that died leave the room."""

from __future__ import annotations

from collections.abc import Callable

import pytest
import websockets

from tests.support.clusterkit import Cluster
from tests.support.srvkit import Client, pick_move, saw


@pytest.fixture
def cluster(make_cluster: Callable[..., Cluster]) -> Cluster:
    return make_cluster(2, MAX_WATCHERS="2", LEASE_SECONDS="2")


def watchers_count(n: int) -> object:
    return lambda m: m["type"] == "watchers" and m["count"] == n


async def test_watchers_on_another_process(cluster: Cluster) -> None:
    a_room, b_room = cluster[0].friend_room()
    code = a_room["watch_url"].removeprefix("/v/")
    a, _ = await Client.hello(cluster[0], a_room["token"])  # p0 takes the room
    b, _ = await Client.hello(cluster[1], b_room["token"])
    assert cluster.owner_of(a_room["room"]) == 0
    far, welcome = await Client.watcher(cluster[1], code)
    assert welcome["room"] == a_room["room"] and "hand" not in welcome["view"]
    near, _ = await Client.watcher(cluster[0], code)
    await saw(a, watchers_count(2))
    # the cap, told from the process that does not own the room, with its number
    late = await Client.open(cluster[1])
    await late.send({"type": "watch", "version": 3, "code": code})
    error = await late.recv()
    assert error["code"] == "watchers_full" and "2 personas" in error["message"], error
    with pytest.raises(websockets.ConnectionClosed):
        await late.recv()
    # a move reaches the far watcher with the watcher's view
    assert a.view is not None
    answer = await a.move(pick_move(a.view))
    assert answer["type"] == "ack"
    got = await far.recv_until(lambda m: m["type"] == "event" and m["seq"] == answer["seq"])
    assert "hand" not in got["view"] and got["view"]["hand_sizes"] == [3, 4]
    # reactions both ways; the limit's own words from a seat on the other process
    await a.send({"type": "react", "reaction": "buena"})
    for client in (b, far, near):
        got = await client.recv_until(lambda m: m["type"] == "reaction")
        assert got == {"type": "reaction", "seat": 0, "reaction": "buena"}
    for n in range(6):
        await b.send({"type": "react", "reaction": "risa", "id": f"b{n}"})
    error = await b.recv_until(lambda m: m["type"] == "error")
    assert error["code"] == "rate_limited" and error["id"] == "b5"
    assert error["message"] == "Muchas reacciones seguidas. Espera unos segundos."
    # the process of the far watcher dies: the owner lets its watchers go
    cluster[1].kill9()
    await a.recv_until(watchers_count(1), timeout=30)
    for client in (a, near):
        await client.close()
