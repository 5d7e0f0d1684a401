"""Forgetting, on a schedule (``run_purges``, started by the app's lifespan).

Every ``PURGE_INTERVAL`` seconds (and once at start): rooms nobody touched (no write of any
kind: join, move, presence, rematch) for ``PURGE_ROOMS_AFTER`` seconds are deleted with
their seats, moves, finished matches and rejoin codes, unless they are in memory right now;
and rejoin codes that expired more than ``PURGE_CODES_AFTER`` seconds ago are deleted (until
then a late try still hears "ya venció" rather than "no existe"). Deletes go in batches,
each its own short transaction through the storage's one writer, so games go on meanwhile.
"""

from __future__ import annotations

import asyncio
import logging
import time

from .config import Settings
from .rooms import RoomRegistry

log = logging.getLogger("server.purge")
BATCH = 500


async def purge_once(registry: RoomRegistry, settings: Settings) -> tuple[int, int]:
    """One purge, all batches; returns (rooms, codes) deleted."""
    now = time.time()
    rooms_total = codes_total = 0
    while True:
        # rooms in memory, and any being loaded right now, are in use: never theirs
        keep = frozenset(registry.rooms) | frozenset(getattr(registry, "_loading", ()))
        rooms, codes = await registry.deps.storage.purge(
            now - settings.purge_rooms_after, now - settings.purge_codes_after, keep, BATCH
        )
        rooms_total += rooms
        codes_total += codes
        if rooms < BATCH:
            return rooms_total, codes_total


async def run_purges(registry: RoomRegistry, settings: Settings) -> None:
    while True:
        try:
            rooms, codes = await purge_once(registry, settings)
            if rooms or codes:
                log.info("purged %d abandoned rooms and %d expired rejoin codes", rooms, codes)
        except Exception:
            log.exception("purge failed; trying again at the next interval")
        await asyncio.sleep(settings.purge_interval)
