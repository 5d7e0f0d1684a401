"""Forgetting, on a schedule (``run_purges``, started by the app's lifespan), and the
deletes it makes (``PurgeStore``).

Every ``PURGE_INTERVAL`` seconds (and once at start): rooms nobody touched (no write of any
kind: join, move, presence, rematch) for ``PURGE_ROOMS_AFTER`` seconds are deleted with
their seats, moves, finished matches and rejoin codes, unless they are in use right now
(``in_use``: the rooms in this process's memory or being loaded); and rejoin codes that
expired more than ``PURGE_CODES_AFTER`` seconds ago are deleted (until then a late try
still hears "ya venció" rather than "no existe"). Deletes go in batches, each its own short
transaction of its own (not the writer's: games go on meanwhile), and in one process at a
time (an advisory lock: the others skip their turn).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable

from sqlalchemy import delete, exists, func, select

from ..config import Settings
from .database import Database
from .leases import db_now
from .tables import (
    finished_matches,
    moves,
    nodes,
    push_subscriptions,
    rejoin_codes,
    replay_links,
    rooms,
    seats,
)

log = logging.getLogger("server.purge")
BATCH = 500


PURGE_LOCK = 0x63617369  # "casi": the advisory lock one purging process holds (PostgreSQL)


class PurgeStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    async def purge(
        self, rooms_before: float, codes_before: float, keep: frozenset[str], batch: int = 500
    ) -> tuple[int, int] | None:
        """Deletes up to ``batch`` rooms not written since ``rooms_before`` (none in ``keep``
        nor held by any process now) with all their rows, and the rejoin codes that expired
        before ``codes_before``; returns (rooms, codes) deleted, or None when another process
        is purging right now. Its own transaction (not the writer's): rooms that a write
        holds locked are skipped, never waited for."""
        now = db_now(self.db.dialect)
        async with self.db.engine.begin() as conn:
            if self.db.dialect == "postgresql":
                mine = await conn.execute(select(func.pg_try_advisory_xact_lock(PURGE_LOCK)))
                if not mine.scalar_one():
                    return None
            codes = await conn.execute(
                delete(rejoin_codes).where(rejoin_codes.c.expires_at < codes_before)
            )
            await conn.execute(delete(nodes).where(nodes.c.lease_until < codes_before))
            held = exists().where(nodes.c.id == rooms.c.owner, nodes.c.lease_until >= now)
            # every write of a room sets its updated_at (moves, joins, presence, rematches);
            # a room locked by a write is skipped: it is not abandoned
            found = await conn.execute(
                select(rooms.c.id)
                .where(rooms.c.updated_at < rooms_before, ~held)
                .order_by(rooms.c.updated_at)
                .limit(batch + len(keep))
                .with_for_update(skip_locked=True)
            )
            ids = [row.id for row in found.all() if row.id not in keep][:batch]
            if ids:
                for table in (
                    seats, moves, finished_matches, rejoin_codes, replay_links,
                    push_subscriptions,
                ):  # fmt: skip
                    await conn.execute(delete(table).where(table.c.room_id.in_(ids)))
                await conn.execute(delete(rooms).where(rooms.c.id.in_(ids)))
        return len(ids), max(0, int(codes.rowcount or 0))  # -1: no count (asyncpg)


async def purge_once(
    store: PurgeStore, settings: Settings, in_use: Callable[[], frozenset[str]]
) -> tuple[int, int]:
    """One purge, all batches; returns (rooms, codes) deleted."""
    now = time.time()
    rooms_total = codes_total = 0
    while True:
        done = await store.purge(
            now - settings.purge_rooms_after, now - settings.purge_codes_after, in_use(), BATCH
        )
        if done is None:  # another process purges now: its turn
            return rooms_total, codes_total
        rooms_deleted, codes = done
        rooms_total += rooms_deleted
        codes_total += codes
        if rooms_deleted < BATCH:
            return rooms_total, codes_total


async def run_purges(
    store: PurgeStore, settings: Settings, in_use: Callable[[], frozenset[str]]
) -> None:
    while True:
        try:
            rooms_deleted, codes = await purge_once(store, settings, in_use)
            if rooms_deleted or codes:
                log.info(
                    "purged %d abandoned rooms and %d expired rejoin codes", rooms_deleted, codes
                )
        except Exception:
            log.exception("purge failed; trying again at the next interval")
        await asyncio.sleep(settings.purge_interval)
