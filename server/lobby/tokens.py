"""A seat's token and the server's hashes, each written once: a new token, the hash a secret
is stored by (``hash_secret``: tokens, codes, retry keys), the keyed hash (``keyed``: HMAC
with the server's token key, so the same text gives the same digest: a retried join its
token, a match its replay code) and THE check of whose seat a token holds (``seat_of``;
its shape is checked at the edge, ``protocol.bodies.is_token``)."""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass

from ..protocol import ApiError
from ..store import Storage


def new_token() -> str:
    """A seat token: 256 bits from ``secrets``. Only its hash is stored; never logged."""
    return secrets.token_urlsafe(32)


def hash_secret(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


async def keyed(storage: Storage, *parts: str) -> bytes:
    """HMAC-SHA-256 of ``parts`` joined by ``:``, with the server's token key."""
    key = await storage.codes.token_key()
    return hmac.new(key, ":".join(parts).encode(), hashlib.sha256).digest()


@dataclass(frozen=True, slots=True)
class SeatRef:
    """The seat a token holds: its room, its number, the token's stored hash."""

    room_id: str
    seat: int
    token_hash: str


async def find_seat(storage: Storage, token: str) -> SeatRef | None:
    token_hash = hash_secret(token)
    found = await storage.seats.room_of(token_hash)
    return SeatRef(found[0], found[1], token_hash) if found is not None else None


async def seat_of(storage: Storage, token: str) -> SeatRef:
    """The seat ``token`` holds, or ``ApiError("bad_token")`` (unknown, or no longer
    valid: the seat moved to another device)."""
    found = await find_seat(storage, token)
    if found is None:
        raise ApiError("bad_token")
    return found
