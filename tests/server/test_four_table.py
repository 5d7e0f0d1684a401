"""A table of four (issue 27) on real server processes and real websockets: made with its
chairs, joined in the chair each friend chooses, chairs given to the computer, a whole hand
played by four friends with no card reaching a seat (or a watcher) that may not see it,
two friends with two computers through a match and its rematch, a friend who leaves and
comes back, a seat carried to another device, and a server killed mid-hand.

Every test that takes a server runs on SQLite and on PostgreSQL (``tests/server/conftest``).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable
from typing import Any

import httpx

from server.engine import Card, Position
from tests.support.seen import cards_in, positions
from tests.support.srvkit import Client, ServerProc, my_turn, pick_move, presence, saw

FRIEND: dict[str, Any] = {"kind": "friend"}


def chair(kind: str) -> dict[str, Any]:
    """A chair as the creator says it: "friend", or a computer level."""
    return FRIEND if kind == "friend" else {"kind": "computer", "level": kind}


def four_table(server: ServerProc, *chairs: str, turns: bool = False) -> dict[str, Any]:
    body = {"seats": 4, "name": "Ana", "turns": turns, "chairs": [chair(c) for c in chairs]}
    r = server.post("/api/rooms", body)
    assert r.status_code == 201, r.text
    return dict(r.json())


def sit(
    server: ServerProc,
    invite: str,
    name: str | None,
    seat: int | None = None,
    key: str | None = None,
) -> httpx.Response:
    body: dict[str, Any] = {"invite": invite, "name": name}
    if seat is not None:
        body["seat"] = seat
    if key is not None:
        body["key"] = key
    return server.post("/api/join", body)


def four_friends(server: ServerProc) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Ana's table with three friend chairs, each friend in the chair of their name."""
    ana = four_table(server, "friend", "friend", "friend")
    seats = [ana]
    for seat, name in ((1, "Primo"), (2, "Tía"), (3, "Abuela")):
        r = sit(server, ana["invite"], name, seat)
        assert r.status_code == 200 and r.json()["seat"] == seat, r.text
        seats.append(r.json())
    return ana, seats


async def play_table(players: tuple[Client, ...], stop: Any, limit: int = 20000) -> dict[str, Any]:
    """The people at a table (``players``; the computers play the other chairs) play their
    turns (``pick_move``) until a message to the first satisfies ``stop``. Each player reads
    up to the newest seq before anyone moves again, so a turn that comes after the
    computers' moves is seen by whoever it is."""
    watched, checked = players[0], 0
    for _ in range(limit):
        for message in watched.log[checked:]:
            if stop(message):
                return message
        checked = len(watched.log)
        newest = max(p.seq for p in players)
        for p in players:
            if p.seq < newest:
                await p.recv_until(lambda m, s=newest: "view" in m and m["view"]["seq"] >= s)
        mover = next((p for p in players if my_turn(p.view)), None)
        if mover is None:  # the computer's move, or a move's last events on their way
            await watched.recv()
            continue
        assert mover.view is not None
        answer = await mover.move(pick_move(mover.view))
        assert answer["type"] == "ack", answer
    raise AssertionError("the game did not get there")


def ended_hand(m: dict[str, Any]) -> bool:
    return m["type"] == "event" and m["event"]["kind"] in ("hand_end", "match_end")


def hidden_from(position: Position, seat: int | None) -> set[Card]:
    """What ``seat`` may not see in ``position`` (a watcher, None: every hand): the other
    hands, the partner's too, and the deck."""
    hands = [hand for s, hand in enumerate(position.hands) if s != seat]
    return set().union(*hands) | set(position.deck)


