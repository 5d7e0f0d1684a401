"""Ownership as stored (server/cluster/): one row per process with its lease (``nodes``),
and each room's owner and fencing epoch (``rooms.owner``, ``rooms.epoch``).

A process takes a room that nobody holds, or whose owner's lease has lapsed, by bumping the
room's epoch (``claim``); every write of the room is conditional on that epoch
(store/rooms.py), so a process that lost the room can never write it again."""

from __future__ import annotations

from sqlalchemy import Connection, delete, exists, insert, or_, select, update

from .database import Database, storable
from .records import Owner
from .tables import nodes, rooms


class LeaseStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    async def claim(
        self, room_id: str, node: str, now: float, *, force: bool = False
    ) -> int | None:
        """``node`` takes the room unless another process holds a live lease on it (or in
        any case, ``force``): the room's epoch is bumped and returned, and from then on only
        writes at that epoch are accepted. None when the room is held elsewhere or gone."""
        held_elsewhere = exists().where(
            nodes.c.id == rooms.c.owner, nodes.c.id != node, nodes.c.lease_until >= now
        )

        def job(conn: Connection) -> int | None:
            claim = update(rooms).where(rooms.c.id == room_id)
            if not force:
                claim = claim.where(or_(rooms.c.owner.is_(None), ~held_elsewhere))
            if conn.execute(claim.values(owner=node, epoch=rooms.c.epoch + 1)).rowcount != 1:
                return None
            epoch: int = conn.execute(
                select(rooms.c.epoch).where(rooms.c.id == room_id)
            ).scalar_one()
            return epoch

        if not storable(room_id):
            return None
        result: int | None = await self.db.write(job)
        return result

    async def owner(self, room_id: str) -> Owner | None:
        """Who holds the room (None: no such room)."""
        if not storable(room_id):
            return None
        async with self.db.engine.connect() as conn:
            row = (
                await conn.execute(
                    select(rooms.c.owner, nodes.c.lease_until)
                    .select_from(rooms.outerjoin(nodes, nodes.c.id == rooms.c.owner))
                    .where(rooms.c.id == room_id)
                )
            ).first()
        if row is None:
            return None
        return Owner(row.owner, row.lease_until or 0.0)

    async def renew(self, node: str, lease_until: float, started_at: float) -> None:
        def job(conn: Connection) -> None:
            renewed = conn.execute(
                update(nodes).where(nodes.c.id == node).values(lease_until=lease_until)
            )
            if renewed.rowcount != 1:
                conn.execute(
                    insert(nodes).values(id=node, lease_until=lease_until, started_at=started_at)
                )

        await self.db.write(job)

    async def live(self, now: float) -> frozenset[str]:
        async with self.db.engine.connect() as conn:
            rows = (await conn.execute(select(nodes.c.id).where(nodes.c.lease_until >= now))).all()
        return frozenset(row.id for row in rows)

    async def release(self, room_id: str, node: str, epoch: int) -> None:
        """The room is nobody's (if ``node`` still holds it at ``epoch``): the next visitor
        on any process takes it at once."""

        def job(conn: Connection) -> None:
            conn.execute(
                update(rooms)
                .where(
                    rooms.c.id == room_id,
                    rooms.c.owner == node,
                    rooms.c.epoch == epoch,
                )
                .values(owner=None)
            )

        await self.db.write(job)

    async def release_node(self, node: str) -> None:
        """A clean stop: all of ``node``'s rooms are nobody's, its lease is gone."""

        def job(conn: Connection) -> None:
            conn.execute(update(rooms).where(rooms.c.owner == node).values(owner=None))
            conn.execute(delete(nodes).where(nodes.c.id == node))

        await self.db.write(job)
