"""The codes that lead to a room: the friend's invite, the watch link, the rejoin codes that
move a seat to another device, the replay links of finished matches, and the server's key
that derives the tokens of retried joins and rejoins. Every code is stored as it is matched:
rejoin codes only as hashes."""

from __future__ import annotations

import time

from sqlalchemy import Connection, insert, select, update
from sqlalchemy.exc import IntegrityError

from .database import Database
from .records import RejoinCode
from .tables import rejoin_codes, replay_links, rooms, server_secrets


class CodeStore:
    def __init__(self, db: Database) -> None:
        self.db = db
        self._key: bytes | None = None

    async def room_for_invite(self, invite: str) -> str | None:
        async with self.db.engine.connect() as conn:
            row = (await conn.execute(select(rooms.c.id).where(rooms.c.invite == invite))).first()
        return row.id if row is not None else None

    async def room_for_watch(self, code: str) -> str | None:
        async with self.db.engine.connect() as conn:
            row = (await conn.execute(select(rooms.c.id).where(rooms.c.watch == code))).first()
        return row.id if row is not None else None

    async def add_rejoin(
        self, room_id: str, seat: int, short_hash: str, long_hash: str, expires_at: float
    ) -> bool:
        """Adds a code and ends the seat's other live ones; False when a hash collides."""

        def job(conn: Connection) -> Exception | None:
            in_use = conn.execute(
                select(rejoin_codes.c.id).where(
                    (rejoin_codes.c.short_hash == short_hash)
                    | (rejoin_codes.c.long_hash == long_hash)
                )
            ).first()
            if in_use is not None:
                return IntegrityError("code hash collision", None, Exception())
            conn.execute(
                update(rejoin_codes)
                .where(  # one live code per seat
                    rejoin_codes.c.room_id == room_id,
                    rejoin_codes.c.seat == seat,
                    rejoin_codes.c.used_at.is_(None),
                )
                .values(used_at=time.time())
            )
            conn.execute(
                insert(rejoin_codes).values(
                    room_id=room_id,
                    seat=seat,
                    short_hash=short_hash,
                    long_hash=long_hash,
                    expires_at=expires_at,
                )
            )
            return None

        try:
            await self.db.write(job)
        except IntegrityError:
            return False
        return True

    async def find_rejoin(self, code_hash: str) -> RejoinCode | None:
        async with self.db.engine.connect() as conn:
            row = (
                await conn.execute(
                    select(rejoin_codes).where(
                        (rejoin_codes.c.short_hash == code_hash)
                        | (rejoin_codes.c.long_hash == code_hash)
                    )
                )
            ).first()
        if row is None:
            return None
        return RejoinCode(
            row.id, row.room_id, int(row.seat), row.expires_at, row.used_at, row.key_hash
        )

    async def add_replay(self, code: str, room_id: str, match_no: int) -> str:
        """Stores ``code`` as the replay code of a match, unless it has one already;
        returns the match's code."""

        def job(conn: Connection) -> str:
            held = conn.execute(
                select(replay_links.c.code).where(
                    replay_links.c.room_id == room_id, replay_links.c.match_no == match_no
                )
            ).first()
            if held is not None:
                return str(held.code)
            conn.execute(
                insert(replay_links).values(
                    code=code, room_id=room_id, match_no=match_no, created_at=time.time()
                )
            )
            return code

        stored: str = await self.db.write(job)
        return stored

    async def find_replay(self, code: str) -> tuple[str, int] | None:
        async with self.db.engine.connect() as conn:
            row = (
                await conn.execute(
                    select(replay_links.c.room_id, replay_links.c.match_no).where(
                        replay_links.c.code == code
                    )
                )
            ).first()
        return (str(row.room_id), int(row.match_no)) if row is not None else None

    async def token_key(self) -> bytes:
        if self._key is None:
            async with self.db.engine.connect() as conn:
                value = (
                    await conn.execute(
                        select(server_secrets.c.value).where(server_secrets.c.name == "token_key")
                    )
                ).scalar_one()
            self._key = bytes.fromhex(value)
        return self._key
