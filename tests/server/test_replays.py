"""Replays of finished matches (issue 12) against the real server: built from the stored
seed and moves alone, the same positions the players saw, both hands shown; an unfinished
match never shows a hand."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tests.support.srvkit import Client, ServerProc, is_event, pick_move, play_two, play_until, saw


def replay_link(server: ServerProc, token: str, match: int = 1) -> dict[str, Any]:
    r = server.post("/api/replays", {"token": token, "match": match})
    assert r.status_code == 201, r.text
    return dict(r.json())


def seen_views(client: Client) -> dict[int, dict[str, Any]]:
    """The last view the client was shown at each seq."""
    views: dict[int, dict[str, Any]] = {}
    for message in client.log:
        if "view" in message:
            views[message["view"]["seq"]] = message["view"]
    return views


def seen_events(client: Client) -> dict[int, list[dict[str, Any]]]:
    events: dict[int, list[dict[str, Any]]] = {}
    for message in client.log:
        if message["type"] == "event":
            events.setdefault(message["seq"], []).append(message["event"])
    return events


def check_step(step: dict[str, Any], view: dict[str, Any]) -> None:
    """What a seat saw at a seq is what the replay shows at that step."""
    p = step["position"]
    seat = view["seat"]
    assert p["hands"][seat] == view["hand"]
    assert [len(hand) for hand in p["hands"]] == view["hand_sizes"]
    for key in (
        "table",
        "turn",
        "dealer",
        "deck_size",
        "captured_counts",
        "limpias",
        "last_capturer",
        "hand_number",
        "tally",
    ):
        assert p[key] == view[key], (key, p[key], view[key])
    assert p["scores"] == view["scores"]


async def test_a_replay_is_the_match_the_players_saw(server: ServerProc) -> None:
    a_room, b_room = server.friend_room()
    a, _ = await Client.hello(server, a_room["token"])
    b, _ = await Client.hello(server, b_room["token"])
    end = await play_two(a, b, is_event("match_end"))
    await saw(b, is_event("match_end"))  # b has read the whole last frame too
    link = replay_link(server, a_room["token"])
    assert link["url"] == f"/p/{link['code']}" and a_room["room"] not in link["url"]
    assert replay_link(server, b_room["token"]) == link  # one code per match, either seat
    r = server.get(f"/api/replays/{link['code']}")
    assert r.status_code == 200
    replay = r.json()
    assert replay["names"] == ["Ana", "Primo"] and replay["match"] == 1
    assert replay["winner"] == end["event"]["winner"] and replay["scores"] == end["event"]["scores"]
    steps = replay["steps"]
    assert len(steps) == end["seq"] + 1  # the deal, then one step per move
    for client in (a, b):
        for seq, view in seen_views(client).items():
            check_step(steps[seq], view)
        for seq, events in seen_events(client).items():
            assert steps[seq]["events"] == events
    # both hands, whole: every card of the first deal is somewhere
    first = steps[0]["position"]
    assert len(first["hands"][0]) == len(first["hands"][1]) == 4
    assert len(first["table"]["cards"]) == 4 and first["deck_size"] == 40
    await a.close()
    await b.close()


async def test_a_replay_against_the_computer_and_after_a_rematch(
    make_server: Callable[..., ServerProc],
) -> None:
    """The replay is rebuilt from storage: after a restart, and after the next match began
    (the finished one's seed is then in finished_matches); the match being played is
    refused."""
    server = make_server().start()
    room = server.computer_room("facil")
    client, _ = await Client.hello(server, room["token"])
    end = await play_until(client, is_event("match_end"))
    views = seen_views(client)
    await client.send({"type": "rematch"})
    started = await client.recv_until(is_event("rematch"))
    await client.move(pick_move(started["view"]))
    await client.close()
    server.stop()
    server.start()
    link = replay_link(server, room["token"], 1)
    replay = server.get(f"/api/replays/{link['code']}").json()
    assert replay["kinds"] == ["person", "computer"] and replay["names"][1] == "Computadora"
    assert replay["scores"] == end["event"]["scores"]
    for seq, view in views.items():
        if seq <= end["seq"]:
            check_step(replay["steps"][seq], view)
    refused = server.post("/api/replays", {"token": room["token"], "match": 2})
    assert refused.status_code == 409 and refused.json()["error"]["code"] == "not_finished"
    assert "hands" not in refused.text


async def test_an_unfinished_match_never_shows_a_hand(server: ServerProc) -> None:
    a_room, b_room = server.friend_room()
    a, wa = await Client.hello(server, a_room["token"])
    assert (await a.move(pick_move(wa["view"])))["type"] == "ack"
    for token in (a_room["token"], b_room["token"]):
        r = server.post("/api/replays", {"token": token, "match": 1})
        assert r.status_code == 409, r.text
        assert r.json()["error"] == {
            "code": "not_finished",
            "message": "Esa partida todavía no ha terminado: la repetición sale al final.",
        }
    # even with a code stored by hand for it, the log does not end the match: refused
    server.db_execute(
        "insert into replay_links (code, room_id, match_no, created_at) values (?, ?, 1, 0)",
        "a-forged-code",
        a_room["room"],
    )
    forged = server.get("/api/replays/a-forged-code")
    assert forged.status_code == 409 and forged.json()["error"]["code"] == "not_finished"
    server.db_execute("update rooms set status = 'finished' where id = ?", a_room["room"])
    lied = server.get("/api/replays/a-forged-code")  # the room says so, its moves do not
    assert lied.status_code == 409 and "hands" not in lied.text
    server.db_execute("update rooms set status = 'playing' where id = ?", a_room["room"])
    await a.close()


def test_bad_replay_requests_are_refused(server: ServerProc) -> None:
    room = server.computer_room()
    token = room["token"]
    cases: list[tuple[dict[str, Any], int, str]] = [
        ({"token": token, "match": 0}, 404, "bad_match"),
        ({"token": token, "match": 9}, 404, "bad_match"),
        ({"token": token, "match": "1"}, 404, "bad_match"),
        ({"token": token, "match": True}, 404, "bad_match"),
        ({"token": token}, 404, "bad_match"),
        ({"token": "x" * 43, "match": 1}, 401, "bad_token"),
        ({"match": 1}, 401, "bad_token"),
    ]
    for body, status, code in cases:
        r = server.post("/api/replays", body)
        assert (r.status_code, r.json()["error"]["code"]) == (status, code), body
    for code in ("nada", "x" * 33, "%00"):
        r = server.get(f"/api/replays/{code}")
        assert r.status_code == 404 and r.json()["error"]["code"] == "replay_unknown"
        assert r.json()["error"]["message"] == "No encontramos esa repetición. Revisa el enlace."
    page = server.get("/p/abcdefghijklmnopqrstuv")
    assert page.status_code == 200 and "cliente de prueba" in page.text


def test_replays_are_rate_limited(make_server: Callable[..., ServerProc]) -> None:
    server = make_server(RATE_REPLAYS_PER_MIN="2").start()
    codes = [server.get("/api/replays/nada").status_code for _ in range(3)]
    assert codes == [404, 404, 429]
