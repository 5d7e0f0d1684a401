"""A push service stand-in for the tests (RFC 8030), on loopback: an HTTP endpoint that
takes a push as Chrome's or Firefox's push service would, checks its VAPID token (RFC 8292:
an ES256 JWT for this service's origin, signed by the key the game server publishes at
``/api/push/key``) and decrypts its payload (RFC 8291, aes128gcm) with the private key of
the browser the test played (``Browser``: the keys a browser makes when it subscribes).
Written from the RFCs with ``cryptography`` alone: none of the sender's libraries.

Each subscription's endpoint can answer 201 (``Created``), another status (410: the
subscription is gone), or hold its answer until the test releases it (a slow service)."""

from __future__ import annotations

import base64
import json
import os
import struct
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.hmac import HMAC


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def hkdf_extract(salt: bytes, ikm: bytes) -> bytes:
    mac = HMAC(salt, hashes.SHA256())
    mac.update(ikm)
    return mac.finalize()


def hkdf_expand(prk: bytes, info: bytes, length: int) -> bytes:
    """One block is enough for the lengths of RFC 8291 (at most 32 bytes)."""
    mac = HMAC(prk, hashes.SHA256())
    mac.update(info + b"\x01")
    return mac.finalize()[:length]


def point(key: ec.EllipticCurvePublicKey) -> bytes:
    return key.public_bytes(
        serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
    )


@dataclass
class Browser:
    """What a browser keeps of one push subscription: its P-256 key pair and auth secret."""

    key: ec.EllipticCurvePrivateKey = field(
        default_factory=lambda: ec.generate_private_key(ec.SECP256R1())
    )
    auth: bytes = field(default_factory=lambda: os.urandom(16))

    def keys(self) -> dict[str, str]:
        return {"p256dh": b64url(point(self.key.public_key())), "auth": b64url(self.auth)}

    def decrypt(self, body: bytes) -> bytes:
        """RFC 8291 section 3.4 over RFC 8188's aes128gcm: the header (salt, record size,
        the sender's public key as key id), the shared secret, then each record."""
        salt, rs, idlen = body[:16], struct.unpack("!I", body[16:20])[0], body[20]
        sender = body[21 : 21 + idlen]
        assert idlen == 65, "the key id is the sender's P-256 public key"
        assert rs >= 18
        shared = self.key.exchange(
            ec.ECDH(), ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), sender)
        )
        key_info = b"WebPush: info\x00" + point(self.key.public_key()) + sender
        ikm = hkdf_expand(hkdf_extract(self.auth, shared), key_info, 32)
        prk = hkdf_extract(salt, ikm)
        cek = hkdf_expand(prk, b"Content-Encoding: aes128gcm\x00", 16)
        nonce = hkdf_expand(prk, b"Content-Encoding: nonce\x00", 12)
        records = body[21 + idlen :]
        plain = b""
        for seq, start in enumerate(range(0, len(records), rs)):
            iv = (int.from_bytes(nonce, "big") ^ seq).to_bytes(12, "big")
            record = AESGCM(cek).decrypt(iv, records[start : start + rs], None)
            stripped = record.rstrip(b"\x00")
            last = start + rs >= len(records)
            assert stripped[-1:] == (b"\x02" if last else b"\x01"), "padding delimiter"
            plain += stripped[:-1]
        return plain


@dataclass
class Push:
    """One push the service took: which subscription, its headers, the payload as the
    browser decrypted it, and when it came (monotonic)."""

    name: str
    headers: dict[str, str]
    payload: dict[str, Any]
    at: float


