"""Restarts: a clean stop and a kill -9 in the middle of a game lose nothing anybody was
told about, and the game goes on."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Callable
from typing import Any

import pytest
import websockets

from tests.support.srvkit import Client, ServerProc, pick_move, play_two, play_until


def told(*clients: Client) -> dict[int, dict[str, Any]]:
    """seq -> the move event any client was told about."""
    seen: dict[int, dict[str, Any]] = {}
    for client in clients:
        for m in client.log:
            if m["type"] == "event" and m["event"]["kind"] == "move":
                seen[m["seq"]] = m["event"]
    return seen


async def test_restart_mid_game(make_server: Callable[..., ServerProc]) -> None:
    server = make_server().start()
    room = server.computer_room()
    client, _ = await Client.hello(server, room["token"])
    await play_until(client, lambda m: m["type"] == "event" and m["seq"] >= 10)
    before = client.view
    assert before is not None
    await client.close()
    server.stop()
    server.start()
    again, welcome = await Client.hello(server, room["token"], since=4)
    view = welcome["view"]
    assert welcome["seq"] == before["seq"]
    for key in ("hand", "table", "scores", "turn", "captured_counts", "deck_size", "last_move"):
        assert view[key] == before[key], key
    assert [e["seq"] for e in welcome["events"]][0] == 5
    seen = told(client)
    for entry in welcome["events"]:
        if entry["event"]["kind"] == "move":
            assert seen[entry["seq"]] == entry["event"]
    await play_until(again, lambda m: m["type"] == "event" and m["seq"] >= before["seq"] + 6)
    await again.close()


async def test_kill_9_mid_game_loses_nothing_told(make_server: Callable[..., ServerProc]) -> None:
    server = make_server().start()
    a_room, b_room = server.friend_room()
    a, _ = await Client.hello(server, a_room["token"])
    b, _ = await Client.hello(server, b_room["token"])
    far = asyncio.Event()
    a.watch = lambda m: far.set() if m.get("seq", 0) >= 25 else None
    game = asyncio.create_task(play_two(a, b, lambda m: False, limit=100000))
    await asyncio.wait_for(far.wait(), 30)
    server.kill9()  # while both are still sending moves as fast as the server answers
    with contextlib.suppress(Exception):
        await asyncio.wait_for(game, 10)
    assert game.done()
    seen = told(a, b)
    acked = [m["seq"] for c in (a, b) for m in c.log if m["type"] == "ack"]
    highest = max([*seen, *acked])
    assert highest >= 25
    server.start()
    a2, wa = await Client.hello(server, a_room["token"], since=0)
    b2, wb = await Client.hello(server, b_room["token"], since=0)
    assert wa["seq"] >= highest and wb["seq"] == wa["seq"]
    logged = {e["seq"]: e["event"] for e in wa["events"] if e["event"]["kind"] == "move"}
    for seq, event in seen.items():
        assert logged[seq] == event, seq
    rows = server.db_rows("select seq from moves where room_id = ? order by seq", a_room["room"])
    assert [r[0] for r in rows] == list(range(1, wa["seq"] + 1))
    # and the game goes on
    a2.view, a2.seq = wa["view"], wa["seq"]
    b2.view, b2.seq = wb["view"], wb["seq"]
    target = wa["seq"] + 4
    await play_two(a2, b2, lambda m: m["type"] == "event" and m["seq"] >= target)
    await a2.close()
    await b2.close()


async def test_failed_write_drops_the_room_copy_and_clients_reload(
    make_server: Callable[..., ServerProc],
) -> None:
    """A room copy that no longer matches storage (here another writer stored seq 1 behind
    its back, as if a commit went through and the driver failed after) cannot write: the
    write is refused, the room's sockets are told the server is reconnecting and close
    (1012, "reconnect and resume"), and the room is rebuilt from storage."""
    server = make_server().start()
    a_room, b_room = server.friend_room()
    a, wa = await Client.hello(server, a_room["token"])
    b, _ = await Client.hello(server, b_room["token"])
    move = pick_move(wa["view"])
    text = json.dumps(move, separators=(",", ":"))
    server.db_execute(
        "insert into moves (room_id, seq, match_no, seat, move, client_id, "
        "created_at) values (?, 1, 1, 0, ?, null, 0)",
        a_room["room"],
        text,
    )
    server.db_execute(
        "update rooms set seq = 1, version = version + 1 where id = ?", a_room["room"]
    )
    await a.send({"type": "move", "move": move, "seq": 0, "id": "lost"})
    codes = []
    with pytest.raises(websockets.ConnectionClosed) as info:
        for _ in range(10):
            codes.append((await a.recv()).get("code"))
    assert info.value.rcvd is not None and info.value.rcvd.code == 1012
    assert "reconnecting" in codes
    a2, welcome = await Client.hello(server, a_room["token"], since=0)
    assert welcome["seq"] == 1 and welcome["events"][0]["event"]["move"] == move
    b2, wb = await Client.hello(server, b_room["token"], since=0)
    assert wb["seq"] == 1 and wb["view"]["turn"] == 1
    a2.view, a2.seq = welcome["view"], 1
    b2.view, b2.seq = wb["view"], 1
    await play_two(a2, b2, lambda m: m["type"] == "event" and m["seq"] >= 5)
    assert server.alive()
    await a2.close()
    await b2.close()
    await b.close()
