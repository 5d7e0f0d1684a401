"""The delta frame (issue 31): a move's ``events`` frame carries the view's move part alone,
and a client keeps the rest from the last whole view, the ``presence`` and the ``watchers``
messages (client/js/lib/heldview.js; ``srvkit.apply_frame`` does the same here).

The safety check, against the real server: for every socket of a friend match (both seats
and the watchers), the frames it received, applied in order the way the client applies
them, give the whole view a fresh ``hello`` (``watch``) gets at that point: after moves, a
hand's end and the new deal, a watcher joining, a friend leaving and coming back, a
takeover by the computer and the friend taking the seat back, a match's end and a rematch.
And the split itself: every key of a view is in exactly one of its two parts."""

from __future__ import annotations

import asyncio
import json
import shutil
import subprocess
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from server.config import Settings
from server.engine import Match, Move
from server.rooms import views
from server.store import RoomState, SeatState
from tests.server.test_four_table import four_friends, play_table
from tests.support.srvkit import (
    Client,
    ServerProc,
    apply_frame,
    is_event,
    my_turn,
    pick_move,
    play_two,
    play_until,
    presence,
)

ROOT = Path(__file__).resolve().parents[2]

# -- the split ----------------------------------------------------------------------------


def moment(seat_count: int, *, waiting: bool = False, turns: bool = False) -> views.Moment:
    names = ("Ana", "Primo", "Rosa", "Tío")
    seats = tuple(
        SeatState("here", 0.0, name=None if waiting and s == 1 else names[s])
        for s in range(seat_count)
    )
    state = RoomState(
        id="r", mode="friend", level=None, seed="delta", match_no=1, match_start_seq=0, seq=0,
        version=0, invite="inv", seats=seats, turns=turns, watch="code",
    )  # fmt: skip
    return views.Moment(state, Match.new("delta", seat_count), None, 2, Settings(), 0.0)


ROOM_KEYS = frozenset(views.room_view(moment(2), 0))


@pytest.mark.parametrize("seat_count", [2, 4])
@pytest.mark.parametrize("waiting", [False, True])
@pytest.mark.parametrize("turns", [False, True])
def test_every_key_of_a_view_is_in_exactly_one_part(
    seat_count: int, waiting: bool, turns: bool
) -> None:
    m = moment(seat_count, waiting=waiting, turns=turns)
    shared = views.common(m)
    for seat in range(seat_count):
        move, room = views.move_view(m, seat, shared), views.room_view(m, seat, shared)
        assert not set(move) & set(room), set(move) & set(room)
        assert views.seat_view(m, seat) == {**move, **room}
        # a move's frame builds the shared move part alone: the same move part
        assert views.move_view(m, seat, views.common(m, room=False)) == move
        assert set(room) == ROOM_KEYS
    move, room = views.watcher_move_view(m, shared), views.room_view(m, None, shared)
    assert not set(move) & set(room)
    assert views.watcher_view(m) == {**move, **room}
    assert set(room) == ROOM_KEYS - {"seat", "invite", "watch_url"}
    assert "hand" not in move and "options" not in move


def test_the_room_part_is_what_a_move_leaves_alone() -> None:
    """What the issue names, and nothing a move changes (a move's keys are the move
    part's)."""
    named = {
        "seat", "seat_count", "names", "players", "match", "presence", "rematch",
        "categories", "turns", "turns_grace", "watchers", "invite", "watch_url",
    }  # fmt: skip
    assert named == ROOM_KEYS
    m = moment(2)
    after, _ = m.match.play(Move.from_json(pick_move(views.seat_view(m, m.match.position.turn))))
    played = replace(m, match=after, state=replace(m.state, seq=1))
    for seat in (0, 1):
        assert views.room_view(played, seat) == views.room_view(m, seat)


# -- the safety check, against the real server -------------------------------------------


def held(client: Client) -> dict[str, Any]:
    """The whole view ``client`` holds: its frames applied in order, as the browser does."""
    view: dict[str, Any] | None = None
    for frame in client.frames:
        view = apply_frame(view, frame)
    assert view is not None
    return view


def comparable(view: dict[str, Any]) -> dict[str, Any]:
    """The view but the grace seconds left, which count down between two messages."""
    return {
        **view,
        "presence": [{**p, "grace_left": None} for p in view["presence"]],
    }


def moves_carry_no_room_part(client: Client) -> None:
    for frame in client.frames:
        if frame["type"] == "events" and all(e["kind"] != "rematch" for e in frame["events"]):
            assert not set(frame["view"]) & ROOM_KEYS, sorted(set(frame["view"]) & ROOM_KEYS)


def watchers_count(count: int) -> Any:
    return lambda m: m["type"] == "watchers" and m["count"] == count


