"""The server's VAPID key pair (RFC 8292): the private key as base64url of its 32 bytes
(the form ``VAPID_PRIVATE_KEY`` and ``server_secrets`` hold), the public key as the
browser's ``applicationServerKey`` wants it (base64url of the uncompressed P-256 point)."""

from __future__ import annotations

import base64

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from py_vapid import Vapid


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def b64url_decode(text: str) -> bytes:
    """Raises ValueError (binascii.Error is one) on anything that is not base64url."""
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def new_private_key() -> str:
    value = ec.generate_private_key(ec.SECP256R1()).private_numbers().private_value
    return b64url(value.to_bytes(32, "big"))


class VapidKey:
    """A VAPID private key (``private``: base64url of 32 bytes) and what it signs with."""

    def __init__(self, private: str) -> None:
        raw = b64url_decode(private)
        if len(raw) != 32:
            raise ValueError("a VAPID private key is 32 bytes, base64url")
        self.vapid = Vapid.from_raw(private.encode())
        point = self.vapid.private_key.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
        )
        self.public = b64url(point)  # the client's applicationServerKey
