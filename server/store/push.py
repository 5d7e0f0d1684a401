"""Web Push subscriptions as stored (``push_subscriptions``): one per seat, the seat's token
hash its key (a seat lives on one browser), and the claim that lets one push go (``claim``:
at most one per event and one per ``every`` seconds, whichever process asks, so a failover
may miss a push but never doubles one). The server's VAPID key is kept in ``server_secrets``
(made by migration 0008)."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import ColumnElement, Connection, delete, insert, or_, select, update

from .database import Database
from .tables import push_subscriptions, rooms, seats, server_secrets

VAPID_KEY = "vapid_key"  # its name in server_secrets


@dataclass(frozen=True, slots=True)
class Subscription:
    """Where a seat's pushes go: the push service's ``endpoint`` and the browser's keys
    (``p256dh``: its P-256 public key, ``auth``: the shared secret, both base64url)."""

    endpoint: str
    p256dh: str
    auth: str


@dataclass(frozen=True, slots=True)
class Claimed:
    """The outcome of a claim: ``to`` is the subscription to push to now (with its
    ``token_hash`` and ``lang``), or None; then ``retry_at`` is when the seat's PUSH_EVERY is
    over, when that alone held it back (else None: no subscription, or the event was pushed
    already)."""

    to: Subscription | None = None
    token_hash: str = ""
    lang: str = "es"
    retry_at: float | None = None


@dataclass(frozen=True, slots=True)
class Pending:
    """What a deferred push needs to still hold: the room's seq, and whether the seat is
    connected (its stored presence)."""

    seq: int
    here: bool


class PushStore:
    def __init__(self, db: Database) -> None:
        self.db = db
        self._vapid: str | None = None

    async def vapid_key(self) -> str:
        if self._vapid is None:
            async with self.db.engine.connect() as conn:
                self._vapid = (
                    await conn.execute(
                        select(server_secrets.c.value).where(server_secrets.c.name == VAPID_KEY)
                    )
                ).scalar_one()
        return self._vapid

    async def subscribe(
        self, token_hash: str, room_id: str, seat: int, sub: Subscription, lang: str, now: float
    ) -> bool:
        """Keeps ``sub`` as the seat's (replacing the one it had); False when the token holds
        no seat (any more). Safe to retry: the same row again."""

        def job(conn: Connection) -> bool:
            held = conn.execute(
                select(seats.c.room_id).where(
                    seats.c.token_hash == token_hash,
                    seats.c.room_id == room_id,
                    seats.c.seat == seat,
                )
            ).first()
            if held is None:  # moved or purged between the look-up and now
                return False
            conn.execute(delete(push_subscriptions).where(_of_seat(room_id, seat)))
            conn.execute(
                insert(push_subscriptions).values(
                    token_hash=token_hash, room_id=room_id, seat=seat, endpoint=sub.endpoint,
                    p256dh=sub.p256dh, auth=sub.auth, lang=lang, created_at=now,
                )
            )  # fmt: skip
            return True

        done: bool = await self.db.write(job)
        return done

    async def unsubscribe(self, token_hash: str) -> None:
        await self.db.write(
            lambda conn: conn.execute(
                delete(push_subscriptions).where(push_subscriptions.c.token_hash == token_hash)
            )
        )

    async def subscribed(self, token_hashes: list[str]) -> set[str]:
        """Which of these seats' tokens have a subscription."""
        if not token_hashes:
            return set()
        async with self.db.engine.connect() as conn:
            rows = await conn.execute(
                select(push_subscriptions.c.token_hash).where(
                    push_subscriptions.c.token_hash.in_(token_hashes)
                )
            )
            return {row.token_hash for row in rows}

    async def gone(self, token_hash: str, endpoint: str) -> None:
        """The push service no longer knows this subscription (404, 410): dropped, unless the
        seat subscribed again meanwhile (another endpoint)."""
        await self.db.write(
            lambda conn: conn.execute(
                delete(push_subscriptions).where(
                    push_subscriptions.c.token_hash == token_hash,
                    push_subscriptions.c.endpoint == endpoint,
                )
            )
        )

    async def has(self, room_id: str, seat: int) -> bool:
        """Whether the seat has a subscription: a read, so that the rooms without one (most)
        cost the writer nothing."""
        async with self.db.engine.connect() as conn:
            row = (
                await conn.execute(select(push_subscriptions.c.seat).where(_of_seat(room_id, seat)))
            ).first()
        return row is not None

    async def claim(self, room_id: str, seat: int, event: str, now: float, every: float) -> Claimed:
        """Claims the seat's push for ``event`` at ``now``: conditional on the seat's last
        push being at least ``every`` seconds old and for another event, in one statement,
        so that of two processes (or two events) only one wins."""

        def job(conn: Connection) -> Claimed:
            t = push_subscriptions
            won = conn.execute(
                update(t)
                .where(
                    _of_seat(room_id, seat),
                    # still the seat's token (a moved seat's row is gone already)
                    t.c.token_hash.in_(
                        select(seats.c.token_hash).where(
                            seats.c.room_id == room_id, seats.c.seat == seat
                        )
                    ),
                    or_(t.c.pushed_at.is_(None), t.c.pushed_at <= now - every),
                    or_(t.c.pushed_event.is_(None), t.c.pushed_event != event),
                )
                .values(pushed_at=now, pushed_event=event)
                .returning(t.c.token_hash, t.c.endpoint, t.c.p256dh, t.c.auth, t.c.lang)
            ).first()
            if won is not None:
                return Claimed(
                    Subscription(won.endpoint, won.p256dh, won.auth), won.token_hash, won.lang
                )
            held = conn.execute(
                select(t.c.pushed_at, t.c.pushed_event).where(_of_seat(room_id, seat))
            ).first()
            if held is None or held.pushed_event == event or held.pushed_at is None:
                return Claimed()
            return Claimed(retry_at=float(held.pushed_at) + every)

        claimed: Claimed = await self.db.write(job)
        return claimed

    async def pending(self, room_id: str, seat: int) -> Pending | None:
        """The room's seq and whether the seat is here, as stored (None: no such seat)."""
        async with self.db.engine.connect() as conn:
            row = (
                await conn.execute(
                    select(rooms.c.seq, seats.c.presence)
                    .join(seats, seats.c.room_id == rooms.c.id)
                    .where(rooms.c.id == room_id, seats.c.seat == seat)
                )
            ).first()
        return Pending(int(row.seq), row.presence == "here") if row is not None else None


def _of_seat(room_id: str, seat: int) -> ColumnElement[bool]:
    t = push_subscriptions
    return (t.c.room_id == room_id) & (t.c.seat == seat)
