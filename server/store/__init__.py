"""Storage, split by role, on one database (``Database``: its engines and its one writer):

- ``rooms``: a room's row, seats and move log, and THE fenced write of a room (``RoomWrite``);
- ``seats``: which seat a token holds;
- ``codes``: invites, watch links, rejoin codes, replay links, the token key;
- ``listings``: Mis partidas and stored matches, without loading a room;
- ``leases``: which process holds which room, and each process's lease;
- ``purges``: forgetting abandoned rooms and expired codes;
- ``push``: the seats' Web Push subscriptions and the VAPID key.

``Storage.open(url)`` makes them all; ``close()`` commits what is queued and closes.
"""

from __future__ import annotations

from dataclasses import dataclass

from .codes import CodeStore
from .database import Database, SecondProcess, Tuning, lock_sqlite_file, make_engine
from .leases import LeaseStore, Renewal
from .listings import ListingStore
from .purge import PurgeStore
from .push import Claimed, Pending, PushStore, Subscription
from .records import (
    CREATOR,
    FinishedMatch,
    Listing,
    MoveRecord,
    Owner,
    RejoinCode,
    RejoinError,
    RoomState,
    RoomWrite,
    SeatListing,
    SeatState,
    SeatToken,
    StaleRoom,
    StoredMatch,
)
from .rooms import RoomStore
from .seats import SeatStore


@dataclass(frozen=True)
class Storage:
    db: Database
    rooms: RoomStore
    seats: SeatStore
    codes: CodeStore
    listings: ListingStore
    leases: LeaseStore
    purges: PurgeStore
    push: PushStore

    @classmethod
    def open(
        cls, url: str, sqlite_synchronous: str = "FULL", tuning: Tuning | None = None
    ) -> Storage:
        db = Database(url, sqlite_synchronous, tuning)
        return cls(
            db, RoomStore(db), SeatStore(db), CodeStore(db), ListingStore(db), LeaseStore(db),
            PurgeStore(db), PushStore(db),
        )  # fmt: skip

    async def close(self) -> None:
        await self.db.close()


__all__ = [
    "CREATOR", "Claimed", "CodeStore", "Database", "FinishedMatch", "LeaseStore", "Listing",
    "ListingStore", "MoveRecord", "Owner", "Pending", "PurgeStore", "PushStore", "RejoinCode",
    "RejoinError", "Renewal", "RoomState", "RoomStore", "RoomWrite", "SeatListing", "SeatState",
    "SeatStore", "SeatToken", "SecondProcess", "StaleRoom", "Storage", "StoredMatch",
    "Subscription", "Tuning", "lock_sqlite_file", "make_engine",
]  # fmt: skip
