"""What is listed without loading a room: every seat a device holds (Mis partidas) and a
match as stored (its seed and moves, for a replay)."""

from __future__ import annotations

from sqlalchemy import select

from .database import Database, storable
from .records import SeatListing, StoredMatch
from .tables import finished_matches, moves, rooms, seats


class ListingStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    async def seats(self, token_hashes: list[str]) -> list[SeatListing]:
        """The games of the seats with these token hashes (unknown ones are left out)."""
        if not token_hashes:
            return []
        other = seats.alias("other")
        query = (
            select(
                seats.c.token_hash,
                seats.c.seat,
                seats.c.rematch,
                seats.c.takeover,
                other.c.rematch.label("other_rematch"),
                other.c.takeover.label("other_takeover"),
                rooms.c.id,
                rooms.c.mode,
                rooms.c.level,
                rooms.c.turns,
                rooms.c.status,
                rooms.c.name0,
                rooms.c.name1,
                rooms.c.match_no,
                rooms.c.turn,
                rooms.c.score0,
                rooms.c.score1,
                rooms.c.moved_at,
                rooms.c.created_at,
            )
            .join(rooms, rooms.c.id == seats.c.room_id)
            .outerjoin(
                other, (other.c.room_id == seats.c.room_id) & (other.c.seat == 1 - seats.c.seat)
            )
            .where(seats.c.token_hash.in_(token_hashes))
        )
        async with self.db.engine.connect() as conn:
            rows = (await conn.execute(query)).all()
        found = []
        for r in rows:
            seat = int(r.seat)
            rematch = [bool(r.rematch), bool(r.other_rematch)]
            takeover = [r.takeover, r.other_takeover]
            if seat == 1:
                rematch.reverse()
                takeover.reverse()
            scores = None if r.score0 is None or r.score1 is None else (r.score0, r.score1)
            found.append(
                SeatListing(
                    r.token_hash,
                    r.id,
                    seat,
                    r.mode,
                    r.level,
                    bool(r.turns),
                    r.status,
                    (r.name0, r.name1),
                    r.match_no,
                    r.turn,
                    scores,
                    r.moved_at,
                    r.created_at,
                    (rematch[0], rematch[1]),
                    (takeover[0], takeover[1]),
                )
            )
        return found

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
        return StoredMatch(
            room_id,
            match_no,
            room.mode,
            room.level,
            (room.name0, room.name1),
            seed,
            tuple((int(r.seat), str(r.move), r.client_id is None) for r in rows),
            finished,
        )
