"""What is listed without loading a room: every seat a device holds (Mis partidas) and a
match as stored (its seed and moves, for a replay)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select

from .database import Database, storable
from .records import SeatListing, StoredMatch
from .rooms import scores_of
from .tables import finished_matches, moves, rooms, seats


class ListingStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    async def seats(self, token_hashes: list[str]) -> list[SeatListing]:
        """The games of the seats with these token hashes (unknown ones are left out)."""
        if not token_hashes:
            return []
        mine = (
            select(
                seats.c.token_hash,
                seats.c.seat,
                rooms.c.id,
                rooms.c.mode,
                rooms.c.level,
                rooms.c.turns,
                rooms.c.status,
                rooms.c.match_no,
                rooms.c.turn,
                rooms.c.scores,
                rooms.c.moved_at,
                rooms.c.created_at,
            )
            .join(rooms, rooms.c.id == seats.c.room_id)
            .where(seats.c.token_hash.in_(token_hashes))
        )
        async with self.db.engine.connect() as conn:
            rows = (await conn.execute(mine)).all()
            room_ids = sorted({r.id for r in rows})
            every_seat = (
                (
                    await conn.execute(
                        select(
                            seats.c.room_id,
                            seats.c.seat,
                            seats.c.name,
                            seats.c.rematch,
                            seats.c.takeover,
                            seats.c.computer,
                        )
                        .where(seats.c.room_id.in_(room_ids))
                        .order_by(seats.c.room_id, seats.c.seat)
                    )  # fmt: skip
                ).all()
                if room_ids
                else []
            )
        by_room: dict[str, list[Any]] = {}
        for seat_row in every_seat:
            by_room.setdefault(seat_row.room_id, []).append(seat_row)
        return [
            SeatListing(
                r.token_hash,
                r.id,
                int(r.seat),
                r.mode,
                r.level,
                bool(r.turns),
                r.status,
                tuple(s.name for s in by_room[r.id]),
                r.match_no,
                r.turn,
                scores_of(r.scores),
                r.moved_at,
                r.created_at,
                tuple(bool(s.rematch) for s in by_room[r.id]),
                tuple(s.takeover for s in by_room[r.id]),
                tuple(s.computer for s in by_room[r.id]),
            )
            for r in rows
        ]

    async def match(self, room_id: str, match_no: int) -> StoredMatch | None:
        if not storable(room_id):
            return None
        async with self.db.engine.connect() as conn:
            room = (await conn.execute(select(rooms).where(rooms.c.id == room_id))).first()
            if room is None or not 1 <= match_no <= room.match_no:
                return None
            if match_no < room.match_no:
                done = (
                    await conn.execute(
                        select(finished_matches.c.seed).where(
                            finished_matches.c.room_id == room_id,
                            finished_matches.c.match_no == match_no,
                        )
                    )
                ).first()
                if done is None:
                    return None
                seed, finished = str(done.seed), True
            else:
                seed, finished = str(room.seed), room.status == "finished"
            rows = (
                await conn.execute(
                    select(moves.c.seat, moves.c.move, moves.c.client_id)
                    .where(moves.c.room_id == room_id, moves.c.match_no == match_no)
                    .order_by(moves.c.seq)
                )
            ).all()
            seat_rows = (
                await conn.execute(
                    select(seats.c.name, seats.c.computer)
                    .where(seats.c.room_id == room_id)
                    .order_by(seats.c.seat)
                )
            ).all()
        return StoredMatch(
            room_id,
            match_no,
            room.mode,
            room.level,
            tuple(row.name for row in seat_rows),
            seed,
            tuple((int(r.seat), str(r.move), r.client_id is None) for r in rows),
            finished,
            tuple(row.computer for row in seat_rows),
        )
