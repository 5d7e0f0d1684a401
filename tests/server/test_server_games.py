"""Whole games over real websockets against the real server."""

from __future__ import annotations

import asyncio
import json
import time

import httpx

import server.ai as ai
from tests.support.srvkit import (
    Client,
    ServerProc,
    is_event,
    my_turn,
    pick_move,
    play_two,
    play_until,
    presence,
    saw,
)


async def test_whole_match_against_the_computer(server: ServerProc) -> None:
    room = server.computer_room("facil")
    client, welcome = await Client.hello(server, room["token"])
    view = welcome["view"]
    assert welcome["seat"] == 0 and welcome["seq"] == 0 and welcome["events"] == []
    assert view["turn"] == 0 and view["dealer"] == 1 and len(view["hand"]) == 4
    assert view["players"] == [
        {"kind": "person", "level": None, "chair": "person", "named": True},
        {"kind": "computer", "level": "facil", "chair": "computer", "named": False},
    ]
    assert view["presence"][1] == {"state": "computer", "grace_left": None, "level": "facil"}
    assert view["presence"][0] == {"state": "here", "grace_left": None, "level": None}
    assert [o["card"] for o in view["options"]] == view["hand"]
    end = await play_until(client, is_event("match_end"))
    assert end["view"]["status"] == "finished"
    winner = end["event"]["winner"]
    assert winner in (0, 1) and end["event"]["scores"][winner] >= 21
    assert end["view"]["scores"] == end["event"]["scores"]  # the final scores, not the hand's
    assert end["view"]["options"] == []
    # seqs only grow, by one per move, and the computer's moves came through the same path
    seqs = [m["seq"] for m in client.log if m["type"] == "event"]
    assert seqs == sorted(seqs) and seqs[-1] == end["view"]["seq"]
    movers = {
        m["event"]["seat"]
        for m in client.log
        if m["type"] == "event" and m["event"]["kind"] == "move"
    }
    assert movers == {0, 1}
    moves = server.db_rows(
        "select count(*) from moves m join rooms r on r.id = m.room_id where r.id = ?", room["room"]
    )
    assert moves[0][0] == end["view"]["seq"]
    summary = server.get(f"/api/rooms/{room['room']}").json()
    assert summary["status"] == "finished" and summary["winner"] == winner
    # Mis partidas says who won (not the client, from the scores)
    (listed,) = server.post("/api/my-games", {"tokens": [room["token"]]}).json()["games"]
    assert listed["status"] == "finished" and listed["winner"] == winner
    # each hand's result says which categories could score for each seat: with 18 or more
    # at the hand's start only the first three (RULES.md 6), and nothing where none could
    ends = [
        m["event"] for m in client.log if m["type"] == "event" and m["event"]["kind"] == "hand_end"
    ]
    assert len(ends) >= 2
    for hand_end in ends:
        result = hand_end["result"]
        for seat in (0, 1):
            limited = result["scores_before"][seat] >= 18
            assert result["limited"][seat] == limited
            assert result["eligible"][seat] == [not limited or k < 3 for k in range(6)]
            for k in range(6):
                if not result["eligible"][seat][k]:
                    assert result["points"][seat][k] == 0, result
    assert "token" not in str(summary)
    # rematch: the computer accepts at once; a new match with a new deal starts
    await client.send({"type": "rematch"})
    event = await client.recv_until(is_event("rematch"))
    assert event["event"]["match"] == 2 and event["seq"] == end["view"]["seq"] + 1
    assert event["view"]["status"] == "playing" and event["view"]["scores"] == [0, 0]
    answer = await client.move(pick_move(event["view"]))
    assert answer == {"type": "ack", "id": answer["id"], "seq": event["seq"] + 1}
    await client.close()


async def test_normal_level_plays(server: ServerProc) -> None:
    assert "normal" in ai.LEVELS
    room = server.computer_room("normal")
    client, welcome = await Client.hello(server, room["token"])
    assert welcome["view"]["players"][1]["level"] == "normal"
    deal = await play_until(client, is_event("deal"))
    # the first round: four moves each, the computer's among them, then four new cards
    assert deal["seq"] == 8 and len(deal["view"]["hand"]) == 4
    computer_moves = [
        m
        for m in client.log
        if m["type"] == "event" and m["event"]["kind"] == "move" and m["event"]["seat"] == 1
    ]
    assert len(computer_moves) == 4
    await client.close()


