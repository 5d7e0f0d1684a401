"""Every kind of bad input gets a clear error, changes nothing, and the server goes on."""

from __future__ import annotations

import json
from typing import Any

import pytest
import websockets

from server.engine import DECK
from tests.support.srvkit import Client, ServerProc, pick_move, presence


def moves_in_db(server: ServerProc, room: str) -> int:
    return int(server.db_rows("select count(*) from moves where room_id = ?", room)[0][0])


async def still_fine(client: Client) -> None:
    await client.send({"type": "ping"})
    assert (await client.recv_until(lambda m: m["type"] == "pong")) == {"type": "pong"}


async def error_for(client: Client, frame: Any) -> dict[str, Any]:
    await client.send(frame)
    message = await client.recv_until(lambda m: m["type"] == "error")
    assert isinstance(message["message"], str) and message["message"]
    return message


async def closed_code(client: Client) -> int:
    with pytest.raises(websockets.ConnectionClosed) as info:
        for _ in range(100):
            await client.recv()
    rcvd = info.value.rcvd
    await client.close()  # the socket itself, not only the websocket: no transport left open
    return rcvd.code if rcvd is not None else -1


async def test_malformed_frames(server: ServerProc) -> None:
    room = server.computer_room()
    client, welcome = await Client.hello(server, room["token"])
    cases = [
        ("{nope", "bad_json"),
        ("[1, 2]", "bad_json"),
        ('"hola"', "bad_json"),
        ({"type": "dance"}, "unknown_type"),
        ({"no_type": 1}, "unknown_type"),
        ({"type": "hello", "version": 3, "token": room["token"]}, "already_hello"),
        ({"type": "move", "seq": 0, "move": {"kind": "trail", "card": "2h"}}, "missing_field"),
        ({"type": "move", "id": "x1", "seq": 0}, "missing_field"),
        ({"type": "move", "id": "x2", "move": {"kind": "trail", "card": "2h"}}, "missing_field"),
        (
            {"type": "move", "id": "x3", "seq": "cero", "move": {"kind": "trail", "card": "2h"}},
            "missing_field",
        ),
        (
            {"type": "move", "id": "x4", "seq": 0, "move": {"kind": "jump", "card": "2h"}},
            "invalid_move",
        ),
        (
            {"type": "move", "id": "x5", "seq": 0, "move": {"kind": "trail", "card": "11z"}},
            "invalid_move",
        ),
        ({"type": "move", "id": "x6", "seq": 0, "move": "2h"}, "invalid_move"),
        ({"type": "takeover"}, "missing_field"),
        ({"type": "takeover", "level": "dios"}, "bad_level"),
        ({"type": "takeover", "level": "facil"}, "not_absent"),
        ({"type": "rematch"}, "not_over"),
    ]
    for frame, code in cases:
        error = await error_for(client, frame)
        assert error["code"] == code, (frame, error)
        if isinstance(frame, dict) and frame.get("id"):
            assert error["id"] == frame["id"]
    await still_fine(client)
    assert moves_in_db(server, room["room"]) == 0
    again, welcome2 = await Client.hello(server, room["token"])
    assert welcome2["view"] == welcome["view"]
    await again.close()
    await client.close()  # replaced by ``again`` (seat_moved): closed by the server already


async def test_moves_out_of_turn_stale_and_illegal(server: ServerProc) -> None:
    a_room, b_room = server.friend_room()
    a, wa = await Client.hello(server, a_room["token"])
    b, wb = await Client.hello(server, b_room["token"])
    view_a, view_b = wa["view"], wb["view"]
    # seat 1 moves first: not its turn
    error = await b.move({"kind": "trail", "card": view_b["hand"][0]}, seq=0)
    assert error["code"] == "not_your_turn" and error["message"] == "Todavía no es tu turno."
    # seat 0 with a seq from the future: stale
    error = await a.move(pick_move(view_a), seq=7)
    assert error["code"] == "stale"
    # a card seat 0 does not hold: the engine's reason and Spanish message
    table = set(view_a["table"]["cards"])
    foreign = next(c.code for c in DECK if c.code not in view_a["hand"] and c.code not in table)
    error = await a.move({"kind": "trail", "card": foreign}, seq=0)
    assert error["code"] == "illegal" and error["reason"] == "not_in_hand"
    assert error["message"].startswith("No tienes") and error["args"] == {"card": foreign}
    # capturing nothing with a card in hand
    error = await a.move({"kind": "capture", "card": view_a["hand"][0], "take": []}, seq=0)
    assert error["code"] == "illegal" and error["reason"] == "capture_empty"
    # taking a table item that is not there
    error = await a.move({"kind": "capture", "card": view_a["hand"][0], "take": ["p9"]}, seq=0)
    assert error["code"] == "illegal" and error["reason"] == "not_on_table"
    assert error["args"] == {"items": ["p9"]} and error["message"].endswith(": p9.")
    assert moves_in_db(server, a_room["room"]) == 0
    # nothing changed: the right move still works at seq 0
    ok = await a.move(pick_move(view_a), seq=0)
    assert ok["type"] == "ack" and ok["seq"] == 1
    await a.close()
    await b.close()


