"""Rooms as stored: a room's row, its seats' rows and its move log, and THE write of a room.

Every write of a room is one ``RoomWrite``: the room's new state, conditional on the version
it was decided from and on the epoch of the owner that decided it (``StaleRoom`` when
another copy wrote first or another process claimed the room), with the move, the finished
match, the seat's new token or the used rejoin code that came with it, in one transaction,
committed before the call returns. ``write_rooms`` is the one function that does it, for
one write or for the hundreds of a busy batch alike: one read of the rooms' versions, the
decision for each write, then one statement of each kind for all the accepted ones.
"""

from __future__ import annotations

import json
import time
from typing import Any

from sqlalchemy import Connection, bindparam, delete, func, insert, select, update
from sqlalchemy.sql import Select, Update

from ..engine.seats import TEAMS
from . import driver
from .database import Database, storable
from .records import (
    CREATOR,
    MoveRecord,
    RejoinError,
    RoomState,
    RoomWrite,
    SeatState,
    StaleRoom,
)
from .tables import finished_matches, moves, push_subscriptions, rejoin_codes, rooms, seats

# -- rows ---------------------------------------------------------------------------------

ROOM_COLUMNS = (
    "mode", "level", "seed", "match_no", "match_start_seq", "seq", "version", "status",
    "invite", "turns",
)  # fmt: skip
LISTING_COLUMNS = ("turn", "scores")
SEAT_COLUMNS = ("presence", "since", "takeover", "rematch", "name", "computer")


def room_values(room: RoomState, status: str) -> dict[str, Any]:
    return {
        "mode": room.mode,
        "level": room.level,
        "seed": room.seed,
        "match_no": room.match_no,
        "match_start_seq": room.match_start_seq,
        "seq": room.seq,
        "version": room.version,
        "status": status,
        "invite": room.invite,
        "turns": room.turns,
    }


def seat_values(state: SeatState) -> dict[str, Any]:
    return {
        "presence": state.presence,
        "since": state.since,
        "takeover": state.takeover,
        "rematch": state.rematch,
        "name": state.name,
        "computer": state.computer,
    }


def seat_state(row: Any) -> SeatState:
    return SeatState(
        presence=row.presence,
        since=row.since,
        takeover=row.takeover,
        rematch=bool(row.rematch),
        name=row.name,
        computer=row.computer,
    )


def scores_text(scores: tuple[int, ...]) -> str:
    """The match scores as stored: one per team, a JSON list."""
    return json.dumps(list(scores))


def scores_of(text: str | None) -> tuple[int, ...] | None:
    return None if text is None else tuple(json.loads(text))


# -- the write ----------------------------------------------------------------------------


def _held(count: int) -> Select[Any]:
    """The rooms' versions and epochs, for ``count`` rooms (``b_id0``…)."""
    return (
        select(rooms.c.id, rooms.c.version, rooms.c.epoch)
        .where(rooms.c.id.in_([bindparam(f"b_id{i}") for i in range(count)]))
        .order_by(rooms.c.id)
        .with_for_update()  # PostgreSQL: no other writer of these rooms until commit
    )


_CODES_USED = (
    select(rejoin_codes.c.id, rejoin_codes.c.used_at)
    .where(rejoin_codes.c.id.in_(bindparam("b_ids", expanding=True)))
    .with_for_update()
)


def _fenced(columns: tuple[str, ...]) -> Update:
    """The conditional update of a room's row: only where the room is still at the version
    the write was decided from and still held at the writer's epoch."""
    values: dict[str, Any] = {name: bindparam(f"b_{name}") for name in columns}
    values["updated_at"] = bindparam("b_now")
    values["moved_at"] = func.coalesce(bindparam("b_moved_at"), rooms.c.moved_at)
    return (
        update(rooms)
        .where(
            rooms.c.id == bindparam("b_id"),
            rooms.c.version == bindparam("b_expected"),
            rooms.c.epoch == bindparam("b_epoch"),
        )
        .values(values)
    )


_FENCED_WITH_LISTING = _fenced(ROOM_COLUMNS + LISTING_COLUMNS)
_FENCED = _fenced(ROOM_COLUMNS)  # a write that leaves the listing columns as they are
_SEAT = (
    update(seats)
    .where(seats.c.room_id == bindparam("b_room"), seats.c.seat == bindparam("b_seat"))
    .values({name: bindparam(f"b_{name}") for name in SEAT_COLUMNS})
)
MOVE_COLUMNS = ("room_id", "seq", "match_no", "seat", "move", "client_id", "created_at")
_MOVE = insert(moves).values({name: bindparam(f"b_{name}") for name in MOVE_COLUMNS})
# every move's statements, straight on the driver (driver.py), compiled once per dialect
STATEMENTS = driver.DriverStatements()


