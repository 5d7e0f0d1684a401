"""The HTTP use cases of Web Push: the server's VAPID public key for the browser's
``pushManager.subscribe`` (``key``), and a seat's subscription kept or dropped
(``subscribe``: the seat's token, the browser's subscription or None). Safe to retry: the
same call again leaves the same row. Each answers a value or raises ``ApiError``."""

from __future__ import annotations

import time
from typing import Any

from cryptography.hazmat.primitives.asymmetric import ec

from ..protocol import MAX_TOKEN, ApiError, is_plain
from ..push import endpoint_allowed, language
from ..push.keys import b64url_decode
from ..store import Storage, Subscription
from .lobby import hash_secret

UNKNOWN_SERVICE = "error.bad_subscription.service"


def subscription_of(raw: object, services: tuple[str, ...]) -> Subscription:
    """The browser's ``PushSubscription`` as JSON (``endpoint``, ``keys.p256dh``,
    ``keys.auth``), checked: an endpoint of a known push service, a P-256 public key and a
    16-byte secret."""
    if not isinstance(raw, dict):
        raise ApiError("bad_subscription")
    endpoint, keys = raw.get("endpoint"), raw.get("keys")
    if not isinstance(endpoint, str) or not isinstance(keys, dict):
        raise ApiError("bad_subscription")
    p256dh, auth = keys.get("p256dh"), keys.get("auth")
    if not isinstance(p256dh, str) or not isinstance(auth, str):
        raise ApiError("bad_subscription")
    if len(p256dh) > 100 or len(auth) > 32 or not (is_plain(p256dh) and is_plain(auth)):
        raise ApiError("bad_subscription")
    try:
        point, secret = b64url_decode(p256dh), b64url_decode(auth)
        ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), point)
    except ValueError:
        raise ApiError("bad_subscription") from None
    if len(point) != 65 or len(secret) != 16:
        raise ApiError("bad_subscription")
    if not endpoint_allowed(endpoint, services):
        raise ApiError("bad_subscription", UNKNOWN_SERVICE)
    return Subscription(endpoint, p256dh.rstrip("="), auth.rstrip("="))


class Pushes:
    """``public_key``: the VAPID public key (base64url); ``services``: the push services
    subscriptions may name (empty: the browsers' own)."""

    def __init__(self, storage: Storage, public_key: str, services: tuple[str, ...]) -> None:
        self.storage = storage
        self.public_key = public_key
        self.services = services

    def key(self) -> dict[str, Any]:
        return {"key": self.public_key}

    async def subscribe(self, token: object, raw: object, lang: object) -> dict[str, Any]:
        """Keeps ``raw`` as the seat's subscription on this browser (replacing any other),
        or, ``raw`` None, drops the seat's."""
        if not isinstance(token, str) or not 0 < len(token) <= MAX_TOKEN or not is_plain(token):
            raise ApiError("bad_token")
        token_hash = hash_secret(token)
        found = await self.storage.seats.room_of(token_hash)
        if found is None:
            raise ApiError("bad_token")
        if raw is None:
            await self.storage.push.unsubscribe(token_hash)
            return {"push": False}
        sub = subscription_of(raw, self.services)
        room = await self.storage.rooms.load(found[0])
        if room is None:
            raise ApiError("bad_token")
        if room.mode != "friend":
            raise ApiError("push_not_friend")
        done = await self.storage.push.subscribe(
            token_hash, found[0], found[1], sub, language(lang), time.time()
        )
        if not done:
            raise ApiError("bad_token")
        return {"push": True}