class Table:
    """A friend match: its seats' clients (None: no socket) and its watchers'."""

    def __init__(self, server: ServerProc, seats: list[Client | None], code: str) -> None:
        self.server = server
        self.seats = seats
        self.watchers: list[Client] = []
        self.code = code
        self.checks = 0

    def seat(self, seat: int) -> Client:
        client = self.seats[seat]
        assert client is not None, f"seat {seat} has no socket"
        return client

    async def leave(self, seat: int) -> None:
        await self.seat(seat).close()
        self.seats[seat] = None

    def listeners(self) -> list[Client]:
        return [c for c in self.seats if c is not None] + self.watchers

    async def check_seat(self, seat: int) -> None:
        """A fresh hello with the seat's token: its welcome is the truth; the old socket,
        told ``seat_moved`` after every frame sent to it before, must hold the same view."""
        old = self.seats[seat]
        assert old is not None and old.token is not None
        new, welcome = await Client.hello(self.server, old.token)
        await old.recv_until(lambda m: m["type"] == "seat_moved")
        assert comparable(held(old)) == comparable(welcome["view"]), f"seat {seat}"
        moves_carry_no_room_part(old)
        await old.close()
        self.seats[seat] = new

    async def check_watchers(self) -> None:
        """A fresh watch: its view is the truth (the count its own socket added, told to
        every listener in a ``watchers`` message, after every frame sent before)."""
        fresh, watching = await Client.watcher(self.server, self.code)
        count = watching["view"]["watchers"]
        for w in self.watchers:
            await w.recv_until(watchers_count(count))
            assert comparable(held(w)) == comparable(watching["view"]), "a watcher"
            moves_carry_no_room_part(w)
        await fresh.close()
        await self.settle(count - 1)

    async def settle(self, count: int) -> None:
        """Every listener was told the watchers' count is ``count``."""
        for c in self.listeners():
            await c.recv_until(watchers_count(count))

    async def check(self) -> None:
        """Every socket's view, applied frame by frame, is the view a fresh one gets."""
        for seat, client in enumerate(self.seats):
            if client is not None:
                await self.check_seat(seat)
        if self.watchers:
            await self.check_watchers()
        self.checks += 1


async def takeover_when_allowed(a: Client, left: dict[str, Any]) -> dict[str, Any]:
    """``takeover`` of the seat ``left`` (a presence message) once the grace time it told
    is over: its answer."""
    await asyncio.sleep(left["presence"]["grace_left"] + 0.02)  # the seconds left, as told
    deadline = time.monotonic() + 10
    while True:
        await a.send({"type": "takeover", "level": "facil", "seat": left["seat"]})
        answer = await a.recv_until(lambda m: m["type"] in ("state", "error"))
        if answer.get("code") != "too_early" or time.monotonic() > deadline:
            return answer
        await asyncio.sleep(0.05)  # a busy machine: the server's clock is the judge


def by_seat(seat: int, who: str = "person", nth: int = 1) -> Any:
    """A predicate: the ``nth`` move of ``seat`` by ``who`` among the messages it is asked
    about (each once, as ``srvkit._play`` asks)."""
    seen = [0]

    def found(m: dict[str, Any]) -> bool:
        event = m.get("event") or {}
        if m["type"] == "event" and event["kind"] == "move" and event["seat"] == seat:
            seen[0] += event.get("by", "person") == who
        return seen[0] >= nth

    return found


async def test_every_socket_holds_the_view_a_fresh_one_gets(server: ServerProc) -> None:
    a_room, b_room = server.friend_room()
    code = str(a_room["watch_url"]).removeprefix("/v/")
    a, _ = await Client.hello(server, a_room["token"])
    b, _ = await Client.hello(server, b_room["token"])
    table = Table(server, [a, b], code)
    first, _ = await Client.watcher(server, code)
    table.watchers.append(first)
    await table.settle(1)

    # moves
    await play_two(table.seat(0), table.seat(1), is_event("move"))
    await play_two(table.seat(0), table.seat(1), by_seat(1))
    await table.check()

    # a watcher joins (the count reaches the others in a watchers message)
    second, _ = await Client.watcher(server, code)
    table.watchers.append(second)
    await table.settle(2)
    await table.check()

    # a hand's end and the new deal
    await play_two(table.seat(0), table.seat(1), is_event("hand_end"))
    await play_two(table.seat(0), table.seat(1), is_event("move"))  # a move of the new hand
    await table.check()

    # a friend leaves (presence) and comes back
    await table.leave(1)
    for c in table.listeners():
        await c.recv_until(presence(1, "away"))
    await table.check()
    table.seats[1], _ = await Client.hello(server, b_room["token"])
    await table.seat(0).recv_until(presence(1, "here"))
    await table.check()

    # a takeover: the computer plays the friend's seat, and the friend takes it back
    await table.leave(1)
    a = table.seat(0)
    left = await a.recv_until(presence(1, "away"))
    answer = await takeover_when_allowed(a, left)
    assert answer["type"] == "state", answer
    assert answer["view"]["players"][1]["kind"] == "computer"
    await play_until(a, by_seat(1, "computer", nth=2))
    while not my_turn(a.view):  # the computer moved: the turn is a's (the computer waits)
        await a.recv()
    await table.check()
    table.seats[1], _ = await Client.hello(server, b_room["token"])
    for c in [table.seat(0), *table.watchers]:
        await c.recv_until(presence(1, "here"))
    await table.check()
    assert held(table.seat(0))["players"][1]["kind"] == "person"

    # a match's end and a rematch (a new match: its frame carries the whole view)
    await play_two(table.seat(0), table.seat(1), is_event("match_end"))
    await table.check()
    await table.seat(0).send({"type": "rematch"})
    await table.seat(1).recv_until(lambda m: m["type"] == "state" and m["view"]["rematch"][0])
    await table.seat(1).send({"type": "rematch"})
    for c in table.listeners():
        await c.recv_until(is_event("rematch"))
    await table.check()
    await play_two(table.seat(0), table.seat(1), is_event("move"))
    await table.check()
    assert table.checks == 10
    for c in table.listeners():
        await c.close()