def write_rooms(conn: Connection, writes: list[RoomWrite]) -> list[Exception | None]:
    """THE write of rooms, in ``conn``'s transaction: for each write None (written) or the
    domain outcome that refused it with nothing written (``StaleRoom``, ``RejoinError``)."""
    now = time.time()
    results: list[Exception | None] = [None] * len(writes)
    ids = sorted({w.room.id for w in writes})
    query = STATEMENTS.compiled(conn, ("held", len(ids)), lambda: _held(len(ids)))
    held = {
        room_id: (version, epoch)
        for room_id, version, epoch in driver.fetch(
            conn, query, {f"b_id{i}": room_id for i, room_id in enumerate(ids)}
        )
    }
    code_ids = sorted({w.use_code[0] for w in writes if w.use_code is not None})
    used = (
        {row.id: row.used_at for row in conn.execute(_CODES_USED, {"b_ids": code_ids})}
        if code_ids
        else {}
    )
    accepted: list[RoomWrite] = []
    for i, w in enumerate(writes):
        if w.use_code is not None and used.get(w.use_code[0]) is not None:
            results[i] = RejoinError("code_used")  # checked first: a used code writes nothing
            continue
        if held.get(w.room.id) != (w.room.version - 1, w.epoch):
            results[i] = StaleRoom(w.room.id)
            continue
        held[w.room.id] = (w.room.version, w.epoch)  # the same room again in this batch
        if w.use_code is not None:
            used[w.use_code[0]] = now
        accepted.append(w)
    if accepted:
        _apply(conn, accepted, now)
    return results


def _apply(conn: Connection, writes: list[RoomWrite], now: float) -> None:
    """The statements of the accepted writes, each kind once for all of them."""
    for key, statement, group in (
        ("fenced+listing", _FENCED_WITH_LISTING, [w for w in writes if w.listing is not None]),
        ("fenced", _FENCED, [w for w in writes if w.listing is None]),
    ):
        if not group:
            continue
        compiled = STATEMENTS.compiled(conn, key, lambda statement=statement: statement)
        written = driver.run_many(conn, compiled, [_fence_params(w, now) for w in group])
        if written not in (-1, len(group)):  # -1: this driver does not count (asyncpg)
            raise RuntimeError("a room changed under its write")  # held locked: never
    for w in writes:
        if w.join is not None:  # a friend joined a seat: its token (its row is written below)
            seat, token_hash, key_hash = w.join
            conn.execute(
                update(seats)
                .where(seats.c.room_id == w.room.id, seats.c.seat == seat)
                .values(token_hash=token_hash, join_key_hash=key_hash)
            )
    seat_rows = [
        {"b_room": w.room.id, "b_seat": s} | _params(seat_values(w.room.seats[s]))
        for w in writes
        for s in w.seats
    ]
    if seat_rows:
        driver.run_many(conn, STATEMENTS.compiled(conn, "seat", lambda: _SEAT), seat_rows)
    for w in writes:
        if w.new_token is not None:  # a seat moved to another device: its new token
            seat, token_hash = w.new_token
            conn.execute(
                update(seats)
                .where(seats.c.room_id == w.room.id, seats.c.seat == seat)
                .values(token_hash=token_hash)
            )
            # the old device's Web Push subscription goes with its token (issue 29)
            conn.execute(
                delete(push_subscriptions).where(
                    push_subscriptions.c.room_id == w.room.id, push_subscriptions.c.seat == seat
                )
            )
        if w.use_code is not None and w.new_token is not None:
            code_id, key_hash = w.use_code
            conn.execute(
                update(rejoin_codes)
                .where(rejoin_codes.c.id == code_id)
                .values(used_at=now, key_hash=key_hash)
            )
            # moving the seat ends every other live code of it
            conn.execute(
                update(rejoin_codes)
                .where(
                    rejoin_codes.c.room_id == w.room.id,
                    rejoin_codes.c.seat == w.new_token[0],
                    rejoin_codes.c.used_at.is_(None),
                )
                .values(used_at=now)
            )
    moved = [(w.room.id, w.move) for w in writes if w.move is not None]
    if moved:
        driver.run_many(
            conn,
            STATEMENTS.compiled(conn, "move", lambda: _MOVE),
            [
                {"b_room_id": room_id, "b_seq": m.seq, "b_match_no": m.match_no,
                 "b_seat": m.seat, "b_move": m.move, "b_client_id": m.client_id,
                 "b_created_at": now}
                for room_id, m in moved
            ],
        )  # fmt: skip
    finished = [(w.room.id, w.finished) for w in writes if w.finished is not None]
    if finished:
        conn.execute(
            insert(finished_matches),
            [
                {"room_id": room_id, "match_no": f.match_no, "seed": f.seed, "winner": f.winner,
                 "scores": scores_text(f.scores), "first_seq": f.first_seq,
                 "last_seq": f.last_seq, "finished_at": now}
                for room_id, f in finished
            ],
        )  # fmt: skip


