"""The Web Push subscriptions as stored (server/store/push.py), on a database made by the
migrations, SQLite and PostgreSQL both: one subscription per seat, the claim that lets at
most one push go per event and per PUSH_EVERY whichever process asks (two processes'
storages claim at once: one wins), and a purged room's subscriptions gone with it."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from server.lobby.tokens import hash_secret
from server.store import RoomState, SeatState, Storage, Subscription
from server.store.migrate import upgrade
from tests.support.dbkit import Database

SUB = Subscription("https://fcm.googleapis.com/fcm/send/abc", "BKey", "auth")


@pytest.fixture
async def storage(db: Database) -> AsyncIterator[Storage]:
    await asyncio.to_thread(upgrade, db.url)
    store = Storage.open(db.url)
    yield store
    await store.close()


async def friend_room(storage: Storage, room_id: str = "r1") -> None:
    room = RoomState(
        id=room_id, mode="friend", level=None, seed="s", match_no=1, match_start_seq=0, seq=0,
        version=0, invite=f"I{room_id}",
        seats=(SeatState("arriving", 1.0, name="Ana"), SeatState()),
    )  # fmt: skip
    await storage.rooms.create(room, "waiting", hash_secret(f"t0-{room_id}"))


async def test_one_subscription_per_seat_and_only_for_its_token(storage: Storage) -> None:
    await friend_room(storage)
    token = hash_secret("t0-r1")
    assert not await storage.push.subscribe(hash_secret("other"), "r1", 0, SUB, "es", 1.0)
    assert await storage.push.subscribe(token, "r1", 0, SUB, "es", 1.0)
    newer = Subscription("https://fcm.googleapis.com/fcm/send/def", "BKey2", "auth2")
    assert await storage.push.subscribe(token, "r1", 0, newer, "es", 2.0)  # another browser
    assert await storage.push.subscribed([token, hash_secret("x")]) == {token}
    claimed = await storage.push.claim("r1", 0, "turn:1", 10.0, 300.0)
    assert claimed.to == newer and claimed.token_hash == token and claimed.lang == "es"
    await storage.push.gone(token, SUB.endpoint)  # the old endpoint: not the seat's now
    assert await storage.push.subscribed([token]) == {token}
    await storage.push.gone(token, newer.endpoint)
    assert await storage.push.subscribed([token]) == set()


async def test_one_push_per_event_and_per_push_every(storage: Storage) -> None:
    await friend_room(storage)
    token = hash_secret("t0-r1")
    assert (await storage.push.claim("r1", 0, "turn:1", 10.0, 300.0)).to is None  # none yet
    await storage.push.subscribe(token, "r1", 0, SUB, "es", 1.0)
    assert (await storage.push.claim("r1", 0, "turn:1", 10.0, 300.0)).to == SUB
    again = await storage.push.claim("r1", 0, "turn:1", 400.0, 300.0)
    assert again.to is None and again.retry_at is None  # this event went already
    held = await storage.push.claim("r1", 0, "turn:3", 100.0, 300.0)
    assert held.to is None and held.retry_at == 310.0  # the next one, at the window's end
    assert (await storage.push.claim("r1", 0, "turn:3", 310.0, 300.0)).to == SUB


async def test_of_two_processes_claiming_at_once_one_pushes(storage: Storage, db: Database) -> None:
    await friend_room(storage)
    await storage.push.subscribe(hash_secret("t0-r1"), "r1", 0, SUB, "es", 1.0)
    other = Storage.open(db.url)  # another process's storage of the same database
    try:
        for n in range(5):
            now = 1000.0 * (n + 1)
            results = await asyncio.gather(
                storage.push.claim("r1", 0, f"turn:{n}", now, 300.0),
                other.push.claim("r1", 0, f"turn:{n}", now, 300.0),
            )
            assert sorted(r.to is not None for r in results) == [False, True]
    finally:
        await other.close()


async def test_a_purged_room_takes_its_subscriptions(storage: Storage, db: Database) -> None:
    await friend_room(storage, "old")
    await friend_room(storage, "new")
    for room_id in ("old", "new"):
        await storage.push.subscribe(hash_secret(f"t0-{room_id}"), room_id, 0, SUB, "es", 1.0)
    db.execute("update rooms set updated_at = 1 where id = 'old'")
    assert await storage.purges.purge(1000.0, 0.0, frozenset()) == (1, 0)
    assert db.rows("select room_id from push_subscriptions") == [("new",)]