# -- the browser's held view is the test kit's ------------------------------------------

FRAMES: list[dict[str, Any]] = [
    {"type": "welcome", "room": "r", "seat": 0, "seq": 3, "events": [],
     "view": {"seat": 0, "seq": 3, "hand": ["9s"], "presence": [{"state": "here"},
              {"state": "arriving"}], "watchers": 0, "players": ["p", "p"]}},
    {"type": "events", "seq": 4, "events": [{"kind": "move"}], "view": {"seq": 4, "hand": []}},
    {"type": "presence", "seat": 1, "presence": {"state": "away", "grace_left": 3}},
    {"type": "watchers", "count": 2},
    {"type": "pong"},
    {"type": "events", "seq": 5, "events": [{"kind": "move"}], "view": {"seq": 5, "hand": ["2c"]},
     "id": "c-1"},
    {"type": "state", "seq": 5, "view": {"seat": 0, "seq": 5, "hand": ["2c"], "watchers": 2,
     "presence": [{"state": "here"}, {"state": "computer"}], "players": ["p", "c"]}},
    {"type": "events", "seq": 6, "events": [{"kind": "move"}], "view": {"seq": 6}},
    {"type": "presence", "seat": 1, "presence": {"state": "here"}},
]  # fmt: skip

HELD_JS = """
import { HeldView } from "./client/js/lib/heldview.js";
const held = new HeldView();
const frames = JSON.parse(process.argv[1]);
const out = frames.map((f) => {
  const seen = held.receive(f);
  return { view: held.view, frame: seen.view ?? null };
});
console.log(JSON.stringify(out));
"""


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not on this machine")
def test_the_browsers_held_view_is_the_test_kits() -> None:
    """client/js/lib/heldview.js holds, frame after frame, the view ``srvkit.apply_frame``
    holds (the safety check above trusts the one to speak for the other), and hands the
    screen each ``events`` frame with that whole view."""
    run = subprocess.run(
        ["node", "--input-type=module", "-e", HELD_JS, json.dumps(FRAMES)],
        cwd=ROOT, capture_output=True, text=True, check=True, timeout=60,
    )  # fmt: skip
    told = json.loads(run.stdout)
    view: dict[str, Any] | None = None
    for frame, browser in zip(FRAMES, told, strict=True):
        view = apply_frame(view, frame)
        assert browser["view"] == view, frame
        if frame["type"] == "events":
            assert browser["frame"] == view
    assert view is not None and view["presence"][1] == {"state": "here"}
    assert view["seq"] == 6 and view["hand"] == ["2c"] and view["players"] == ["p", "c"]


async def test_four_seats_hold_the_view_a_fresh_one_gets(server: ServerProc) -> None:
    """The same at a table of four: moves, a friend leaving, the computer playing their
    chair and the friend taking it back, each seat's presence its own too."""
    ana, seats = four_friends(server)
    clients = [(await Client.hello(server, s["token"]))[0] for s in seats]
    table = Table(server, list(clients), str(ana["watch_url"]).removeprefix("/v/"))
    watcher, _ = await Client.watcher(server, table.code)
    table.watchers.append(watcher)
    await table.settle(1)

    def people() -> tuple[Client, ...]:
        return tuple(c for c in table.seats if c is not None)

    await play_table(people(), lambda m: m["type"] == "event" and m["seq"] >= 5)
    await table.check()

    await table.leave(3)
    left = await table.seat(0).recv_until(presence(3, "away"))
    for c in table.listeners()[1:]:
        await c.recv_until(presence(3, "away"))
    await table.check()
    first = table.seat(0)
    answer = await takeover_when_allowed(first, left)
    assert answer["type"] == "state" and answer["view"]["players"][3]["level"], answer
    for c in table.listeners()[1:]:
        await c.recv_until(lambda m: m["type"] == "state" and m["view"]["players"][3]["level"])
    await play_table(people(), by_seat(3, "computer"))
    while first.view is None or first.view["turn"] == 3:  # a person's turn: nobody moves
        await first.recv()
    await table.check()
    table.seats[3], _ = await Client.hello(server, seats[3]["token"])
    for c in [table.seat(0), table.seat(1), table.seat(2), *table.watchers]:
        await c.recv_until(presence(3, "here"))
    await table.check()
    assert held(table.seat(1))["players"][3]["kind"] == "person"
    for c in table.listeners():
        await c.close()
