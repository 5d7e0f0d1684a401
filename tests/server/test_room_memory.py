"""A room keeps only what a resume or a retried move can still ask for (issue 31): the
events of its last seqs (``live.KEPT_SEQS``; an older resume is replayed from storage, and
gets exactly what was told live) and the answers to each seat's last move ids
(``live.MAX_REMEMBERED_IDS``; an older id resent with its old seq is refused, never
played twice). Real servers, SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from server.engine import Match, legal_moves
from server.rooms.history import hand_plays, restore
from server.rooms.live import KEPT_SEQS, MAX_REMEMBERED_IDS
from server.rooms.timers import Timers
from server.store import MoveRecord, RoomState, SeatState
from tests.support.srvkit import Client, ServerProc, pick_move, play_two


def told_events(client: Client, after: int) -> list[tuple[int, Any]]:
    return [(m["seq"], m["event"]) for m in client.log if m["type"] == "event" and m["seq"] > after]


async def test_a_resume_older_than_memory_is_served_from_storage(server: ServerProc) -> None:
    first, second = server.friend_room()
    a, _ = await Client.hello(server, first["token"])
    b, _ = await Client.hello(server, second["token"])
    goal = 3 * KEPT_SEQS
    await play_two(a, b, lambda m: "view" in m and m["view"]["seq"] >= goal)
    told = b  # what seat 1 was told live
    for since in (1, a.seq - KEPT_SEQS - 2, a.seq - 2):  # storage, storage, memory
        b, welcome = await Client.hello(server, second["token"], since=since)
        got = [(e["seq"], e["event"]) for e in welcome["events"]]
        assert got == told_events(told, since), since
        assert got[-1][0] == welcome["seq"] == a.seq
    await a.close()
    await b.close()


async def test_the_last_move_ids_are_answered_again_older_ones_are_stale(
    server: ServerProc,
) -> None:
    first, second = server.friend_room()
    a, _ = await Client.hello(server, first["token"])
    b, _ = await Client.hello(server, second["token"])
    sent: list[tuple[str, dict[str, Any], int, dict[str, Any]]] = []  # id, move, seq, answer
    while len(sent) < MAX_REMEMBERED_IDS + 3:
        mover, other = (a, b) if a.view and a.view["turn"] == a.view["seat"] else (b, a)
        assert mover.view is not None
        move, seq = pick_move(mover.view), mover.seq
        answer = await mover.move(move)
        assert answer["type"] == "ack", answer
        if mover is a:
            sent.append((f"{a.prefix}-{a.counter}", move, seq, answer))
        await other.recv_until(lambda m, s=answer["seq"]: "view" in m and m["view"]["seq"] >= s)
    played = a.seq
    # a's last move id, resent as a client resends its last unanswered move: the same ack
    move_id, move, seq, answer = sent[-1]
    again = await a.move(move, seq=seq, move_id=move_id)
    assert again == answer
    # an id older than the answers kept: refused (its seq is gone: stale, or the turn is
    # another's), nothing played
    move_id, move, seq, _ = sent[0]
    old = await a.move(move, seq=seq, move_id=move_id)
    assert old["type"] == "error" and old["code"] in ("stale", "not_your_turn"), old
    assert a.seq == played
    await a.close()
    await b.close()


def test_a_hand_played_without_difficil_is_replayed_for_it_from_storage() -> None:
    """The plays of the current hand, replayed from the stored moves (a Difícil that takes a
    seat over in the middle of a hand), are those a room where Difícil may play keeps."""
    state = RoomState(
        id="r", mode="friend", level=None, seed="manos", match_no=1, match_start_seq=0, seq=0,
        version=0, invite=None,
        seats=(SeatState("here", 0.0, name="Ana"), SeatState("here", 0.0, name="Primo")),
    )  # fmt: skip
    match, records = Match.new(state.seed), []
    for seq in range(1, 31):  # into the second deal of the hand
        seat = match.position.turn
        move = legal_moves(match.position)[seq % 3 % len(legal_moves(match.position))]
        records.append(MoveRecord(seq, 1, seat, move.to_text(), f"m{seq}"))
        match, _ = match.play(move)
    friends = replace(state, seq=30)
    dificil = replace(friends.seats[1], takeover="dificil")  # Difícil plays Primo's seat
    kept = restore(friends.with_seat(1, dificil), records).plays.of(1, match)
    assert restore(friends, records).plays.of(1, match) is None  # not kept here
    assert kept is not None and len(kept) == 30
    assert hand_plays(friends, records) == kept


async def test_a_named_timer_replaces_the_older_one_of_its_name() -> None:
    """One stall (idle, hand-off) timer a room: a newer one cancels the older, which would
    have found its turn gone; timers of other names, or none, are kept."""
    timers, fired = Timers(), list[tuple[str, int]]()

    def stall(turn: int) -> Callable[[], None]:
        return lambda: fired.append(("stall", turn))

    for turn in range(50):
        timers.after(0.05, stall(turn), "stall")
    timers.after(0.05, lambda: fired.append(("idle", 0)), "idle")
    timers.after(0.05, lambda: fired.append(("computer", 0)))
    assert len(timers._handles) == 3
    deadline = asyncio.get_running_loop().time() + 10
    while len(fired) < 3 and asyncio.get_running_loop().time() < deadline:
        await asyncio.sleep(0.01)
    assert sorted(fired) == [("computer", 0), ("idle", 0), ("stall", 49)]
    assert not timers._handles and not timers._named