async def test_two_people_play_a_whole_hand(server: ServerProc) -> None:
    a_room, b_room = server.friend_room()
    assert a_room["invite_url"] == f"/j/{a_room['invite']}"
    a, wa = await Client.hello(server, a_room["token"])
    b, wb = await Client.hello(server, b_room["token"])
    assert wa["view"]["names"] == ["Ana", "Primo"] and wb["view"]["seat"] == 1
    assert wb["view"]["options"] == [] and wa["view"]["options"]
    await a.recv_until(presence(1, "here"))
    end = await play_two(a, b, is_event("hand_end"))
    result = end["event"]["result"]
    assert result["categories"][0] == "Cartas" and len(result["points"]) == 2
    await saw(b, is_event("hand_end"))
    # the next hand was dealt: the other dealer, four cards each
    view = end["view"]
    if view["status"] == "playing":
        assert view["dealer"] == 0 and view["hand_number"] == 1 and len(view["hand"]) == 4
    # a resent move id gets the same answer and is played once
    mover = a if my_turn(a.view) else b
    assert mover.view is not None
    move = pick_move(mover.view)
    first = await mover.move(move, move_id="same-id")
    again = await mover.move(move, seq=first["seq"] - 1, move_id="same-id")
    assert first == again and first["type"] == "ack"
    assert server.db_rows("select count(*) from moves where client_id = 'same-id'") == [(1,)]
    await a.close()
    await b.close()


async def test_reload_resumes_from_since(server: ServerProc) -> None:
    room = server.computer_room()
    client, _ = await Client.hello(server, room["token"])
    await play_until(client, lambda m: m["type"] == "event" and m["seq"] >= 6)
    seen = [m for m in client.log if m["type"] == "event"]
    await client.close()
    again, welcome = await Client.hello(server, room["token"], since=3)
    assert [(e["seq"], e["event"]) for e in welcome["events"]] == [
        (m["seq"], m["event"]) for m in seen if m["seq"] > 3
    ][: len(welcome["events"])]
    assert welcome["events"][0]["seq"] == 4 and welcome["seq"] >= 6
    assert welcome["view"]["seq"] == welcome["seq"]
    # a move with the seq from before is stale and changes nothing; the current one works
    if my_turn(welcome["view"]):
        stale = await again.move(pick_move(welcome["view"]), seq=3)
        assert stale["code"] == "stale"
        ok = await again.move(pick_move(welcome["view"]))
        assert ok["type"] == "ack" and ok["seq"] == welcome["seq"] + 1
    await again.close()
    # a second tab with the same token replaces the first one
    one, _ = await Client.hello(server, room["token"])
    two, _ = await Client.hello(server, room["token"])
    # (the computer's answer to the last move may reach ``one`` first, and its own presence:
    # every seat is told each seat's, its own too)
    moved = await one.recv_until(lambda m: m["type"] not in ("event", "presence"))
    assert moved == {"type": "seat_moved", "rejoined": False}  # the token still works
    await two.send({"type": "ping"})
    assert (await two.recv()) == {"type": "pong"}
    await two.close()


async def test_rejoin_on_another_device(server: ServerProc) -> None:
    room = server.computer_room()
    old, _ = await Client.hello(server, room["token"])
    await play_until(old, lambda m: m["type"] == "event" and m["seq"] >= 2)
    before = old.view  # seat 0's turn: nothing moves until it plays
    assert before is not None and before["turn"] == 0
    r = server.post("/api/rejoin-codes", {"token": room["token"]})
    assert r.status_code == 201
    code = r.json()
    assert len(code["code"]) == 9 and code["url"].startswith("/r/") and code["expires_in"] > 0
    # read aloud: lower case with a space is fine
    spoken = code["code"][:3].lower() + " " + code["code"][3:].lower()
    r = server.post("/api/rejoin", {"code": spoken})
    assert r.status_code == 200, r.text
    moved = r.json()
    assert moved["room"] == room["room"] and moved["seat"] == 0
    assert moved["token"] != room["token"]
    moved_away = {"type": "seat_moved", "rejoined": True}  # the old token no longer works
    assert (await old.recv_until(lambda m: m["type"] == "seat_moved")) == moved_away
    # the old token is refused; the new device goes on
    bad, _ = None, None
    bad = await Client.open(server)
    await bad.send({"type": "hello", "version": 3, "token": room["token"], "since": None})
    assert (await bad.recv())["code"] == "bad_token"
    new, welcome = await Client.hello(server, moved["token"])
    # the new device sees the same table and the same hand the old one had
    assert welcome["seq"] == before["seq"] >= 2
    assert welcome["view"]["hand"] == before["hand"] and len(before["hand"]) == 3
    assert welcome["view"]["table"] == before["table"]
    # the same code (either form) cannot be used twice
    r = server.post("/api/rejoin", {"code": code["code"]})
    assert r.status_code == 410 and r.json()["error"]["code"] == "code_used"
    r = server.post("/api/rejoin", {"code": code["url"][3:]})
    assert r.status_code == 410 and r.json()["error"]["code"] == "code_used"
    # the long link works on its own
    r = server.post("/api/rejoin-codes", {"token": moved["token"]})
    long_code = r.json()["url"][3:]
    r = server.post("/api/rejoin", {"code": long_code})
    assert r.status_code == 200 and r.json()["seat"] == 0
    assert (await new.recv_until(lambda m: m["type"] == "seat_moved")) == moved_away