def check_told(client: Client, seat: int | None, server: ServerProc, room: str) -> int:
    """Every message ``client`` received against the true positions: its own hand exactly,
    no other hand's card (a partner's included) and no deck card, anywhere."""
    after, played, movers = positions(server, room)

    def hidden_before(seq: int) -> set[Card]:
        hidden = hidden_from(after[seq - 1], seat)
        hidden.discard(played[seq].card)  # the move shows the card it plays
        return hidden

    checked = 0
    for message in client.log:
        if "view" in message:
            view = dict(message["view"])
            seq = view["seq"]
            last = view.pop("last_move")
            assert view["seat_count"] == 4 and len(view["hand_sizes"]) == 4
            assert view["hand_sizes"] == [len(hand) for hand in after[seq].hands]
            if seat is not None:
                assert view["seat"] == seat
                assert [Card.parse(c) for c in view["hand"]] == list(after[seq].hands[seat])
            else:
                assert "hand" not in view
            assert not cards_in(view) & hidden_from(after[seq], seat), message
            if last is not None:
                assert last["seat"] == movers[seq]
                assert not cards_in(last) & hidden_before(seq), last
            checked += 1
        if message["type"] == "event" and message["seq"] > 0:
            assert not cards_in(message["event"]) & hidden_before(message["seq"]), message
        for entry in message.get("events", []):
            if entry["seq"] > 0:
                assert not cards_in(entry["event"]) & hidden_before(entry["seq"]), entry
    return checked


async def test_four_friends_sit_where_they_choose_and_each_sees_only_their_own_hand(
    server: ServerProc,
) -> None:
    ana = four_table(server, "friend", "friend", "friend")
    invitation = server.get(f"/api/invites/{ana['invite']}").json()
    assert invitation["seat_count"] == 4 and invitation["open"]
    assert [s["free"] for s in invitation["seats"]] == [False, True, True, True]
    tia = sit(server, ana["invite"], "Tía", 2, key="k-tia-0123456789abcdef")
    assert tia.status_code == 200 and tia.json()["seat"] == 2
    # the same request again (its answer lost) is the same seat and token
    again = sit(server, ana["invite"], "Tía", 2, key="k-tia-0123456789abcdef")
    assert again.json() == tia.json()
    taken = sit(server, ana["invite"], "Otro", 2)
    assert taken.status_code == 409 and taken.json()["error"]["code"] == "seat_taken"
    assert sit(server, ana["invite"], "Otro", 7).json()["error"]["code"] == "bad_seat"
    assert sit(server, ana["invite"], "Otro", 0).json()["error"]["code"] == "bad_seat"
    abuela = sit(server, ana["invite"], "Abuela", None, key="k-abuela-0123456789ab").json()
    assert abuela["seat"] == 1  # no chair chosen: the first free one
    # its retry is that seat again, not the next free chair
    assert sit(server, ana["invite"], "Abuela", None, key="k-abuela-0123456789ab").json() == abuela
    invitation = server.get(f"/api/invites/{ana['invite']}").json()
    assert [s["free"] for s in invitation["seats"]] == [False, False, False, True]
    assert [s["name"] for s in invitation["seats"]] == ["Ana", "Abuela", "Tía", None]
    a, wa = await Client.hello(server, ana["token"])
    assert wa["view"]["status"] == "waiting" and wa["view"]["invite"] == ana["invite"]
    primo = sit(server, ana["invite"], None, 3)  # no name given: named after the seat
    assert primo.status_code == 200 and primo.json()["seat"] == 3, primo.text
    full = sit(server, ana["invite"], "Tarde")
    assert full.status_code == 409 and full.json()["error"]["code"] == "room_full"
    assert "cuatro" in full.json()["error"]["message"]
    started = await a.recv_until(lambda m: "view" in m and m["view"]["status"] == "playing")
    view = started["view"]
    assert view["names"] == ["Ana", "Abuela", "Tía", "Jugador 4"]
    # the fourth gave no name: stored as "Jugador 4", a client words it ("Player 4")
    people = [{"kind": "person", "level": None, "chair": "person", "named": True}] * 3
    assert view["players"] == [*people, {**people[0], "named": False}]
    assert view["invite"] is None and len(view["scores"]) == 2 and len(view["tally"]) == 2
    assert "opponent" not in view and "opponent_hand_size" not in view
    summary = server.get(f"/api/rooms/{ana['room']}").json()
    assert summary["seat_count"] == 4 and [s["seat"] for s in summary["seats"]] == [0, 1, 2, 3]

    tokens = [ana["token"], abuela["token"], tia.json()["token"], primo.json()["token"]]
    clients = [a] + [(await Client.hello(server, t))[0] for t in tokens[1:]]
    watcher, _ = await Client.watcher(server, summary_watch(server, ana))
    await play_table(tuple(clients), ended_hand, 3000)
    await watcher.recv_until(ended_hand)
    for seat, client in enumerate(clients):
        await client.close()
        assert check_told(client, seat, server, ana["room"]) > 20
        assert all(t not in raw for t in tokens if t != tokens[seat] for raw in client.raw)
    await watcher.close()
    assert check_told(watcher, None, server, ana["room"]) > 20


