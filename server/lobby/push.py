"""The HTTP use cases of Web Push: the server's VAPID public key for the browser's
``pushManager.subscribe`` (``key``), and a seat's subscription kept or dropped
(``subscribe``: the seat's token, the browser's subscription or None). Safe to retry: the
same call again leaves the same row. Each answers a value or raises ``ApiError``."""

from __future__ import annotations

import time
from typing import Any

from cryptography.hazmat.primitives.asymmetric import ec

from ..protocol import ApiError
from ..protocol.bodies import PushBody, SubscriptionBody
from ..push import endpoint_allowed, language
from ..push.keys import b64url_decode
from ..store import Storage, Subscription
from .tokens import seat_of

UNKNOWN_SERVICE = "error.bad_subscription.service"


def subscription_of(raw: SubscriptionBody, services: tuple[str, ...]) -> Subscription:
    """The browser's ``PushSubscription`` (its shape checked at the edge), checked: an
    endpoint of a known push service, a P-256 public key and a 16-byte secret."""
    endpoint, p256dh, auth = raw.endpoint, raw.p256dh, raw.auth
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

    async def subscribe(self, body: PushBody) -> dict[str, Any]:
        """Keeps ``body.subscription`` as the seat's on this browser (replacing any other),
        or, None, drops the seat's."""
        found = await seat_of(self.storage, body.token)
        token_hash = found.token_hash
        if body.subscription is None:
            await self.storage.push.unsubscribe(token_hash)
            return {"push": False}
        sub = subscription_of(body.subscription, self.services)
        room = await self.storage.rooms.load(found.room_id)
        if room is None:
            raise ApiError("bad_token")
        if room.mode != "friend":
            raise ApiError("push_not_friend")
        done = await self.storage.push.subscribe(
            token_hash, found.room_id, found.seat, sub, language(body.lang), time.time()
        )
        if not done:
            raise ApiError("bad_token")
        return {"push": True}