async def test_friend_leaves_computer_takes_over_friend_returns(server: ServerProc) -> None:
    a_room, b_room = server.friend_room()
    a, _ = await Client.hello(server, a_room["token"])
    b, _ = await Client.hello(server, b_room["token"])
    await a.recv_until(presence(1, "here"))
    await play_two(a, b, lambda m: m["type"] == "event" and m["seq"] >= 2)
    await b.close()
    left = await a.recv_until(presence(1, "away"))
    # seconds left, not a clock: at most the grace time (0.2 s here)
    assert 0 <= left["presence"]["grace_left"] <= 0.2 and left["presence"]["level"] is None
    assert a.view is not None and a.view["presence"][1]["state"] == "here"  # older view
    # the grace time runs on the server's clock: ask until the server says it is over (it
    # refuses with too_early before; a busy machine may take longer than it announced)
    deadline = time.monotonic() + 10
    while True:
        await a.send({"type": "takeover", "level": "facil"})
        state = await a.recv_until(
            lambda m: m["type"] == "state" or (m["type"] == "error" and m["code"] == "too_early")
        )
        if state["type"] == "state":
            break
        assert time.monotonic() < deadline, "the grace time never ended"
        await asyncio.sleep(0.02)
    assert state["view"]["presence"][1] == {
        "state": "computer",
        "grace_left": None,
        "level": "facil",
    }
    await saw(a, presence(1, "computer"))
    # the computer now plays seat 1: a plays on alone through two of the computer's moves
    start = a.seq
    await play_until(
        a,
        lambda m: (
            m["type"] == "event"
            and m["event"]["kind"] == "move"
            and m["event"]["seat"] == 1
            and m["seq"] > start + 2
        ),
    )
    # the friend comes back: told at once, and the seat is theirs again
    b2, welcome = await Client.hello(server, b_room["token"], since=start)
    await a.recv_until(presence(1, "here"))
    # the takeover ended: a's view says so at once (a state, not only a presence)
    ended = await saw(
        a,
        lambda m: (
            m["type"] == "state"
            and m["seq"] >= welcome["seq"]
            and m["view"]["presence"][1]["state"] == "here"
        ),
    )
    assert ended["view"]["presence"][1]["level"] is None
    # whose presence comes on welcome: both seats', in the view
    assert welcome["view"]["presence"][0]["state"] == "here"
    assert welcome["events"] and welcome["events"][0]["seq"] == start + 1
    # from now on nobody plays for b: b's own move is accepted at b's turn
    b2.view = welcome["view"]
    b2.seq = welcome["seq"]
    if a.seq < b2.seq:
        await a.recv_until(lambda m: "view" in m and m["view"]["seq"] >= b2.seq)
    before = b2.seq
    await play_two(a, b2, lambda m: m["type"] == "event" and m["seq"] >= before + 4)
    movers = [
        m["event"]["seat"]
        for m in a.log
        if m["type"] == "event" and m["event"]["kind"] == "move" and m["seq"] > before
    ]
    assert 1 in movers
    rows = server.db_rows(
        "select seat, client_id from moves where room_id = ? and seq > ?", a_room["room"], before
    )
    assert all(cid is not None for seat, cid in rows if seat == 1)  # b's own moves, not the AI
    await a.close()
    await b2.close()


def test_pages_static_and_qr(server: ServerProc) -> None:
    for path in ("/", "/j/ABCD2345", "/r/some-long-code"):
        r = server.get(path)
        assert r.status_code == 200 and "cliente de prueba" in r.text
    assert "hola" in server.get("/static/app.js").text
    assert server.get("/static/nada.js").status_code == 404
    for path in ("/static/nada.js", "/nada"):  # Starlette's own 404s speak Spanish too
        r = server.get(path)
        assert r.status_code == 404 and "Esa página no existe." in r.text
    r = server.get("/api/nada")
    assert r.status_code == 404 and r.json()["error"]["code"] == "not_found"
    r = server.get("/api/join")
    assert r.status_code == 405 and r.json()["error"]["code"] == "bad_request"
    r = server.post("/api/qr", {"text": "/j/H7KM4Q2P"})
    assert r.status_code == 200 and r.headers["content-type"].startswith("image/svg+xml")
    assert "<svg" in r.text
    for bad in (
        "https://evil.example/j/X",
        "//evil.example/x",
        "javascript:alert(1)",
        "/static/app.js",
        "/j/",
        7,
    ):
        r = server.post("/api/qr", {"text": bad})
        assert r.status_code == 400 and r.json()["error"]["code"] == "bad_qr_text"
    r = server.get("/api/rooms/nope")
    assert r.status_code == 404 and r.json()["error"]["code"] == "room_unknown"


