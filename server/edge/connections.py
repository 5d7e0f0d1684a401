"""Sockets, before any request: how many may be open (``ConnectionGate``) and how long a
request may take to arrive (``GuardedH11Protocol``).

uvicorn's own limits are not enough: its httptools parser reads headers of any size, a
half-sent request is never timed out, and a socket that never finishes its request never
reaches the app, so no ASGI middleware can count it. So the gate sits in uvicorn's protocol
classes themselves: ``guarded_protocols`` makes subclasses of its h11 HTTP protocol (whose
parser stops at ``MAX_HEADER_BYTES``) and of its websocket protocol that

- refuse a new socket at once, with a short JSON answer, when ``MAX_CONNECTIONS`` are open
  (503) or its address (IPv4, or IPv6 /64) already has ``MAX_CONNECTIONS_PER_ADDRESS``
  (429); the addresses of trusted proxies (``FORWARDED_ALLOW_IPS``) have no per-address cap;
- close a socket whose request (head and body) has not fully arrived ``REQUEST_TIMEOUT``
  seconds after it began (408), whether it trickles or stalls;
- count a websocket as open until it closes.
"""

from __future__ import annotations

import asyncio
import ipaddress
import json
import resource
from typing import Any, ClassVar

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

from .limits import client_key

FD_HEADROOM = 64  # files kept free for the database, logs and the like


def raise_file_limit() -> int:
    """Raises this process's open-file limit to the hard limit; returns the new soft one."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or soft < hard:
        target = hard if hard != resource.RLIM_INFINITY else max(soft, 1 << 20)
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
        except (ValueError, OSError):  # the OS said no: keep what we have
            pass
    return soft


def answer(status: int, reason: str, code: str, message: str) -> bytes:
    body = json.dumps({"error": {"code": code, "message": message}}, ensure_ascii=False).encode()
    head = (
        f"HTTP/1.1 {status} {reason}\r\ncontent-type: application/json\r\n"
        f"content-length: {len(body)}\r\nconnection: close\r\n\r\n"
    )
    return head.encode() + body


BUSY = answer(
    503,
    "Service Unavailable",
    "busy",
    "El servidor está lleno ahora mismo. Prueba otra vez en un momento.",
)
TOO_MANY = answer(
    429,
    "Too Many Requests",
    "too_many_connections",
    "Hay demasiadas conexiones abiertas desde tu red. Cierra algunas pestañas.",
)
BAD_REQUEST = answer(
    400,
    "Bad Request",
    "bad_request",
    "No entendimos esa petición (¿encabezados demasiado grandes?).",
)
TIMEOUT = answer(
    408, "Request Timeout", "request_timeout", "La petición tardó demasiado en llegar."
)


class TrustedProxies:
    """``FORWARDED_ALLOW_IPS``: addresses or networks, comma-separated; ``*`` is all."""

    def __init__(self, spec: str) -> None:
        items = [s.strip() for s in spec.split(",") if s.strip()]
        self.everyone = "*" in items
        self.networks = []
        for item in items:
            if item != "*":
                self.networks.append(ipaddress.ip_network(item, strict=False))

    def __contains__(self, host: object) -> bool:
        if self.everyone:
            return True
        try:
            ip = ipaddress.ip_address(str(host))
        except ValueError:
            return False
        return any(ip in net for net in self.networks)


class ConnectionGate:
    def __init__(self, total: int, per_address: int, trusted: TrustedProxies) -> None:
        self.total = total
        self.per_address = per_address
        self.trusted = trusted
        self.open = 0
        self.by_key: dict[str, int] = {}

    def admit(self, host: str | None) -> bytes | None:
        """None (admitted, counted) or the answer that refuses the socket."""
        if self.open >= self.total:
            return BUSY
        key = client_key(host)
        count = self.by_key.get(key, 0)
        if self.per_address and count >= self.per_address and host not in self.trusted:
            return TOO_MANY
        self.open += 1
        self.by_key[key] = count + 1
        return None

    def release(self, host: str | None) -> None:
        key = client_key(host)
        count = self.by_key.get(key, 0)
        if count <= 1:
            self.by_key.pop(key, None)
        else:
            self.by_key[key] = count - 1
        self.open = max(0, self.open - 1)


def _peer(transport: asyncio.BaseTransport) -> str | None:
    info = transport.get_extra_info("peername")
    if isinstance(info, tuple | list) and info:
        return str(info[0])
    return None


class GuardedH11Protocol(H11Protocol):
    gate: ClassVar[ConnectionGate]
    request_timeout: ClassVar[float]

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self.peer = _peer(transport)
        self.counted = False  # by the gate, until this socket closes or becomes a websocket
        self.deadline: asyncio.TimerHandle | None = None
        refusal = self.gate.admit(self.peer)
        if refusal is not None:
            transport.write(refusal)
            transport.close()
            return
        self.counted = True
        self._arm()

    def _arm(self) -> None:
        self.deadline = self.loop.call_later(self.request_timeout, self._too_slow)

    def _disarm(self) -> None:
        if self.deadline is not None:
            self.deadline.cancel()
            self.deadline = None

    def _too_slow(self) -> None:
        self.deadline = None
        if self.transport.is_closing():
            return
        if self.cycle is None or not self.cycle.response_started:
            self.transport.write(TIMEOUT)
        self.transport.close()

    def send_400_response(self, msg: str) -> None:
        """A head h11 cannot read (malformed, or over MAX_HEADER_BYTES): our error shape."""
        self.transport.write(BAD_REQUEST)
        self.transport.close()

    def data_received(self, data: bytes) -> None:
        if not self.counted:
            return
        if self.deadline is None and self.conn.their_state is h11.IDLE:
            self._arm()  # the next request on a kept-alive socket begins
        super().data_received(data)
        if self.conn.their_state not in (h11.IDLE, h11.SEND_BODY):
            self._disarm()  # all of it arrived (or it is over)

    def handle_websocket_upgrade(self, event: h11.Request) -> None:
        self._disarm()
        self.counted = False  # the websocket protocol releases it when it closes
        super().handle_websocket_upgrade(event)

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        if self.counted:
            self.counted = False
            self.gate.release(self.peer)
        super().connection_lost(exc)


class GuardedWebSocketProtocol(WebSocketsSansIOProtocol):
    gate: ClassVar[ConnectionGate]

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)
        self.peer = _peer(transport)

    def connection_lost(self, exc: Exception | None) -> None:
        self.gate.release(self.peer)
        super().connection_lost(exc)


def guarded_protocols(gate: ConnectionGate, request_timeout: float) -> tuple[type[Any], type[Any]]:
    """The (http, ws) protocol classes to give ``uvicorn.run``, sharing ``gate``."""
    http = type(
        "CasinoHttpProtocol",
        (GuardedH11Protocol,),
        {"gate": gate, "request_timeout": request_timeout},
    )
    ws = type("CasinoWebSocketProtocol", (GuardedWebSocketProtocol,), {"gate": gate})
    return http, ws