async def test_tokens(server: ServerProc) -> None:
    client = await Client.open(server)
    await client.send({"type": "ping"})
    assert (await client.recv())["code"] == "hello_first"
    await client.send({"type": "hello", "version": 3, "token": "x" * 43, "since": None})
    error = await client.recv()
    assert (
        error["code"] == "bad_token"
        and error["message"]
        == "Esa partida ya no está en este dispositivo: siguió en otro, o ya se borró."
    )
    assert await closed_code(client) == 1008
    client = await Client.open(server)
    await client.send({"type": "hello", "version": 3, "token": "", "since": None})
    assert (await client.recv())["code"] == "missing_field"
    await client.send({"type": "hello", "version": 3, "token": "y" * 500, "since": None})
    assert (await client.recv())["code"] == "missing_field"
    await client.close()
    await still_fine_after_hello(server)


async def still_fine_after_hello(server: ServerProc) -> None:
    room = server.computer_room()
    client, welcome = await Client.hello(server, room["token"])
    assert welcome["seq"] == 0
    await client.close()


async def test_frame_too_big(server: ServerProc) -> None:
    room = server.computer_room()
    client, _ = await Client.hello(server, room["token"])
    await client.send(json.dumps({"type": "ping", "pad": "x" * 5000}))
    assert await closed_code(client) == 1009
    # a frame just under the limit is read (and refused as unknown)
    client, _ = await Client.hello(server, room["token"])
    error = await error_for(client, json.dumps({"type": "nada", "pad": "x" * 3900}))
    assert error["code"] == "unknown_type"
    await still_fine(client)
    await client.close()


async def test_bad_origin(server: ServerProc) -> None:
    room = server.computer_room()
    evil = await Client.open(server, origin="https://evil.example")
    error = await evil.recv()
    assert error["code"] == "bad_origin"
    assert await closed_code(evil) == 1008
    for origin in (f"http://127.0.0.1:{server.port}", "https://casino.example"):
        client, welcome = await Client.hello(server, room["token"], origin=origin)
        assert welcome["seat"] == 0
        await client.close()
    r = server.post(
        "/api/rooms",
        {"mode": "computer", "level": "facil"},
        headers={"Origin": "https://evil.example"},
    )
    assert r.status_code == 403 and r.json()["error"]["code"] == "bad_origin"


async def test_flood_is_limited_then_closed(strict_server: ServerProc) -> None:
    room = strict_server.computer_room()
    client, _ = await Client.hello(strict_server, room["token"])
    for _ in range(80):
        try:
            await client.send({"type": "ping"})
        except websockets.ConnectionClosed:
            break
    codes: list[str] = []
    with pytest.raises(websockets.ConnectionClosed) as info:
        for _ in range(200):
            message = await client.recv()
            codes.append(message.get("code", message["type"]))
    assert info.value.rcvd is not None and info.value.rcvd.code == 1008
    await client.close()
    assert "pong" in codes and "rate_limited" in codes
    # another connection is fine
    other, welcome = await Client.hello(strict_server, room["token"])
    assert welcome["seq"] == 0
    await other.close()


def test_http_bad_requests(server: ServerProc) -> None:
    r = server.post("/api/rooms", {"mode": "casino"})
    assert r.status_code == 400 and r.json()["error"]["code"] == "bad_mode"
    r = server.post("/api/rooms", {"mode": "computer", "level": "dios"})
    assert r.status_code == 400 and r.json()["error"]["code"] == "bad_level"
    r = server.post("/api/rooms", {"mode": "friend", "name": "x" * 30})
    assert r.status_code == 400 and r.json()["error"]["code"] == "bad_name"
    r = server.post("/api/rooms", {"mode": "friend", "name": "a\u0000b"})
    assert r.status_code == 400 and r.json()["error"]["code"] == "bad_name"
    r = server.post("/api/rooms", [1, 2])
    assert r.status_code == 400 and r.json()["error"]["code"] == "bad_request"
    r = server.post("/api/rooms", None, content=b"{not json")
    assert r.status_code == 400 and r.json()["error"]["code"] == "bad_request"
    r = server.post("/api/rooms", {"mode": "friend", "pad": "x" * 10000})
    assert r.status_code == 413
    r = server.post("/api/rejoin-codes", {"token": "nope"})
    assert r.status_code == 401 and r.json()["error"]["code"] == "bad_token"
    for body in ({"code": "ZZZZZZ"}, {"code": 7}, {}):
        r = server.post("/api/rejoin", body)
        assert r.status_code == 404 and r.json()["error"]["code"] == "code_unknown"
    assert "Traceback" not in r.text