def test_friend_room_summary_and_waiting(server: ServerProc) -> None:
    r = server.post("/api/rooms", {"mode": "friend", "name": "Ana"})
    room = r.json()
    summary = server.get(f"/api/rooms/{room['room']}").json()
    assert summary["status"] == "waiting" and summary["seats"][1]["name"] is None
    r = server.post("/api/join", {"invite": room["invite"].lower(), "name": "  Primo  Juan "})
    assert r.status_code == 200 and r.json()["seat"] == 1
    summary = server.get(f"/api/rooms/{room['room']}").json()
    assert summary["status"] == "playing"
    assert [s["name"] for s in summary["seats"]] == ["Ana", "Primo Juan"]
    assert all(s["kind"] == "person" for s in summary["seats"])
    assert httpx.get(f"{server.base}/healthz").json()["ok"] is True


async def test_idle_rooms_leave_memory_and_come_back(server: ServerProc) -> None:
    room = server.computer_room()
    client, _ = await Client.hello(server, room["token"])
    await play_until(client, lambda m: m["type"] == "event" and m["seq"] >= 4)
    seq = client.seq
    assert server.get("/healthz").json()["rooms_in_memory"] >= 1
    await client.close()
    deadline = time.monotonic() + 10
    while server.get("/healthz").json()["rooms_in_memory"] > 0:  # ROOM_IDLE is 0.2 s
        assert time.monotonic() < deadline, "the idle room stayed in memory"
        await asyncio.sleep(0.05)
    again, welcome = await Client.hello(server, room["token"], since=seq)
    assert welcome["seq"] == seq and welcome["events"] == []
    assert server.get("/healthz").json()["rooms_in_memory"] >= 1
    await again.close()


async def test_friends_rematch_and_reload_in_the_second_match(server: ServerProc) -> None:
    a_room, b_room = server.friend_room()
    a, _ = await Client.hello(server, a_room["token"])
    b, _ = await Client.hello(server, b_room["token"])
    end = await play_two(a, b, is_event("match_end"))
    last_seq = end["seq"]
    await saw(b, is_event("match_end"))
    await a.send({"type": "rematch"})
    asked = await a.recv_until(lambda m: m["type"] == "state")
    assert asked["view"]["rematch"] == [True, False] and asked["view"]["status"] == "finished"
    seen = await b.recv_until(lambda m: m["type"] == "state")
    assert seen["view"]["rematch"] == [True, False]
    await b.send({"type": "rematch"})
    event = await a.recv_until(is_event("rematch"))
    assert event["seq"] == last_seq + 1 and event["event"] == {"kind": "rematch", "match": 2}
    view = event["view"]
    assert view["match"] == 2 and view["status"] == "playing" and view["scores"] == [0, 0]
    assert view["rematch"] == [False, False] and view["last_move"] is None
    await b.recv_until(is_event("rematch"))
    await play_two(a, b, lambda m: m["type"] == "event" and m["seq"] >= last_seq + 4)
    await a.close()
    await b.close()
    rows = server.db_rows(
        "select match_no, winner, scores, first_seq, last_seq "
        "from finished_matches where room_id = ?",
        a_room["room"],
    )
    assert rows == [(1, end["event"]["winner"], json.dumps(end["event"]["scores"]), 1, last_seq)]
    # the room is rebuilt from the new seed and the moves after the rematch
    deadline = time.monotonic() + 10
    while server.get("/healthz").json()["rooms_in_memory"] > 0:  # ROOM_IDLE is 0.2 s
        assert time.monotonic() < deadline
        await asyncio.sleep(0.05)
    again, welcome = await Client.hello(server, a_room["token"], since=last_seq)
    assert welcome["seq"] >= last_seq + 4 and welcome["view"]["match"] == 2
    assert welcome["events"][0] == {"seq": last_seq + 1, "event": {"kind": "rematch", "match": 2}}
    moves = [e for e in welcome["events"] if e["event"]["kind"] == "move"]
    assert [e["seq"] for e in moves] == list(range(last_seq + 2, welcome["seq"] + 1))
    old = [
        m
        for m in a.log
        if m["type"] == "event" and m["seq"] > last_seq + 1 and m["event"]["kind"] == "move"
    ]
    assert [m["event"] for m in old] == [e["event"] for e in moves][: len(old)]
    # further behind than the first match's end: too old, the view alone
    behind, too_old = await Client.hello(server, a_room["token"], since=last_seq - 1)
    assert too_old["events"] == [] and too_old["seq"] == welcome["seq"]
    await behind.close()
    await again.close()
