"""Seats as stored: which room and seat a token's hash holds, and a seat's token."""

from __future__ import annotations

from sqlalchemy import select

from .database import Database
from .records import SeatToken
from .tables import seats


class SeatStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    async def room_of(self, token_hash: str) -> tuple[str, int] | None:
        async with self.db.engine.connect() as conn:
            row = (
                await conn.execute(
                    select(seats.c.room_id, seats.c.seat).where(seats.c.token_hash == token_hash)
                )
            ).first()
        return (row.room_id, row.seat) if row is not None else None

    async def token(self, room_id: str, seat: int) -> SeatToken | None:
        async with self.db.engine.connect() as conn:
            row = (
                await conn.execute(
                    select(seats.c.token_hash, seats.c.join_key_hash).where(
                        seats.c.room_id == room_id, seats.c.seat == seat
                    )
                )
            ).first()
        return SeatToken(row.token_hash, row.join_key_hash) if row is not None else None
