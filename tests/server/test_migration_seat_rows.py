"""Migrations 0007 (seats as rows, scores as lists) and 0009 (computer chairs) on a database
that holds rooms of the release before them, SQLite and PostgreSQL both: every room keeps
its names, tokens, scores and finished matches, and stays playable (a move, a friend
joining, a rematch's record), and the migrations go back down to the old columns."""

from __future__ import annotations

import asyncio
import time

from alembic import command

from server.ai.pool import AiPool
from server.cluster import LocalHub
from server.config import Settings
from server.engine import Match, legal_moves
from server.lobby.tokens import hash_secret
from server.rooms import RoomRegistry
from server.rooms.commands import Join, Submit
from server.store import Storage
from server.store.migrate import alembic_config, upgrade
from tests.support.dbkit import Database
from tests.support.rooms import held_lease

SEED = "semilla"


def old_room(db: Database, room_id: str, **columns: object) -> None:
    """A room's row as the release before 0007 wrote it."""
    now = time.time()
    row: dict[str, object] = {
        "id": room_id, "mode": "friend", "level": None, "seed": SEED, "match_no": 1,
        "match_start_seq": 0, "status": "playing", "seq": 0, "version": 1, "name0": "Ana",
        "name1": None, "invite": None, "created_at": now, "updated_at": now, "owner": None,
        "epoch": 0, "turns": False, "turn": 0, "score0": 0, "score1": 0, "moved_at": None,
        "watch": f"W{room_id}",
    }  # fmt: skip
    row.update(columns)
    names = ", ".join(row)
    marks = ", ".join("?" for _ in row)
    db.execute(f"insert into rooms ({names}) values ({marks})", *row.values())


def old_seat(db: Database, room_id: str, seat: int, token: str) -> None:
    db.execute(
        "insert into seats (room_id, seat, token_hash, presence, since, takeover, rematch) "
        "values (?, ?, ?, 'away', 1.0, null, ?)",
        room_id, seat, hash_secret(token), False,
    )  # fmt: skip


def two_moves(db: Database, room_id: str) -> Match:
    """Two moves of the match ``SEED`` stored for ``room_id`` (seq 1 and 2)."""
    match = Match.new(SEED)
    for seq in (1, 2):
        seat = match.position.turn
        move = legal_moves(match.position)[0]
        db.execute(
            "insert into moves (room_id, seq, match_no, seat, move, client_id, created_at) "
            "values (?, ?, 1, ?, ?, ?, 1.0)",
            room_id, seq, seat, move.to_text(), f"m{seq}",
        )  # fmt: skip
        match, _ = match.play(move)
    return match


async def test_rooms_of_the_release_before_keep_playing(db: Database) -> None:
    config = alembic_config(db.url)
    await asyncio.to_thread(command.upgrade, config, "0006")
    # a friend game with two moves played, a computer game in its second match, and an
    # invitation nobody took yet
    old_room(db, "f1", name1="Primo", invite="INVF1", seq=2, version=3, turn=0)
    old_seat(db, "f1", 0, "ana")
    old_seat(db, "f1", 1, "primo")
    match = two_moves(db, "f1")
    old_room(db, "c1", mode="computer", level="facil", name1="Computadora", match_no=2,
             score0=0, score1=0)  # fmt: skip
    old_seat(db, "c1", 0, "ana-c")
    db.execute(
        "insert into finished_matches (room_id, match_no, seed, winner, score0, score1, "
        "first_seq, last_seq, finished_at) values ('c1', 1, 'viejo', 1, 12, 21, 1, 90, 2.0)"
    )
    old_room(db, "w1", status="waiting", invite="INVW1", turn=None, score0=None, score1=None)
    old_seat(db, "w1", 0, "ana-w")

    await asyncio.to_thread(upgrade, db.url)

    storage = Storage.open(db.url)
    try:
        friend = await storage.rooms.load("f1")
        assert friend is not None and friend.names == ("Ana", "Primo")
        computer = await storage.rooms.load("c1")
        assert computer is not None and computer.names == ("Ana", "Computadora")
        # 0009: the computer room's seat is the computer's chair, at the room's level
        assert [seat.computer for seat in computer.seats] == [None, "facil"]
        assert computer.computer_seat(1) and not computer.computer_seat(0)
        assert [seat.computer for seat in friend.seats] == [None, None]
        waiting = await storage.rooms.load("w1")
        assert waiting is not None and waiting.names == ("Ana", None)
        assert await storage.seats.room_of(hash_secret("primo")) == ("f1", 1)
        listed = {
            game.room_id: game
            for game in await storage.listings.seats(
                [hash_secret(t) for t in ("ana", "ana-c", "ana-w")]
            )
        }
        assert listed["f1"].names == ("Ana", "Primo") and listed["f1"].scores == (0, 0)
        assert listed["c1"].names == ("Ana", "Computadora")
        assert listed["w1"].names == ("Ana", None) and listed["w1"].scores is None
        assert db.rows("select scores from finished_matches where room_id = 'c1'") == [
            ("[12, 21]",)
        ]

        lease = await held_lease(storage)
        settings = Settings(computer_delay=3600)
        registry = RoomRegistry(storage, LocalHub(), settings, AiPool(0).choose, lease)
        try:
            room = await registry.get("f1")
            assert room is not None and room.match == match
            seat = match.position.turn
            move = legal_moves(match.position)[0]
            assert await room.ask(Submit(seat, move, 2, "m3")) is None  # played
            assert db.rows("select seq, seat from moves where room_id = 'f1' and seq = 3") == [
                (3, seat)
            ]
            invited = await registry.get("w1")
            assert invited is not None
            assert await invited.ask(Join("Primo", hash_secret("primo-w"), None)) == 1
            assert await storage.seats.room_of(hash_secret("primo-w")) == ("w1", 1)
            assert db.rows("select name from seats where room_id = 'w1' order by seat") == [
                ("Ana",),
                ("Primo",),
            ]
        finally:
            await registry.shut_down()
    finally:
        await storage.close()

    # and back down: the old columns again, as they were
    await asyncio.to_thread(command.downgrade, config, "0006")
    assert db.rows("select name0, name1, score0, score1 from rooms where id = 'c1'") == [
        ("Ana", "Computadora", 0, 0)
    ]
    assert db.rows("select score0, score1 from finished_matches") == [(12, 21)]
    assert db.rows("select seat from seats where room_id = 'c1'") == [(0,)]