def summary_watch(server: ServerProc, created: dict[str, Any]) -> str:
    return str(created["watch_url"]).rsplit("/", 1)[-1]


async def test_the_creator_gives_missing_chairs_to_the_computer(server: ServerProc) -> None:
    ana = four_table(server, "friend", "friend", "friend")
    tia = sit(server, ana["invite"], "Tía", 2).json()
    a, _ = await Client.hello(server, ana["token"])
    t, _ = await Client.hello(server, tia["token"])

    async def give(client: Client, seat: Any, level: Any, gid: str) -> dict[str, Any]:
        await client.send({"type": "give_chair", "seat": seat, "level": level, "id": gid})
        return await client.recv_until(
            lambda m: m["type"] == "error" and m.get("id") == gid or "view" in m
        )

    assert (await give(t, 1, "facil", "g1"))["code"] == "not_creator"
    assert (await give(a, 2, "facil", "g2"))["code"] == "seat_taken"
    assert (await give(a, 0, "facil", "g3"))["code"] == "bad_seat"
    assert (await give(a, 1, "experto", "g4"))["code"] == "bad_level"
    told = await give(a, 1, "normal", "g5")
    assert told["view"]["players"][1] == {
        "kind": "computer",
        "level": "normal",
        "chair": "computer",
        "named": False,
    }
    assert told["view"]["status"] == "waiting" and told["view"]["names"][1] == "Computadora"
    assert await saw(t, lambda m: "view" in m and m["view"]["players"][1]["kind"] == "computer")
    told = await give(a, 3, "facil", "g6")
    assert told["view"]["status"] == "playing"
    assert [p["kind"] for p in told["view"]["players"]] == [
        "person",
        "computer",
        "person",
        "computer",
    ]
    assert (await give(a, 1, "dificil", "g7"))["code"] == "not_waiting"
    # the last chair's give retried (its answer was lost) is no error once the match is on
    retried = await give(a, 3, "facil", "g6")
    assert retried["type"] != "error" and retried["view"]["status"] == "playing"
    late = sit(server, ana["invite"], "Tarde")
    assert late.status_code == 409 and late.json()["error"]["code"] == "room_full"
    assert not server.get(f"/api/invites/{ana['invite']}").json()["open"]
    # the computers play their turns: the two friends reach the end of a hand
    await play_table((a, t), ended_hand)


async def test_two_friends_and_two_computers_play_a_match_and_a_rematch_both_agree_to(
    server: ServerProc,
) -> None:
    ana = four_table(server, "facil", "friend", "facil")
    assert server.get(f"/api/rooms/{ana['room']}").json()["status"] == "waiting"
    tia = sit(server, ana["invite"], "Tía").json()
    assert tia["seat"] == 2  # the one friend chair: the partner's
    a, wa = await Client.hello(server, ana["token"])
    t, _ = await Client.hello(server, tia["token"])
    assert wa["view"]["players"][1] == {
        "kind": "computer",
        "level": "facil",
        "chair": "computer",
        "named": False,
    }
    end = await play_table(
        (a, t), lambda m: m["type"] == "event" and m["event"]["kind"] == "match_end"
    )
    winner = end["event"]["winner"]
    assert winner in (0, 1)
    await a.send({"type": "rematch"})
    asked = await a.recv_until(lambda m: "view" in m and m["view"]["rematch"][0])
    assert asked["view"]["rematch"] == [True, True, False, True]  # the computers always want one
    assert asked["view"]["match"] == 1
    await t.send({"type": "rematch"})
    started = await a.recv_until(lambda m: m["type"] == "event" and m["event"]["kind"] == "rematch")
    assert started["view"]["match"] == 2 and started["view"]["scores"] == [0, 0]
    assert started["view"]["seat_count"] == 4 and sum(started["view"]["hand_sizes"]) > 0
    games = server.post("/api/my-games", {"tokens": [ana["token"]]}).json()["games"]
    assert [p["kind"] for p in games[0]["players"]] == ["person", "computer", "person", "computer"]
    assert games[0]["seat_count"] == 4 and games[0]["finished_matches"] == 1


