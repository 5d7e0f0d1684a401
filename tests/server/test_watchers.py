"""Watchers and quick reactions over real websockets against the real server.

The secrecy check reads every message a watcher received over whole matches and finds no
card that was not face up (or played, or captured) at that point: never a card in either
hand, never one of the deck. The true positions come from replaying the stored seed and
move log with the engine."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import websockets
from alembic import command

from server.engine import Card, Position
from server.i18n import DEFAULT, words
from server.protocol import (
    REACTIONS,
    ProtocolError,
    Reaction,
    ReactMsg,
    Watchers,
    Watching,
    WatchMsg,
    encode,
    parse_client,
    raw,
)
from server.store.migrate import alembic_config
from tests.support.dbkit import Database
from tests.support.seen import cards_in, positions
from tests.support.srvkit import (
    Client,
    ServerProc,
    is_event,
    pick_move,
    play_two,
    play_until,
    presence,
    saw,
)

ROOT = Path(__file__).resolve().parents[2]


def watch_code(answer: dict[str, Any]) -> str:
    url = answer["watch_url"]
    assert url.startswith("/v/")
    return str(url.removeprefix("/v/"))


def hidden_from_all(position: Position) -> set[Card]:
    return set(position.hands[0]) | set(position.hands[1]) | set(position.deck)


def check_watcher(client: Client, server: ServerProc, room: str, tokens: list[str]) -> int:
    """Every message the watcher received: no hidden card, and a view that matches the true
    position (so an empty or stale view does not pass). Returns the views checked."""
    after, played, movers = positions(server, room)

    def hidden_before(seq: int) -> set[Card]:
        hidden = hidden_from_all(after[seq - 1])
        hidden.discard(played[seq].card)  # the move of ``seq`` shows it
        return hidden

    for token in tokens:
        assert all(token not in raw for raw in client.raw)
    checked = 0
    for message in client.log:
        if "view" in message:
            view = dict(message["view"])
            seq = view["seq"]
            last = view.pop("last_move")
            true = after[seq]
            # first the cards: the view of a seat (its hand) fails here
            assert not cards_in(view) & hidden_from_all(true), message
            if last is not None:
                assert last["move"] == played[seq].to_json() and last["seat"] == movers[seq]
                assert not cards_in(last) & hidden_before(seq), last
            assert "hand" not in view and "options" not in view and "seat" not in view
            assert view["table"]["cards"] == [c.code for c in true.cards]
            assert [p["cards"] for p in view["table"]["piles"]] == [
                [c.code for c in p.cards] for p in true.piles
            ]
            assert view["hand_sizes"] == [len(true.hands[0]), len(true.hands[1])]
            assert view["deck_size"] == len(true.deck)
            assert view["limpias"] == list(true.limpias)
            assert view["turn"] == true.turn
            checked += 1
        if message["type"] == "event":
            assert not cards_in(message["event"]) & hidden_before(message["seq"]), message
        for entry in message.get("events", []):
            assert not cards_in(entry["event"]) & hidden_before(entry["seq"]), entry
    return checked


async def read_all(client: Client) -> None:
    """Reads what the server sent until a pong answers a ping sent now (frames to one
    connection arrive in order: everything sent before the pong is read)."""
    await client.send({"type": "ping"})
    await client.recv_until(lambda m: m["type"] == "pong")


def count_of(n: int) -> Callable[[dict[str, Any]], bool]:
    return lambda m: m["type"] == "watchers" and m["count"] == n


# -- watching whole matches --------------------------------------------------------------


async def test_a_watcher_follows_a_friend_match_and_sees_no_hidden_card(
    server: ServerProc,
) -> None:
    a_room, b_room = server.friend_room()
    code = watch_code(a_room)
    a, wa = await Client.hello(server, a_room["token"])
    b, wb = await Client.hello(server, b_room["token"])
    # both players are given the watch link; nobody watches yet
    assert wa["view"]["watch_url"] == wb["view"]["watch_url"] == a_room["watch_url"]
    assert wa["view"]["watchers"] == 0
    w, welcome = await Client.watcher(server, code)
    assert welcome["room"] == a_room["room"] and welcome["seq"] == 0
    view = welcome["view"]
    assert view["names"] == ["Ana", "Primo"] and view["watchers"] == 1
    assert (
        view["players"] == [{"kind": "person", "level": None, "chair": "person", "named": True}] * 2
    )
    assert [p["state"] for p in view["presence"]] == ["here", "here"]
    for player in (a, b):
        await saw(player, count_of(1))
    await play_two(a, b, is_event("new_hand"))
    # a second watcher arrives in the middle and catches up from a seq it had seen
    w2, welcome2 = await Client.watcher(server, code, since=3)
    assert [e["seq"] for e in welcome2["events"]][0] == 4
    assert welcome2["view"]["seq"] == welcome2["seq"] and welcome2["view"]["watchers"] == 2
    await saw(a, count_of(2))  # told within half a second
    end = await play_two(a, b, is_event("match_end"))
    for watcher in (w, w2):
        got = await saw(watcher, is_event("match_end"))
        assert got["seq"] == end["seq"] and got["event"] == end["event"]
        assert got["view"]["status"] == "finished"
        assert got["view"]["scores"] == end["view"]["scores"]
    # every move reached the watcher, in order, as it happened
    moves = [m["seq"] for m in w.log if m["type"] == "event" and m["event"]["kind"] == "move"]
    assert moves == list(range(1, end["seq"] + 1))
    tokens = [a_room["token"], b_room["token"]]
    assert check_watcher(w, server, a_room["room"], tokens) > 50
    assert check_watcher(w2, server, a_room["room"], tokens) > 20
    # the check is strong enough: the messages of a seat (its own hand) fail it
    with pytest.raises(AssertionError):
        check_watcher(a, server, a_room["room"], [])
    # the players are told when a watcher leaves
    await w2.close()
    await a.recv_until(count_of(1))
    for client in (w, a, b):
        await client.close()


async def test_a_watcher_follows_a_match_against_the_computer(server: ServerProc) -> None:
    room = server.computer_room("facil", name="Abuela")
    client, _ = await Client.hello(server, room["token"])
    w, welcome = await Client.watcher(server, watch_code(room))
    assert welcome["view"]["players"] == [
        {"kind": "person", "level": None, "chair": "person", "named": True},
        {"kind": "computer", "level": "facil", "chair": "computer", "named": False},
    ]
    assert welcome["view"]["presence"][1]["state"] == "computer"
    end = await play_until(client, is_event("match_end"))
    got = await saw(w, is_event("match_end"))
    assert got["view"]["winner"] == end["view"]["winner"]
    movers = {
        m["event"]["seat"] for m in w.log if m["type"] == "event" and m["event"]["kind"] == "move"
    }
    assert movers == {0, 1}
    assert check_watcher(w, server, room["room"], [room["token"]]) > 100
    # the player going away is news to the watcher too
    await client.close()
    await w.recv_until(presence(0, "away"))
    await w.close()


async def test_a_watcher_alone_keeps_the_room_and_sees_the_player_come_back(
    server: ServerProc,
) -> None:
    room = server.computer_room("facil")
    w, welcome = await Client.watcher(server, watch_code(room))  # loads the room
    assert welcome["view"]["presence"][0]["state"] == "arriving"
    client, _ = await Client.hello(server, room["token"])
    await w.recv_until(presence(0, "here"))
    assert client.view is not None
    answer = await client.move(pick_move(client.view))
    assert answer["type"] == "ack"
    got = await w.recv_until(lambda m: m["type"] == "event" and m["seq"] == answer["seq"])
    assert got["event"]["kind"] == "move" and got["event"]["seat"] == 0
    for c in (client, w):
        await c.close()


# -- what a watcher may not do -----------------------------------------------------------


async def test_a_watch_code_that_does_not_exist_is_refused(server: ServerProc) -> None:
    a_room, b_room = server.friend_room()
    for wrong in ("ZZZZZZZZZZZZ", a_room["invite"], a_room["token"][:32], a_room["room"]):
        client = await Client.open(server)
        await client.send({"type": "watch", "version": 3, "code": wrong})
        error = await client.recv()
        assert error["type"] == "error" and error["code"] == "watch_unknown", error
        assert error["message"] == "No encontramos esa mesa para mirar. Revisa el enlace."
        with pytest.raises(websockets.ConnectionClosed):
            await client.recv()
        await client.close()  # closed by the server: its socket too
    for bad in (
        {"type": "watch"},
        {"type": "watch", "version": 3, "code": 7},
        {"type": "watch", "version": 3, "code": "x" * 33},
        {"type": "watch", "version": 3, "code": "á"},
    ):
        client = await Client.open(server)
        await client.send(bad)
        error = await client.recv()
        assert error["code"] == "missing_field", (bad, error)
        await client.close()
    # the code is read as a person may type it: small letters, dashes, spaces
    code = watch_code(a_room)
    typed = f"{code[:4].lower()}-{code[4:8]} {code[8:]}"
    w, welcome = await Client.watcher(server, typed)
    assert welcome["room"] == a_room["room"]
    await w.close()


async def test_a_watcher_cannot_play_react_or_say_hello(server: ServerProc) -> None:
    a_room, b_room = server.friend_room()
    a, _ = await Client.hello(server, a_room["token"])
    w, welcome = await Client.watcher(server, watch_code(a_room))
    before = server.db_rows("select seq, version from rooms where id = ?", a_room["room"])
    assert a.view is not None
    move = {"kind": "trail", "card": a.view["hand"][0]}
    for message in (
        {"type": "move", "move": move, "seq": 0, "id": "w1"},
        {"type": "react", "reaction": "buena"},
        {"type": "rematch"},
        {"type": "takeover", "level": "facil"},
    ):
        await w.send(message)
        error = await w.recv_until(lambda m: m["type"] == "error")
        assert error["code"] == "watch_only", (message, error)
        assert error["message"] == "Estás mirando la mesa: desde aquí no se juega ni se reacciona."
    for message in (
        {"type": "hello", "version": 3, "token": a_room["token"]},
        {"type": "watch", "version": 3, "code": watch_code(a_room)},
    ):
        await w.send(message)
        error = await w.recv_until(lambda m: m["type"] == "error")
        assert error["code"] == "already_hello"
    await read_all(a)
    assert not [m for m in a.log if m["type"] in ("reaction", "event")]
    after = server.db_rows("select seq, version from rooms where id = ?", a_room["room"])
    assert after == before
    for c in (a, w):
        await c.close()


async def test_a_watchers_refusals_carry_the_messages_id(server: ServerProc) -> None:
    """Every answer to a message with a valid id carries it back (docs/protocol.md): a
    watcher's move, reaction, takeover or rematch refused with ``watch_only``, a second
    ``watch`` refused with ``already_hello``; without an id (or with a bad one), none."""
    a_room, _ = server.friend_room()
    w, _ = await Client.watcher(server, watch_code(a_room))
    move = {"kind": "trail", "card": "9s"}
    for message, code in (
        ({"type": "move", "move": move, "seq": 0, "id": "w-move"}, "watch_only"),
        ({"type": "react", "reaction": "buena", "id": "r-17"}, "watch_only"),
        ({"type": "takeover", "level": "facil", "id": "w-take"}, "watch_only"),
        ({"type": "rematch", "id": "w-again"}, "watch_only"),
        (
            {"type": "watch", "version": 3, "code": watch_code(a_room), "id": "w-twice"},
            "already_hello",
        ),
    ):
        await w.send(message)
        error = await w.recv_until(lambda m: m["type"] == "error")
        assert error["code"] == code and error.get("id") == message["id"], (message, error)
    for message in (
        {"type": "react", "reaction": "buena"},
        {"type": "rematch", "id": "has space"},
    ):
        await w.send(message)
        error = await w.recv_until(lambda m: m["type"] == "error")
        assert error["code"] == "watch_only" and "id" not in error, (message, error)
    await w.close()


async def test_a_count_back_to_the_last_one_told_still_reaches_who_saw_another(
    server: ServerProc,
) -> None:
    """The watcher count each listener shows is the true one once the changes settle, even
    when it came back to the count last told: a seat that learned "1" from its welcome
    while a watcher came and went, and a watcher that learned "2" from its own view while
    another one left."""
    room = server.computer_room("facil")
    code = watch_code(room)
    early, _ = await Client.watcher(server, code)  # before the seat opens its table
    seat, welcome = await Client.hello(server, room["token"])
    assert welcome["view"]["watchers"] == 1
    await early.close()
    await seat.recv_until(count_of(0), timeout=5)

    w1, _ = await Client.watcher(server, code)
    await seat.recv_until(count_of(1), timeout=5)  # told: 1
    w2, seen = await Client.watcher(server, code)
    assert seen["view"]["watchers"] == 2
    await w1.close()  # back to 1, the count last told
    await w2.recv_until(count_of(1), timeout=5)
    await read_all(seat)
    counts = [m["count"] for m in seat.log if m["type"] == "watchers"]
    assert counts[-1] == 1, counts
    for c in (seat, w2):
        await c.close()


async def test_a_room_takes_at_most_max_watchers(make_server: Callable[..., ServerProc]) -> None:
    server = make_server(MAX_WATCHERS="2").start()
    room = server.computer_room()
    player, _ = await Client.hello(server, room["token"])
    code = watch_code(room)
    w1, _ = await Client.watcher(server, code)
    w2, welcome = await Client.watcher(server, code)
    assert welcome["view"]["watchers"] == 2
    await player.recv_until(count_of(2))
    late = await Client.open(server)
    await late.send({"type": "watch", "version": 3, "code": code})
    error = await late.recv()
    assert error["type"] == "error" and error["code"] == "watchers_full"
    assert "2 personas" in error["message"]
    with pytest.raises(websockets.ConnectionClosed):
        await late.recv()
    await late.close()
    # nobody was told of the one turned away (nor of more than two, ever)
    await read_all(player)
    assert max(m["count"] for m in player.log if m["type"] == "watchers") == 2
    await w1.close()
    await player.recv_until(count_of(1))
    w3, welcome = await Client.watcher(server, code)  # a place was free again
    assert welcome["view"]["watchers"] == 2
    for c in (player, w2, w3):
        await c.close()


# -- quick reactions -----------------------------------------------------------------------


async def test_reactions_reach_the_other_seat_and_the_watchers(server: ServerProc) -> None:
    a_room, b_room = server.friend_room()
    a, _ = await Client.hello(server, a_room["token"])
    b, _ = await Client.hello(server, b_room["token"])
    w, _ = await Client.watcher(server, watch_code(a_room))
    await a.send({"type": "react", "reaction": "buena", "id": "r1"})
    for client in (b, w):
        got = await client.recv_until(lambda m: m["type"] == "reaction")
        assert got == {"type": "reaction", "seat": 0, "reaction": "buena"}
    await b.send({"type": "react", "reaction": "te_lo_subi"})
    got = await a.recv_until(lambda m: m["type"] == "reaction")
    assert got == {"type": "reaction", "seat": 1, "reaction": "te_lo_subi"}
    assert (await w.recv_until(lambda m: m["type"] == "reaction"))["seat"] == 1
    # not echoed to the sender: a saw only b's reaction, b only a's
    for client in (a, b):
        await read_all(client)
    assert [m["seat"] for m in a.log if m["type"] == "reaction"] == [1]
    assert [m["seat"] for m in b.log if m["type"] == "reaction"] == [0]
    # reactions are not stored: the room's row and its moves did not change
    assert server.db_rows("select seq from rooms where id = ?", a_room["room"]) == [(0,)]
    assert server.db_rows("select count(*) from moves where room_id = ?", a_room["room"]) == [(0,)]
    for c in (a, b, w):
        await c.close()


async def test_a_reaction_not_in_the_set_is_refused_and_changes_nothing(
    server: ServerProc,
) -> None:
    a_room, b_room = server.friend_room()
    a, _ = await Client.hello(server, a_room["token"])
    b, _ = await Client.hello(server, b_room["token"])
    w, _ = await Client.watcher(server, watch_code(a_room))
    for bad, code in (
        (" buena", "bad_reaction"),
        ("¡Buena!", "bad_reaction"),
        ("insulto", "bad_reaction"),
        (7, "bad_reaction"),
        (["buena"], "bad_reaction"),
        (None, "missing_field"),
    ):
        message: dict[str, Any] = {"type": "react", "id": "x1"}
        if bad is not None:
            message["reaction"] = bad
        await a.send(message)
        error = await a.recv_until(lambda m: m["type"] == "error")
        assert error["code"] == code and error["id"] == "x1", (bad, error)
    await a.send({"type": "react", "reaction": "ay_no"})
    # the first reaction the others get is the good one; none of the refused ones came
    for client in (b, w):
        got = await client.recv_until(lambda m: m["type"] == "reaction")
        assert got["reaction"] == "ay_no"
    # refused ones do not count against the limit: four more pass
    for _ in range(4):
        await a.send({"type": "react", "reaction": "aplausos"})
    for _ in range(4):
        await b.recv_until(lambda m: m["type"] == "reaction")
    for c in (a, b, w):
        await c.close()


async def test_reactions_are_limited_per_seat(server: ServerProc) -> None:
    a_room, b_room = server.friend_room()
    a, _ = await Client.hello(server, a_room["token"])
    b, _ = await Client.hello(server, b_room["token"])
    for n in range(5):
        await a.send({"type": "react", "reaction": "risa", "id": f"r{n}"})
    await a.send({"type": "react", "reaction": "risa", "id": "r5"})
    error = await a.recv_until(lambda m: m["type"] == "error")
    assert error["code"] == "rate_limited" and error["id"] == "r5"
    assert error["message"] == "Muchas reacciones seguidas. Espera unos segundos."
    await read_all(a)
    assert [m["id"] for m in a.log if m["type"] == "error"] == ["r5"]
    # the other seat got exactly five; its own limit is its own
    await read_all(b)
    assert len([m for m in b.log if m["type"] == "reaction"]) == 5
    await b.send({"type": "react", "reaction": "asombro", "id": "b1"})
    got = await a.recv_until(lambda m: m["type"] == "reaction")
    assert got["seat"] == 1 and got["reaction"] == "asombro"
    # moves are not limited by reactions: seat 0 can still play
    assert a.view is not None
    answer = await a.move(pick_move(a.view))
    assert answer["type"] == "ack"
    for c in (a, b):
        await c.close()


# -- the watch code in storage -----------------------------------------------------------


async def test_rooms_made_before_the_watch_link_get_a_code(db: Database) -> None:
    url = db.url.replace("postgresql+asyncpg://", "postgresql://")
    await asyncio.to_thread(command.upgrade, alembic_config(url), "0003_games")
    for n in range(3):
        db.execute(
            "insert into rooms (id, mode, seed, match_no, match_start_seq, status, "
            "name0, created_at, updated_at) values (?, 'computer', 's', 1, 0, "
            "'playing', 'Ana', 0, 0)",
            f"old{n}",
        )
    await asyncio.to_thread(command.upgrade, alembic_config(url), "head")
    codes = [r[0] for r in db.rows("select watch from rooms order by id")]
    assert len(set(codes)) == 3 and all(len(c) == 12 and c.isalnum() for c in codes)
    with pytest.raises(Exception, match="(?i)unique"):
        db.execute("update rooms set watch = ? where id = 'old1'", codes[0])


# -- the messages, read and written in one place ------------------------------------------


def refused(text: str) -> ProtocolError:
    with pytest.raises(ProtocolError) as caught:
        parse_client(text)
    return caught.value


def test_watch_and_react_are_read_by_the_one_parser() -> None:
    assert parse_client('{"type": "watch", "code": "abcd-EFGH 23_45"}') == WatchMsg(
        "ABCDEFGH2345", None
    )
    assert parse_client('{"type": "watch", "code": "K7", "since": 4}') == WatchMsg("K7", 4)
    for bad in (
        {"type": "watch"},
        {"type": "watch", "code": ""},
        {"type": "watch", "code": " - "},
        {"type": "watch", "code": "é"},
        {"type": "watch", "code": "A" * 33},
        {"type": "watch", "code": ["A"]},
        {"type": "watch", "code": "A", "since": -1},
    ):
        assert refused(json.dumps(bad)).code == "missing_field", bad
    assert parse_client('{"type": "react", "reaction": "buena"}') == ReactMsg("buena", None)
    assert parse_client('{"type": "react", "reaction": "risa", "id": "r-1"}') == ReactMsg(
        "risa", "r-1"
    )
    for reaction in REACTIONS:
        assert parse_client(json.dumps({"type": "react", "reaction": reaction})) == ReactMsg(
            reaction, None
        )
    error = refused('{"type": "react", "reaction": "BUENA", "id": "r-2"}')
    assert (error.code, error.id, error.message) == (
        "bad_reaction",
        "r-2",
        "Esa reacción no existe.",
    )
    error = refused('{"type": "react", "id": "r-3"}')
    assert (error.code, error.id) == ("missing_field", "r-3")
    assert (
        refused('{"type": "react", "reaction": "buena", "id": "con espacio"}').code
        == "missing_field"
    )


def test_the_watchers_messages_are_written_by_the_one_encoder() -> None:
    assert encode(Watchers(3)) == '{"type":"watchers","count":3}'
    assert encode(Reaction(1, "risa")) == '{"type":"reaction","seat":1,"reaction":"risa"}'
    assert encode(Watching("r1", 2, {"seq": 2}, [(2, raw({"kind": "deal"}))])) == (
        '{"type":"watching","room":"r1","seq":2,"view":{"seq":2},'
        '"events":[{"seq":2,"event":{"kind":"deal"}}]}'
    )


def test_the_client_shows_the_same_reactions_as_the_server() -> None:
    # the client's words come from the catalogs (issue 28): reaction.<id> in Spanish; an
    # emoji is drawn as written in ui/reactions.js
    text = (ROOT / "client" / "js" / "ui" / "reactions.js").read_text()
    found = [
        (rid, emoji or words(f"reaction.{rid}", DEFAULT))
        for kind, rid, emoji in re.findall(r'\b(words|emoji)\("([a-z_]+)"(?:, "([^"]+)")?\)', text)
    ]
    assert dict(found) == REACTIONS and len(found) == len(REACTIONS)
