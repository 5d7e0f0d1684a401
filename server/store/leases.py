"""Ownership as stored (server/cluster/ownership.py): one row per process with its lease
(``nodes``), and each room's owner and fencing epoch (``rooms.owner``, ``rooms.epoch``).

A process claims a room that nobody holds, or whose owner's lease has lapsed, by bumping the
room's epoch (``claim``); every write of the room is conditional on that epoch
(store/rooms.py), so a process that lost the room can never write it again.

Every time here is the database's clock (``db_now``), never a process's: leases are
compared on one clock, so a machine whose clock is off by minutes holds its lease exactly
as long as any other. These statements run on connections of their own (the database's
lease engine, each statement its own transaction), outside the writer's queue: a renewal
never waits behind a batch of moves or a claim stuck on a lock.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import (
    Float,
    cast,
    delete,
    exists,
    func,
    insert,
    literal,
    or_,
    select,
    union_all,
    update,
)  # fmt: skip
from sqlalchemy.ext.asyncio import AsyncEngine
from sqlalchemy.sql.elements import ColumnElement

from .database import Database, storable
from .records import Owner
from .tables import nodes, rooms


def db_now(dialect: str) -> ColumnElement[float]:
    """The database's clock, in epoch seconds, as a SQL expression."""
    if dialect == "postgresql":
        return cast(func.extract("epoch", func.clock_timestamp()), Float)
    return (func.julianday("now") - 2440587.5) * 86400.0  # SQLite: milliseconds


@dataclass(frozen=True, slots=True)
class Renewal:
    """A renewed lease: the database's time when it was renewed, the processes whose lease
    is live, and the rooms this process holds, with their epochs, as stored."""

    db_now: float
    live: frozenset[str]
    held: dict[str, int]


class LeaseStore:
    def __init__(self, db: Database, engine: AsyncEngine | None = None) -> None:
        self.db = db
        self.engine = engine or db.lease_engine
        self._own = engine is not None
        self.now = db_now(db.dialect)

    def apart(self) -> LeaseStore:
        """The same statements on a connection of their own, for another event loop (the
        lease's renewals in a thread of their own): ``close`` it on that loop."""
        return LeaseStore(self.db, self.db.another_lease_engine())

    async def close(self) -> None:
        if self._own:
            await self.engine.dispose()

    async def join(self, node: str, lease_seconds: float, started_at: float) -> float:
        """Starts a term of ``node``'s lease, whatever the last one was (at start, and after
        a lapse: the process holds no room then). Returns the database's time."""
        until = self.now + lease_seconds
        async with self.engine.connect() as conn:
            renewed = await conn.execute(
                update(nodes).where(nodes.c.id == node).values(lease_until=until)
                .returning(self.now)
            )  # fmt: skip
            now = renewed.scalar_one_or_none()
            if now is None:
                added = await conn.execute(
                    insert(nodes).values(id=node, lease_until=until, started_at=started_at)
                    .returning(self.now)
                )  # fmt: skip
                now = added.scalar_one()
        return float(now)

    async def renew(self, node: str, lease_seconds: float) -> Renewal | None:
        """Extends ``node``'s lease by ``lease_seconds`` from now, only if it has not lapsed
        (None when it has: another process may hold its rooms by now). Two statements, each
        its own transaction: the lease is renewed even when the reading after it fails."""
        async with self.engine.connect() as conn:
            renewed = await conn.execute(
                update(nodes)
                .where(nodes.c.id == node, nodes.c.lease_until >= self.now)
                .values(lease_until=self.now + lease_seconds)
                .returning(self.now)
            )
            now = renewed.scalar_one_or_none()
            if now is None:
                return None
            live = select(literal("live").label("kind"), nodes.c.id, literal(0).label("epoch"))
            live = live.where(nodes.c.lease_until >= float(now))
            held = select(literal("room").label("kind"), rooms.c.id, rooms.c.epoch)
            held = held.where(rooms.c.owner == node)
            rows = (await conn.execute(union_all(live, held))).all()
        return Renewal(
            float(now),
            frozenset(r.id for r in rows if r.kind == "live"),
            {r.id: int(r.epoch) for r in rows if r.kind == "room"},
        )

    async def claim(self, room_id: str, node: str, *, force: bool = False) -> int | None:
        """``node`` claims the room unless another process holds a live lease on it (or in
        any case, ``force``: one process, every room is its own): the room's epoch is bumped
        and returned, and from then on only writes at that epoch are accepted. None when the
        room is held elsewhere or gone."""
        if not storable(room_id):
            return None
        held_elsewhere = exists().where(
            nodes.c.id == rooms.c.owner, nodes.c.id != node, nodes.c.lease_until >= self.now
        )
        claim = update(rooms).where(rooms.c.id == room_id)
        if not force:
            claim = claim.where(or_(rooms.c.owner.is_(None), ~held_elsewhere))
        async with self.engine.connect() as conn:
            done = await conn.execute(
                claim.values(owner=node, epoch=rooms.c.epoch + 1).returning(rooms.c.epoch)
            )
            epoch = done.scalar_one_or_none()
        return None if epoch is None else int(epoch)

    async def owner(self, room_id: str) -> Owner | None:
        """Who holds the room, until when, and the database's time now (None: no such
        room)."""
        if not storable(room_id):
            return None
        async with self.engine.connect() as conn:
            row = (
                await conn.execute(
                    select(rooms.c.owner, nodes.c.lease_until, self.now.label("now"))
                    .select_from(rooms.outerjoin(nodes, nodes.c.id == rooms.c.owner))
                    .where(rooms.c.id == room_id)
                )
            ).first()
        if row is None:
            return None
        return Owner(row.owner, row.lease_until or 0.0, float(row.now))

    async def live(self) -> frozenset[str]:
        async with self.engine.connect() as conn:
            live = select(nodes.c.id).where(nodes.c.lease_until >= self.now)
            rows = (await conn.execute(live)).all()
        return frozenset(row.id for row in rows)

    async def release(self, room_id: str, node: str, epoch: int) -> None:
        """The room is nobody's (if ``node`` still holds it at ``epoch``): the next visitor
        on any process claims it at once."""
        async with self.engine.connect() as conn:
            await conn.execute(
                update(rooms)
                .where(rooms.c.id == room_id, rooms.c.owner == node, rooms.c.epoch == epoch)
                .values(owner=None)
            )

    async def disown(self, room_id: str, node: str) -> None:
        """The room is nobody's if ``node`` is its owner, at whatever epoch (``node`` holds
        no copy of it: none of its copies can write)."""
        if not storable(room_id):
            return
        async with self.engine.connect() as conn:
            await conn.execute(
                update(rooms).where(rooms.c.id == room_id, rooms.c.owner == node).values(owner=None)
            )

    async def release_node(self, node: str) -> None:
        """A clean stop: all of ``node``'s rooms are nobody's, its lease is gone."""
        async with self.engine.connect() as conn:
            await conn.execute(update(rooms).where(rooms.c.owner == node).values(owner=None))
            await conn.execute(delete(nodes).where(nodes.c.id == node))