async def test_a_friend_who_leaves_is_played_by_the_computer_and_gets_the_seat_back(
    server: ServerProc,
) -> None:
    ana, seats = four_friends(server)
    clients = [(await Client.hello(server, s["token"]))[0] for s in seats]
    a, primo, tia, abuela = clients
    await play_table(tuple(clients), lambda m: m["type"] == "event" and m["seq"] >= 5, 3000)
    await primo.close()
    await tia.recv_until(presence(1, "away"))
    # the seat is named: the partner of the friend who left may ask, as may a rival
    await abuela.send({"type": "takeover", "level": "facil", "seat": 2, "id": "t1"})
    assert (await abuela.recv_until(lambda m: m["type"] == "error"))["code"] == "not_absent"
    deadline, taken = time.monotonic() + 10, presence(1, "computer")
    while True:  # the grace period (0.2 s here) counts from primo's leaving
        await tia.send({"type": "takeover", "level": "facil", "seat": 1, "id": "t2"})
        answer = await tia.recv_until(lambda m: m.get("id") == "t2" or taken(m))
        if answer["type"] != "error":
            break
        assert answer["code"] == "too_early" and time.monotonic() < deadline, answer
        await asyncio.sleep(0.05)
    told = await a.recv_until(lambda m: "view" in m and m["view"]["players"][1]["level"])
    assert told["view"]["players"][1] == {
        "kind": "computer",
        "level": "facil",
        "chair": "person",
        "named": True,
    }
    seq = a.seq
    playing = (a, tia, abuela)
    # the computer plays seat 1's turns while the others play theirs
    await play_table(playing, lambda m: m["type"] == "event" and m["seq"] >= seq + 8, 3000)
    moved_by_computer = [
        m for m in a.log if m["type"] == "event" and m["event"]["kind"] == "move"
        and m["event"]["seat"] == 1 and m["seq"] > seq
    ]  # fmt: skip
    assert moved_by_computer
    back, welcome = await Client.hello(server, seats[1]["token"], since=a.seq)
    assert welcome["view"]["presence"][1]["state"] == "here"
    assert welcome["view"]["players"][1] == {
        "kind": "person",
        "level": None,
        "chair": "person",
        "named": True,
    }
    await a.recv_until(presence(1, "here"))
    clients = [a, back, tia, abuela]
    target = a.seq + 6
    await play_table(tuple(clients), lambda m: m["type"] == "event" and m["seq"] >= target, 3000)


async def test_a_seat_of_four_carried_to_another_device(server: ServerProc) -> None:
    ana, seats = four_friends(server)
    clients = [(await Client.hello(server, s["token"]))[0] for s in seats]
    await play_table(tuple(clients), lambda m: m["type"] == "event" and m["seq"] >= 3, 3000)
    code = server.post("/api/rejoin-codes", {"token": seats[3]["token"]}).json()
    moved = server.post("/api/rejoin", {"code": code["code"]}).json()
    assert moved["seat"] == 3 and moved["room"] == ana["room"]
    await clients[3].recv_until(lambda m: m["type"] == "seat_moved")
    phone, welcome = await Client.hello(server, moved["token"], since=0)
    assert welcome["seat"] == 3 and welcome["view"]["hand"] == clients[3].view["hand"]  # type: ignore[index]
    players = (clients[0], clients[1], clients[2], phone)
    target = clients[0].seq + 6
    await play_table(players, lambda m: m["type"] == "event" and m["seq"] >= target, 3000)
    assert check_told(phone, 3, server, ana["room"]) > 3


