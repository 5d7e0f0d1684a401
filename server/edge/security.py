"""What every request meets first (``SecurityMiddleware``): a ``Host`` this server answers
to (``HostPolicy``: a page on a stranger's domain that DNS-rebinds to us is refused), a
bounded number of headers, and the browser security headers on every HTTP answer.

``origin_allowed`` is the cross-site check of posts and websockets.
"""

from __future__ import annotations

import ipaddress
import json
from urllib.parse import urlsplit

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ..config import Settings

WILDCARDS = ("", "0.0.0.0", "::", "[::]")
LOCAL_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})

# The client has no inline script or style and loads nothing from elsewhere. QR codes are
# fetched by POST and shown from a blob: URL (server/web/qr.py).
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' blob:; "
    "connect-src 'self'; font-src 'self'; manifest-src 'self'; base-uri 'none'; "
    "form-action 'self'; frame-ancestors 'none'"
)
SECURITY_HEADERS: list[tuple[bytes, bytes]] = [
    (b"content-security-policy", CSP.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),  # /j/ and /r/ paths hold codes: never pass them on
    (b"x-frame-options", b"DENY"),
    (b"cross-origin-opener-policy", b"same-origin"),
    (b"cross-origin-resource-policy", b"same-origin"),
    (b"permissions-policy", b"camera=(), microphone=(), geolocation=(), payment=()"),
]


def host_name(host: str) -> str:
    """The name part of a ``Host`` header value, lower case, without port or brackets."""
    host = host.strip().lower()
    if host.startswith("["):
        return host[1:].split("]", 1)[0]
    if host.count(":") == 1:
        return host.split(":", 1)[0]
    return host


def is_ip(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


class HostPolicy:
    """The host names this server answers to: ``localhost`` and the loopback addresses, the
    address it listens on (any IP address when it listens on all of them: a rebinding
    attack always comes with a domain name), the ``PUBLIC_ORIGIN``'s host, and
    ``ALLOWED_HOSTS`` (``.example.com`` allows its subdomains too; ``*`` allows anything)."""

    def __init__(self, settings: Settings) -> None:
        names = set(LOCAL_NAMES) | {host_name(h) for h in settings.allowed_hosts}
        self.any_ip = settings.host in WILDCARDS
        if not self.any_ip:
            names.add(host_name(settings.host))
        if settings.public_origin:
            names.add((urlsplit(settings.public_origin).hostname or "").lower())
        self.anything = "*" in names
        self.suffixes = tuple(n for n in names if n.startswith("."))
        self.names = frozenset(n for n in names if not n.startswith("."))

    def allows(self, host: str | None) -> bool:
        if host is None:  # HTTP/1.0 without Host: not a browser, cannot be rebinding
            return True
        name = host_name(host)
        if self.anything or name in self.names:
            return True
        if self.any_ip and is_ip(name):
            return True
        return any(name.endswith(s) or name == s[1:] for s in self.suffixes)


def origin_allowed(origin: str | None, host: str | None, settings: Settings) -> bool:
    """Browsers always send Origin; it must be this site (the origin's host is the request's
    ``Host``, which ``SecurityMiddleware`` already checked), the ``PUBLIC_ORIGIN`` or one of
    ``ALLOWED_ORIGINS``. Clients that are not browsers (no Origin) cannot be tricked by
    another site."""
    if origin is None:
        return True
    origin = origin.rstrip("/")
    if origin in settings.allowed_origins or (
        settings.public_origin and origin == settings.public_origin
    ):
        return True
    parts = urlsplit(origin)
    return parts.scheme in ("http", "https") and bool(host) and parts.netloc == host


def _error_body(code: str, message: str) -> bytes:
    return json.dumps({"error": {"code": code, "message": message}}, ensure_ascii=False).encode()


class SecurityMiddleware:
    """Plain ASGI (no per-request objects): refuses unknown hosts and too many headers,
    and adds ``SECURITY_HEADERS`` to every HTTP answer."""

    def __init__(self, app: ASGIApp, settings: Settings) -> None:
        self.app = app
        self.hosts = HostPolicy(settings)
        self.max_headers = settings.max_headers

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        headers: list[tuple[bytes, bytes]] = scope["headers"]
        host = next((v.decode("latin-1") for k, v in headers if k == b"host"), None)
        refusal: tuple[int, str, str] | None = None
        if len(headers) > self.max_headers:
            refusal = (431, "bad_request", "La petición trae demasiados encabezados.")
        elif not self.hosts.allows(host):
            refusal = (400, "bad_host", "Este servidor no atiende ese nombre de sitio.")
        if refusal is not None:
            if scope["type"] == "websocket":  # before accept: uvicorn answers 403
                await send({"type": "websocket.close", "code": 1008})
                return
            await self._refuse(send, *refusal)
            return
        if scope["type"] == "websocket":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                present = {k.lower() for k, _ in message.get("headers", [])}
                extra = [(k, v) for k, v in SECURITY_HEADERS if k not in present]
                message = {**message, "headers": [*message.get("headers", []), *extra]}
            await send(message)

        await self.app(scope, receive, send_with_headers)

    @staticmethod
    async def _refuse(send: Send, status: int, code: str, message: str) -> None:
        body = _error_body(code, message)
        await send(
            {
                "type": "http.response.start",
                "status": status,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()),
                    (b"connection", b"close"),
                    *SECURITY_HEADERS,
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})