def test_join_full_room_and_unknown_invite(server: ServerProc) -> None:
    a_room, _ = server.friend_room()
    r = server.post("/api/join", {"invite": a_room["invite"], "name": "Intruso"})
    assert r.status_code == 409 and r.json()["error"] == {
        "code": "room_full",
        "message": "Esa mesa ya tiene dos jugadores.",
    }
    r = server.post("/api/join", {"invite": "NOEXISTE", "name": "Nadie"})
    assert r.status_code == 404 and r.json()["error"]["code"] == "invite_unknown"
    summary = server.get(f"/api/rooms/{a_room['room']}").json()
    assert [s["name"] for s in summary["seats"]] == ["Ana", "Primo"]


async def test_waiting_room_and_takeover_too_early(strict_server: ServerProc) -> None:
    r = strict_server.post("/api/rooms", {"mode": "friend", "name": "Ana"})
    room = r.json()
    a, welcome = await Client.hello(strict_server, room["token"])
    assert welcome["view"]["status"] == "waiting" and welcome["view"]["invite"] == room["invite"]
    error = await a.move({"kind": "trail", "card": welcome["view"]["hand"][0]}, seq=0)
    assert error["code"] == "waiting_for_friend"
    error = await error_for(a, {"type": "takeover", "level": "facil"})
    assert error["code"] == "not_absent"
    r = strict_server.post("/api/join", {"invite": room["invite"], "name": "Primo"})
    b_token = r.json()["token"]
    state = await a.recv_until(lambda m: m["type"] == "state")
    assert state["view"]["status"] == "playing" and state["view"]["names"][1] == "Primo"
    assert state["view"]["invite"] is None
    b, _ = await Client.hello(strict_server, b_token)
    await b.close()
    await a.recv_until(presence(1, "away"))
    error = await error_for(a, {"type": "takeover", "level": "facil"})
    assert error["code"] == "too_early"
    await a.close()


def test_expired_rejoin_code(strict_server: ServerProc) -> None:
    room = strict_server.computer_room()
    r = strict_server.post("/api/rejoin-codes", {"token": room["token"]})
    assert r.status_code == 201
    r = strict_server.post("/api/rejoin", {"code": r.json()["code"]})
    assert r.status_code == 410 and r.json()["error"]["code"] == "code_expired"
    # the old token still works: nothing changed (3 of the 12 joins a minute used so far)
    r = strict_server.post("/api/rejoin-codes", {"token": room["token"]})
    assert r.status_code == 201 and len(r.json()["code"]) == 9


def test_http_rate_limit(strict_server: ServerProc) -> None:
    codes = [strict_server.post("/api/rejoin", {"code": "ZZZZZZ"}).status_code for _ in range(13)]
    assert 429 in codes and set(codes) <= {404, 429}
    r = strict_server.post("/api/rejoin", {"code": "ZZZZZZ"})
    assert r.json()["error"]["message"] == "Demasiados intentos. Espera un momento."


async def test_silent_socket_is_closed(strict_server: ServerProc) -> None:
    client = await Client.open(strict_server)
    error = await client.recv()
    assert error["code"] == "hello_first"
    assert await closed_code(client) == 1008


async def test_nul_characters_are_refused_like_any_unknown_text(server: ServerProc) -> None:
    """PostgreSQL cannot store or compare text holding U+0000 (SQLite can): on both, a NUL
    in a room id, an invite or a move id is bad input with its usual answer, not a failed
    database call."""
    r = server.get("/api/rooms/ab%00cd")
    assert (r.status_code, r.json()["error"]["code"]) == (404, "room_unknown")
    r = server.post("/api/join", {"invite": "AB\u0000CD", "name": "Primo"})
    assert (r.status_code, r.json()["error"]["code"]) == (404, "invite_unknown")
    r = server.post("/api/rejoin", {"code": "AB\u0000CD"})
    assert (r.status_code, r.json()["error"]["code"]) == (404, "code_unknown")
    a_room, _ = server.friend_room()
    client, welcome = await Client.hello(server, a_room["token"])
    move = pick_move(welcome["view"])
    error = await error_for(client, {"type": "move", "id": "a\u0000b", "seq": 0, "move": move})
    assert error["code"] == "missing_field"
    await still_fine(client)
    assert moves_in_db(server, a_room["room"]) == 0
    assert (await client.move(move, move_id="a-b"))["type"] == "ack"
    assert server.db_rows("select client_id from moves where room_id = ?", a_room["room"]) == [
        ("a-b",)
    ]
    await client.close()