class PushService:
    """The stand-in on 127.0.0.1 (a thread of its own); ``vapid_key``: the game server's
    public key (``GET /api/push/key``), the only one whose tokens it takes."""

    def __init__(self) -> None:
        self.vapid_key = ""
        self.browsers: dict[str, Browser] = {}
        self.answers: dict[str, int] = {}  # name -> status to answer (default 201)
        self.held: dict[str, threading.Event] = {}  # name -> released when set
        self.waiting: dict[str, int] = {}  # name -> requests being held right now
        self.pushes: list[Push] = []
        self.refusals: list[str] = []  # what it refused, and why
        self._changed = threading.Condition()
        service = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                service._take(self)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.origin = f"http://127.0.0.1:{self.server.server_address[1]}"
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self._thread.start()

    def close(self) -> None:
        for event in self.held.values():
            event.set()
        self.server.shutdown()
        self.server.server_close()
        self._thread.join(5)

    # -- what a test sets up -------------------------------------------------------------

    def subscription(self, name: str) -> dict[str, Any]:
        """A new browser's subscription at this service, as ``PushSubscription.toJSON()``."""
        browser = self.browsers[name] = Browser()
        return {"endpoint": f"{self.origin}/push/{name}", "keys": browser.keys()}

    def hold(self, name: str) -> threading.Event:
        """``name``'s pushes wait for their answer until the returned event is set."""
        event = self.held[name] = threading.Event()
        return event

    # -- what a test reads ---------------------------------------------------------------

    def of(self, name: str) -> list[Push]:
        with self._changed:
            return [p for p in self.pushes if p.name == name]

    def wait(self, predicate: Any, timeout: float = 10.0) -> None:
        """Until ``predicate(self)`` holds (a deadline, no sleeps: woken by each push)."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while not predicate(self):
                left = deadline - time.monotonic()
                if left <= 0:
                    got = [(p.name, p.payload.get("kind")) for p in self.pushes]
                    raise AssertionError(f"push service: not yet; got {got}, {self.refusals}")
                self._changed.wait(left)

    # -- the service ---------------------------------------------------------------------

    def _refuse(self, request: BaseHTTPRequestHandler, status: int, why: str) -> None:
        with self._changed:
            self.refusals.append(why)
            self._changed.notify_all()
        request.send_response(status)
        request.send_header("Content-Length", "0")
        request.end_headers()

    def _take(self, request: BaseHTTPRequestHandler) -> None:
        name = request.path.removeprefix("/push/")
        body = request.rfile.read(int(request.headers.get("Content-Length", "0")))
        headers = {k.lower(): v for k, v in request.headers.items()}
        browser = self.browsers.get(name)
        if browser is None:
            return self._refuse(request, 404, f"unknown subscription {name}")
        why = self._vapid_refusal(headers.get("authorization", ""))
        if why:
            return self._refuse(request, 401, why)
        if headers.get("content-encoding") != "aes128gcm" or not headers.get("ttl", "").isdigit():
            return self._refuse(request, 400, f"headers {headers}")
        payload = json.loads(browser.decrypt(body))
        held = self.held.get(name)
        if held is not None:
            with self._changed:
                self.waiting[name] = self.waiting.get(name, 0) + 1
                self._changed.notify_all()
            held.wait(30)
            with self._changed:
                self.waiting[name] -= 1
        with self._changed:
            self.pushes.append(Push(name, headers, payload, time.monotonic()))
            self._changed.notify_all()
        try:
            request.send_response(self.answers.get(name, 201))
            request.send_header("Content-Length", "0")
            request.end_headers()
        except OSError:  # the sender gave up waiting (its timeout): nobody to answer
            pass

    def _vapid_refusal(self, authorization: str) -> str:
        """Why the ``Authorization: vapid t=<JWT>, k=<key>`` header is refused ('' if not)."""
        scheme, _, params = authorization.partition(" ")
        if scheme.lower() != "vapid":
            return f"not a vapid authorization: {authorization!r}"
        parts = dict(p.strip().split("=", 1) for p in params.split(","))
        if parts.get("k") != self.vapid_key:
            return "not the game server's key"
        header, claims, signature = parts["t"].split(".")
        if json.loads(unb64url(header)) != {"typ": "JWT", "alg": "ES256"}:
            return f"JWT header {unb64url(header)!r}"
        raw = unb64url(signature)
        public = ec.EllipticCurvePublicKey.from_encoded_point(
            ec.SECP256R1(), unb64url(self.vapid_key)
        )
        try:
            public.verify(
                encode_dss_signature(
                    int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big")
                ),
                f"{header}.{claims}".encode(),
                ec.ECDSA(hashes.SHA256()),
            )
        except InvalidSignature:
            return "bad JWT signature"
        body = json.loads(unb64url(claims))
        if body.get("aud") != self.origin:
            return f"aud {body.get('aud')!r}"
        if not time.time() < body["exp"] <= time.time() + 86400:
            return f"exp {body['exp']}"
        if not str(body.get("sub", "")).startswith(("mailto:", "https://")):
            return f"sub {body.get('sub')!r}"
        return ""
