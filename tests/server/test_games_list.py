"""Mis partidas and por turnos (issue 12) against the real server: the list of a device's
seats from storage alone, and friend games played over days."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

from tests.support.srvkit import (
    Client,
    ServerProc,
    is_event,
    my_turn,
    pick_move,
    play_two,
    presence,
)


def my_games(server: ServerProc, *tokens: str) -> list[dict[str, Any] | None]:
    r = server.post("/api/my-games", {"tokens": list(tokens)})
    assert r.status_code == 200, r.text
    games: list[dict[str, Any] | None] = r.json()["games"]
    return games


def turns_room(server: ServerProc) -> tuple[dict[str, Any], dict[str, Any]]:
    r = server.post("/api/rooms", {"mode": "friend", "name": "Ana", "turns": True})
    assert r.status_code == 201, r.text
    a = r.json()
    b = server.post("/api/join", {"invite": a["invite"], "name": "Primo"}).json()
    return a, b


async def wait_rooms_in_memory(server: ServerProc, count: int) -> None:
    deadline = time.monotonic() + 10
    while server.get("/healthz").json()["rooms_in_memory"] != count:
        assert time.monotonic() < deadline
        await asyncio.sleep(0.05)


async def test_the_list_says_whose_turn_and_the_score(
    make_server: Callable[..., ServerProc],
) -> None:
    server = make_server(ROOM_IDLE="0.2", GRACE_SECONDS="600").start()
    a_room, b_room = server.friend_room()
    c_room = server.computer_room("facil", "Ana")
    waiting = server.post("/api/rooms", {"mode": "friend", "name": "Ana"}).json()
    ana = (a_room["token"], c_room["token"], waiting["token"])
    friend, computer, alone = my_games(server, *ana)
    assert friend is not None and computer is not None and alone is not None
    assert friend["room"] == a_room["room"] and friend["seat"] == 0
    assert friend["players"][1] == {"name": "Primo", "kind": "person", "level": None, "named": True}
    assert friend["status"] == "playing" and friend["scores"] == [0, 0]
    assert friend["my_turn"] and friend["waits_for_me"] and not friend["moved"]
    assert computer["players"][1] == {
        "name": "Computadora",  # stored; named: false, so a client words it ("Computer")
        "kind": "computer",
        "level": "facil",
        "named": False,
    }
    assert computer["my_turn"] and computer["mode"] == "computer"
    assert alone["status"] == "waiting" and alone["players"][1]["name"] is None
    assert not alone["my_turn"] and not alone["waits_for_me"]
    (primo,) = my_games(server, b_room["token"])
    assert primo is not None and primo["seat"] == 1 and not primo["my_turn"]
    assert primo["players"][0]["name"] == "Ana" and primo["names"] == ["Ana", "Primo"]

    a, wa = await Client.hello(server, a_room["token"])
    b, _ = await Client.hello(server, b_room["token"])
    first = await a.move(pick_move(wa["view"]))
    assert first["type"] == "ack"
    await b.recv_until(lambda m: "view" in m and m["view"]["seq"] >= first["seq"])
    friend, _, _ = my_games(server, *ana)
    (primo,) = my_games(server, b_room["token"])
    assert friend is not None and primo is not None
    assert not friend["my_turn"] and friend["turn"] == 1 and friend["moved"]
    assert primo["my_turn"] and primo["waits_for_me"] and primo["last_move_ago"] <= 5
    # a whole hand: the list's score is the one the players see
    end = await play_two(a, b, is_event("hand_end"))
    friend, _, _ = my_games(server, *ana)
    assert friend is not None
    assert friend["scores"] == end["view"]["scores"] == end["event"]["result"]["scores"]
    assert a.view is not None and a.seq == b.seq  # both saw the last move (play_two)
    assert friend["my_turn"] == my_turn(a.view) and friend["turn"] == a.view["turn"]
    await a.close()
    await b.close()
    # from storage alone: the list loads no room into memory
    await wait_rooms_in_memory(server, 0)
    again, _, _ = my_games(server, *ana)
    assert again is not None and again["scores"] == friend["scores"]
    assert server.get("/healthz").json()["rooms_in_memory"] == 0


def test_no_secret_of_any_seat_is_in_the_list(server: ServerProc) -> None:
    a_room, b_room = server.friend_room()
    r = server.post("/api/my-games", {"tokens": [a_room["token"]]})
    text = r.text
    seed = server.db_rows("select seed from rooms where id = ?", a_room["room"])[0][0]
    for secret in (a_room["token"], b_room["token"], a_room["invite"], seed):
        assert secret not in text
    game = r.json()["games"][0]
    assert not {"hand", "hands", "deck", "token", "invite", "seed"} & set(game)
    assert (
        "Cache-Control" not in r.headers
        or "no-store" in r.headers["Cache-Control"]
        or "public" not in r.headers["Cache-Control"]
    )


def test_unknown_tokens_are_null_in_their_place(server: ServerProc) -> None:
    a_room, b_room = server.friend_room()
    games = my_games(server, a_room["token"], "x" * 43, b_room["token"], a_room["token"])
    assert games[1] is None
    assert [g["seat"] if g else None for g in games] == [0, None, 1, 0]
    assert my_games(server) == []


def test_bad_lists_are_refused_with_a_clear_error(server: ServerProc) -> None:
    ok = server.friend_room()[0]["token"]
    for body in (
        {},
        {"tokens": ok},
        {"tokens": [ok, 7]},
        {"tokens": ["con espacio"]},
        {"tokens": [""]},
        {"tokens": ["x" * 129]},
        {"tokens": [None]},
    ):
        r = server.post("/api/my-games", body)
        assert r.status_code == 400, (body, r.text)
        assert r.json()["error"]["code"] == "bad_tokens"
        assert (
            r.json()["error"]["message"]
            == "No entendimos la lista de partidas de este dispositivo."
        )
    many = server.post("/api/my-games", {"tokens": [ok] * 31})
    assert many.status_code == 400 and "a lo sumo 30" in many.json()["error"]["message"]
    assert server.post("/api/my-games", {"tokens": [ok] * 30}).status_code == 200
    huge = server.post("/api/my-games", {"tokens": ["y" * 120] * 40})  # over 4096 bytes
    assert huge.status_code == 413 and huge.json()["error"]["code"] == "bad_request"
    # tokens are secrets: no GET that would put them in a URL
    assert server.get(f"/api/my-games?tokens={ok}").status_code == 405
    other = server.post(
        "/api/my-games", {"tokens": [ok]}, headers={"Origin": "https://evil.example"}
    )
    assert other.status_code == 403 and other.json()["error"]["code"] == "bad_origin"


def test_the_list_is_rate_limited(make_server: Callable[..., ServerProc]) -> None:
    server = make_server(RATE_GAMES_PER_MIN="3").start()
    token = server.computer_room()["token"]
    codes = [server.post("/api/my-games", {"tokens": [token]}).status_code for _ in range(4)]
    assert codes == [200, 200, 200, 429]
    r = server.post("/api/my-games", {"tokens": [token]})
    assert r.json()["error"]["code"] == "rate_limited"


# -- por turnos ---------------------------------------------------------------------------


async def test_por_turnos_is_shown_everywhere_and_survives_a_restart(
    make_server: Callable[..., ServerProc],
) -> None:
    server = make_server().start()
    a_room, b_room = turns_room(server)
    assert a_room["turns"] is True
    assert server.get(f"/api/invites/{a_room['invite']}").json()["turns"] is True
    assert server.get(f"/api/rooms/{a_room['room']}").json()["turns"] is True
    server.stop()
    server.start()
    a, wa = await Client.hello(server, a_room["token"])
    b, wb = await Client.hello(server, b_room["token"])
    assert wa["view"]["turns"] is True and wb["view"]["turns"] is True
    assert wa["view"]["turns_grace"] == 86400  # the long wait the client says (a day)
    game = my_games(server, a_room["token"])[0]
    assert game is not None and game["turns"] is True and game["waits_for_me"]
    plain = server.friend_room()[0]
    assert (my_games(server, plain["token"])[0] or {})["turns"] is False
    for body in (
        {"mode": "computer", "level": "facil", "turns": True},
        {"mode": "friend", "turns": "si"},
    ):
        r = server.post("/api/rooms", body)
        assert r.status_code == 400 and r.json()["error"]["code"] == "bad_turns"
    await a.close()
    await b.close()


async def test_por_turnos_has_no_stall_check_and_no_takeover_unless_asked(
    make_server: Callable[..., ServerProc],
) -> None:
    """The friend who stays connected without playing is not offered to the computer; the
    one who left is not replaced on a plain takeover (turns_wait), also after a restart;
    asked in so many words (confirmed), the computer takes the seat."""
    server = make_server(
        STALL_SECONDS="0.3", GRACE_SECONDS="0.2", TURNS_GRACE_SECONDS="600"
    ).start()
    a_room, b_room = turns_room(server)
    a, wa = await Client.hello(server, a_room["token"])
    b, _ = await Client.hello(server, b_room["token"])
    await a.recv_until(presence(1, "here"))
    answer = await a.move(pick_move(wa["view"]))  # now Primo's turn
    assert answer["type"] == "ack"
    seen = len(a.log)
    await asyncio.sleep(1.0)  # more than three stall times: nothing may happen
    await a.send({"type": "ping"})
    await a.recv_until(lambda m: m["type"] == "pong")
    assert not [m for m in a.log[seen:] if m["type"] == "presence"]
    await b.close()
    left = await a.recv_until(presence(1, "away"))
    assert left["presence"]["grace_left"] > 500  # the long patience of por turnos
    await asyncio.sleep(0.3)  # past the ordinary grace time
    await a.send({"type": "takeover", "level": "facil"})
    refused = await a.recv_until(lambda m: m["type"] == "error")
    assert refused["code"] == "turns_wait" and "por turnos" in refused["message"]
    await a.close()
    server.stop()
    server.start()
    a, welcome = await Client.hello(server, a_room["token"])
    assert welcome["view"]["presence"][1]["state"] == "away"
    await a.send({"type": "takeover", "level": "facil"})
    assert (await a.recv_until(lambda m: m["type"] == "error"))["code"] == "turns_wait"
    await a.send({"type": "takeover", "level": "facil", "confirmed": "si"})
    assert (await a.recv_until(lambda m: m["type"] == "error"))["code"] == "missing_field"
    await a.send({"type": "takeover", "level": "facil", "confirmed": True})
    await a.recv_until(presence(1, "computer"))
    played = await a.recv_until(
        lambda m: m["type"] == "event" and m["event"]["kind"] == "move" and m["event"]["seat"] == 1
    )
    assert played["seq"] == answer["seq"] + 1
    await a.close()


async def test_por_turnos_a_long_absence_allows_the_takeover(
    make_server: Callable[..., ServerProc],
) -> None:
    server = make_server(GRACE_SECONDS="0.1", TURNS_GRACE_SECONDS="0.6").start()
    a_room, b_room = turns_room(server)
    a, _ = await Client.hello(server, a_room["token"])
    b, _ = await Client.hello(server, b_room["token"])
    await b.close()
    left = await a.recv_until(presence(1, "away"))
    assert 0 < left["presence"]["grace_left"] <= 0.6
    await asyncio.sleep(left["presence"]["grace_left"] + 0.05)
    deadline = time.monotonic() + 10
    while True:  # the server's clock is the judge
        await a.send({"type": "takeover", "level": "normal"})
        got = await a.recv_until(lambda m: m["type"] in ("state", "error"))
        if got["type"] == "state" or time.monotonic() > deadline:
            break
        assert got["code"] == "turns_wait"
        await asyncio.sleep(0.05)
    assert got["type"] == "state", got
    assert got["view"]["presence"][1] == {
        "state": "computer",
        "grace_left": None,
        "level": "normal",
    }
    await a.close()