def _params(values: dict[str, Any]) -> dict[str, Any]:
    """Column values as the bind parameters of the statements above."""
    return {f"b_{name}": value for name, value in values.items()}


def _fence_params(w: RoomWrite, now: float) -> dict[str, Any]:
    params = _params(room_values(w.room, w.status))
    params.update(
        b_id=w.room.id,
        b_expected=w.room.version - 1,
        b_epoch=w.epoch,
        b_now=now,
        b_moved_at=now if w.move is not None or w.finished is not None else None,
    )
    if w.listing is not None:
        params.update(b_turn=w.listing.turn, b_scores=scores_text(w.listing.scores))
    return params


# -- the store ----------------------------------------------------------------------------


class RoomStore:
    """Rooms: made, loaded, their moves read, and written (``write``: a ``RoomWrite``)."""

    def __init__(self, db: Database) -> None:
        self.db = db
        db.batch(RoomWrite, write_rooms)

    async def create(self, room: RoomState, status: str, token_hash: str) -> None:
        """Stores a new room, held by nobody yet (epoch 0): its first visitor claims it. Every
        seat has a row; the creator's holds ``token_hash``."""

        def job(conn: Connection) -> None:
            now = time.time()
            conn.execute(
                insert(rooms).values(  # every match starts with seat 0 to move
                    id=room.id,
                    created_at=now,
                    updated_at=now,
                    owner=None,
                    epoch=0,
                    watch=room.watch,
                    turn=CREATOR if status == "playing" else None,
                    scores=scores_text(tuple(0 for _ in TEAMS)),
                    **room_values(room, status),
                )
            )
            conn.execute(
                insert(seats),
                [
                    {"room_id": room.id, "seat": seat,
                     "token_hash": token_hash if seat == CREATOR else None,
                     **seat_values(state)}
                    for seat, state in enumerate(room.seats)
                ],
            )  # fmt: skip

        await self.db.write(job)

    async def write(self, change: RoomWrite) -> None:
        """Commits ``change``; raises StaleRoom (or RejoinError for a used code) with
        nothing written."""
        await self.db.write(change)

    async def load(self, room_id: str) -> RoomState | None:
        if not storable(room_id):
            return None
        async with self.db.engine.connect() as conn:
            row = (await conn.execute(select(rooms).where(rooms.c.id == room_id))).first()
            if row is None:
                return None
            seat_rows = (
                await conn.execute(
                    select(seats).where(seats.c.room_id == room_id).order_by(seats.c.seat)
                )
            ).all()
        return RoomState(
            id=row.id,
            mode=row.mode,
            level=row.level,
            seed=row.seed,
            match_no=row.match_no,
            match_start_seq=row.match_start_seq,
            seq=row.seq,
            version=row.version,
            invite=row.invite,
            seats=tuple(seat_state(seat_row) for seat_row in seat_rows),
            turns=bool(row.turns),
            watch=row.watch,
        )

    async def load_moves(self, room_id: str, after_seq: int) -> list[MoveRecord]:
        async with self.db.engine.connect() as conn:
            rows = (
                await conn.execute(
                    select(
                        moves.c.seq, moves.c.match_no, moves.c.seat, moves.c.move, moves.c.client_id
                    )
                    .where(moves.c.room_id == room_id, moves.c.seq > after_seq)
                    .order_by(moves.c.seq)
                )
            ).all()
        return [MoveRecord(r.seq, r.match_no, r.seat, r.move, r.client_id) for r in rows]