async def test_a_server_killed_mid_hand_loses_no_acknowledged_move_of_four(
    make_server: Callable[..., ServerProc],
) -> None:
    server = make_server().start()
    ana, seats = four_friends(server)
    clients = [(await Client.hello(server, s["token"]))[0] for s in seats]
    far = asyncio.Event()
    clients[0].watch = lambda m: far.set() if m.get("seq", 0) >= 14 else None
    game = asyncio.create_task(play_table(tuple(clients), lambda m: False, 100000))
    await asyncio.wait_for(far.wait(), 60)
    server.kill9()  # while the four still send moves as fast as the server answers
    with contextlib.suppress(Exception):
        await asyncio.wait_for(game, 10)
    assert game.done()
    acked = [m["seq"] for c in clients for m in c.log if m["type"] == "ack"]
    told = {
        m["seq"]: m["event"]
        for c in clients
        for m in c.log
        if m["type"] == "event" and m["event"]["kind"] == "move"
    }
    highest = max([*told, *acked])
    server.start()
    back = [await Client.hello(server, s["token"], since=0) for s in seats]
    for seat, (client, welcome) in enumerate(back):
        assert welcome["seat"] == seat and welcome["seq"] >= highest
        logged = {e["seq"]: e["event"] for e in welcome["events"] if e["event"]["kind"] == "move"}
        for seq, event in told.items():
            assert logged[seq] == event, seq
        client.view, client.seq = welcome["view"], welcome["seq"]
    rows = server.db_rows("select seq from moves where room_id = ? order by seq", ana["room"])
    assert [r[0] for r in rows] == list(range(1, back[0][1]["seq"] + 1))
    again = tuple(client for client, _ in back)
    target = again[0].seq + 6
    await play_table(again, lambda m: m["type"] == "event" and m["seq"] >= target, 3000)


async def test_a_table_of_four_against_three_computers_starts_at_once(server: ServerProc) -> None:
    ana = four_table(server, "dificil", "facil", "normal")
    assert "invite" not in ana
    a, welcome = await Client.hello(server, ana["token"])
    assert welcome["view"]["status"] == "playing"
    assert [p["level"] for p in welcome["view"]["players"]] == [None, "dificil", "facil", "normal"]
    await play_table((a,), lambda m: m["type"] == "event" and m["seq"] >= 8)
    by = {
        m["event"]["seat"]: m["event"]["by"]
        for m in a.log
        if m["type"] == "event" and m["event"]["kind"] == "move"
    }
    assert by == {0: "person", 1: "computer", 2: "computer", 3: "computer"}
    assert check_told(a, 0, server, ana["room"]) > 6


async def test_an_old_client_is_told_to_reload_in_its_language(server: ServerProc) -> None:
    room = server.computer_room()
    for lang, word in (("es-DO", "Recarga"), ("en", "Reload")):
        client = await Client.open(server)
        await client.send({"type": "hello", "token": room["token"], "since": None, "lang": lang})
        error = await client.recv()
        assert error["code"] == "old_client" and error["fatal"] and word in error["message"]
        with contextlib.suppress(Exception):
            await client.recv(5)  # the socket is closed: nothing more comes
        assert client.ws.close_code is not None
        await client.close()
    watcher = await Client.open(server)
    await watcher.send({"type": "watch", "code": summary_watch(server, room), "version": 1})
    assert (await watcher.recv())["code"] == "old_client"
    await watcher.close()


def test_a_table_is_made_of_two_or_four_chairs_said_plainly(server: ServerProc) -> None:
    cases: list[tuple[dict[str, Any], str]] = [
        ({"seats": 3, "chairs": [FRIEND, FRIEND]}, "bad_seats"),
        ({"seats": "4", "chairs": []}, "bad_seats"),
        ({"seats": True, "mode": "friend"}, "bad_seats"),
        ({"seats": 4}, "bad_chairs"),
        ({"seats": 4, "chairs": [FRIEND, FRIEND]}, "bad_chairs"),
        ({"seats": 4, "chairs": [FRIEND, FRIEND, {"kind": "gato"}]}, "bad_chairs"),
        ({"seats": 4, "chairs": [FRIEND, FRIEND, "friend"]}, "bad_chairs"),
        ({"seats": 4, "chairs": [FRIEND, FRIEND, {"kind": "computer"}]}, "bad_level"),
        ({"seats": 4, "mode": "computer", "chairs": [FRIEND, FRIEND, FRIEND]}, "bad_mode"),
        ({"seats": 4, "turns": True, "chairs": [chair("facil")] * 3}, "bad_turns"),
    ]
    for body, code in cases:
        r = server.post("/api/rooms", body)
        assert r.status_code == 400 and r.json()["error"]["code"] == code, (body, r.text)
    made = server.post(
        "/api/rooms", {"seats": 4, "turns": True, "chairs": [FRIEND, chair("dificil"), FRIEND]}
    )
    assert made.status_code == 201 and made.json()["turns"] and made.json()["invite"]
