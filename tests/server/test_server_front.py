"""What meets a request before the game does (issue 9, items 1, 3, 5, 7, 8, 9): sockets,
heads, hosts, headers, bodies, QR codes. One real server; each test speaks from its own
loopback address (127.0.0.x) so that per-address limits and caps do not mix."""

from __future__ import annotations

import base64
import json
import os
import re
import select
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import segno

from tests.support.services import client_dir
from tests.support.srvkit import ServerProc

REQUEST_TIMEOUT = 1.5
PER_ADDRESS = 4
TOTAL = 12
MAX_HEADERS = 40
QR_PER_MIN = 4
ROOMS_PER_MIN = 3
JOIN_PER_MIN = 5


@pytest.fixture(scope="module")
def front(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProc]:
    tmp = tmp_path_factory.mktemp("front")
    proc = ServerProc(
        tmp,
        {
            "REQUEST_TIMEOUT": str(REQUEST_TIMEOUT),
            "MAX_CONNECTIONS_PER_ADDRESS": str(PER_ADDRESS),
            "MAX_CONNECTIONS": str(TOTAL),
            "MAX_HEADERS": str(MAX_HEADERS),
            "RATE_QR_PER_MIN": str(QR_PER_MIN),
            "RATE_ROOMS_PER_MIN": str(ROOMS_PER_MIN),
            "RATE_JOIN_PER_MIN": str(JOIN_PER_MIN),
            "FORWARDED_ALLOW_IPS": "127.0.0.1",
            "PUBLIC_ORIGIN": "https://casino.example",
            "ALLOWED_HOSTS": "juego.example",
            "CLIENT_DIR": str(client_dir(tmp)),
            "LOG_LEVEL": "info",
        },
        soft_files=256,
    ).start()
    yield proc
    proc.stop()


def http(server: ServerProc, source: str) -> httpx.Client:
    """An HTTP client whose requests come from ``source`` (a 127.0.0.x address)."""
    return httpx.Client(
        base_url=server.base, timeout=5, transport=httpx.HTTPTransport(local_address=source)
    )


def raw(server: ServerProc, source: str) -> socket.socket:
    sock = socket.create_connection(
        ("127.0.0.1", server.port), timeout=5, source_address=(source, 0)
    )
    return sock


def read_answer(sock: socket.socket, timeout: float = 5) -> bytes:
    """Everything the server sends until it closes the socket (or ``timeout``)."""
    sock.settimeout(timeout)
    data = b""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            chunk = sock.recv(65536)
        except (TimeoutError, ConnectionResetError):
            break
        if not chunk:
            break
        data += chunk
    return data


def status_of(data: bytes) -> int:
    match = re.match(rb"HTTP/1\.1 (\d{3}) ", data)
    return int(match.group(1)) if match else 0


def body_of(data: bytes) -> Any:
    return json.loads(data.split(b"\r\n\r\n", 1)[1])


def healthz_fast(server: ServerProc, source: str = "127.0.0.250") -> None:
    with http(server, source) as c:
        assert c.get("/healthz", timeout=2).status_code == 200


# -- item 1: one connection freezes the server ----------------------------------------------


def test_huge_header_is_refused_at_once(front: ServerProc) -> None:
    """A 1 MB header line: the server answers 400 after the first few kilobytes and closes,
    and goes on serving everybody else."""
    sock = raw(front, "127.0.0.2")
    sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ")
    answer = b""
    started = time.monotonic()
    try:
        for _ in range(64):  # 64 x 16 KB, reading whatever comes back as it comes
            if select.select([sock], [], [], 0)[0]:
                break
            sock.sendall(b"a" * 16384)
        else:
            sock.sendall(b"\r\n\r\n")
    except OSError:  # closed by the server while we were still sending
        pass
    answer = read_answer(sock, 3)
    sock.close()
    assert status_of(answer) == 400, answer
    assert body_of(answer)["error"]["code"] == "bad_request"
    assert time.monotonic() - started < 3
    healthz_fast(front)


def test_half_sent_request_times_out(front: ServerProc) -> None:
    sock = raw(front, "127.0.0.3")
    started = time.monotonic()
    sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n")  # never finished
    answer = read_answer(sock, REQUEST_TIMEOUT + 4)
    assert status_of(answer) == 408, answer
    assert body_of(answer)["error"]["code"] == "request_timeout"
    assert time.monotonic() - started < REQUEST_TIMEOUT + 3
    sock.close()


def test_trickled_request_times_out_too(front: ServerProc) -> None:
    sock = raw(front, "127.0.0.4")
    started = time.monotonic()
    sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n")
    with pytest.raises(OSError):
        while time.monotonic() - started < REQUEST_TIMEOUT + 4:  # a byte now and then
            sock.sendall(b"X")
            time.sleep(0.2)
    assert time.monotonic() - started < REQUEST_TIMEOUT + 4
    sock.close()


def test_half_open_sockets_beyond_the_per_address_cap_are_refused(front: ServerProc) -> None:
    held = [raw(front, "127.0.0.5") for _ in range(PER_ADDRESS)]
    for sock in held:
        sock.sendall(b"GET /healthz HTTP/1.1\r\n")
    extra = raw(front, "127.0.0.5")
    answer = read_answer(extra, 1)
    assert status_of(answer) == 429, answer
    assert body_of(answer)["error"]["code"] == "too_many_connections"
    healthz_fast(front, "127.0.0.6")  # other addresses are served meanwhile
    for sock in [*held, extra]:
        sock.close()
    deadline = time.monotonic() + 5  # and this one again once its sockets closed
    while True:
        with http(front, "127.0.0.5") as c:
            try:
                if c.get("/healthz").status_code == 200:
                    break
            except httpx.HTTPError:
                pass
        assert time.monotonic() < deadline
        time.sleep(0.05)


def test_total_connections_are_capped(front: ServerProc) -> None:
    held: list[socket.socket] = []
    refused: bytes | None = None
    try:
        for i in range(TOTAL + 1):  # keep-alive sockets, PER_ADDRESS - 1 per address
            sock = raw(front, f"127.0.1.{i // (PER_ADDRESS - 1) + 1}")
            sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            answer = sock.recv(4096)
            held.append(sock)
            if status_of(answer) != 200:
                refused = answer
                break
        assert refused is not None and status_of(refused) == 503, refused
        assert b'"busy"' in refused
    finally:
        for sock in held:
            sock.close()


def test_too_many_headers(front: ServerProc) -> None:
    headers = {f"x-h{i}": "1" for i in range(MAX_HEADERS + 5)}
    with http(front, "127.0.0.7") as c:
        r = c.get("/healthz", headers=headers)
    assert r.status_code == 431
    assert r.json()["error"]["message"]


def test_file_limit_raised_to_the_hard_limit(front: ServerProc) -> None:
    assert front.proc is not None
    limits = Path(f"/proc/{front.proc.pid}/limits").read_text()
    found = re.search(r"Max open files\s+(\d+)\s+(\d+)", limits)
    assert found is not None, limits
    soft, hard = found.groups()
    assert int(soft) == int(hard) > 256


# -- item 3: forwarded addresses and IPv6 -----------------------------------------------------


def test_ipv6_is_limited_per_64(front: ServerProc) -> None:
    """127.0.0.1 is this server's trusted proxy (FORWARDED_ALLOW_IPS): the addresses it
    forwards count, by /64."""
    with http(front, "127.0.0.1") as c:
        codes = [
            c.post(
                "/api/rejoin-codes",
                json={"token": "x" * 40},
                headers={"X-Forwarded-For": f"2001:db8:1:2::{i:x}"},
            ).status_code
            for i in range(1, JOIN_PER_MIN + 4)
        ]
        other = c.post(
            "/api/rejoin-codes",
            json={"token": "x" * 40},
            headers={"X-Forwarded-For": "2001:db8:1:3::1"},
        ).status_code
    assert codes == [401] * JOIN_PER_MIN + [429] * 3
    assert other == 401


# -- item 5: bodies ---------------------------------------------------------------------------


def test_nested_json_is_a_quiet_400_after_the_rate_limit(front: ServerProc) -> None:
    nested = b"[" * 2000 + b"]" * 2000  # 4000 bytes of valid JSON, 2000 deep
    with http(front, "127.0.0.8") as c:
        statuses = [
            c.post(
                "/api/rooms", content=nested, headers={"Content-Type": "application/json"}
            ).status_code
            for _ in range(ROOMS_PER_MIN + 2)
        ]
    assert statuses == [400] * ROOMS_PER_MIN + [429] * 2
    assert "Traceback" not in front.read_log()


def test_client_gone_mid_body_is_not_an_error(front: ServerProc) -> None:
    sock = raw(front, "127.0.0.9")
    sock.sendall(
        b"POST /api/rooms HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: "
        b'application/json\r\nContent-Length: 500\r\n\r\n{"mode": '
    )
    sock.close()
    healthz_fast(front)
    deadline = time.monotonic() + 1.0  # the server has seen it go well before this
    while time.monotonic() < deadline:
        log = front.read_log()
        assert "Traceback" not in log and "error in create_room" not in log, log[-2000:]
        time.sleep(0.05)


# -- item 7: QR codes -------------------------------------------------------------------------


def expected_svg(url: str) -> bytes:
    import io

    buffer = io.BytesIO()
    segno.make(url, error="m").save(buffer, kind="svg", scale=6, border=2)
    return buffer.getvalue()


def test_qr_by_post_from_the_public_origin(front: ServerProc) -> None:
    long_code = base64.urlsafe_b64encode(os.urandom(24)).decode().rstrip("=")
    with http(front, "127.0.0.10") as c:
        r = c.post("/api/qr", json={"text": f"/r/{long_code}"})
        assert r.status_code == 200, r.text
        assert r.headers["content-type"].startswith("image/svg+xml")
        assert r.headers["cache-control"] == "no-store"
        # the link is built from PUBLIC_ORIGIN, never from the Host header
        assert r.content == expected_svg(f"https://casino.example/r/{long_code}")
        r = c.post("/api/qr", json={"text": "/j/H7KM4Q2P"}, headers={"Host": "juego.example"})
        assert r.content == expected_svg("https://casino.example/j/H7KM4Q2P")
        # a link says nothing of its sender: no name rides along
        assert c.post("/api/qr", json={"text": "/j/H7KM4Q2P?de=Ana"}).status_code == 400
        # no secret in a query string: the GET form is gone
        assert c.get(f"/api/qr.svg?text=/r/{long_code}").status_code == 404
    with http(front, "127.0.0.15") as c:  # a limit of its own: QR_PER_MIN tries
        for bad in ("https://evil.com/j/X", "/r/X?de=Ana", "/j/X?next=//evil.com", "/j/X#a"):
            assert c.post("/api/qr", json={"text": bad}).status_code == 400, bad


def test_qr_is_rate_limited(front: ServerProc) -> None:
    with http(front, "127.0.0.11") as c:
        statuses = [
            c.post("/api/qr", json={"text": f"/j/CODE{i}"}).status_code
            for i in range(QR_PER_MIN + 3)
        ]
    assert statuses == [200] * QR_PER_MIN + [429] * 3


# -- item 8: security headers -----------------------------------------------------------------


@pytest.mark.parametrize(
    "path", ["/", "/j/H7KM4Q2P", "/static/app.js", "/healthz", "/api/rooms/nope", "/no-such-page"]
)
def test_security_headers(front: ServerProc, path: str) -> None:
    with http(front, "127.0.0.12") as c:
        r = c.get(path)
    csp = r.headers.get("content-security-policy", "")
    assert "frame-ancestors 'none'" in csp and "script-src 'self'" in csp
    assert "'unsafe-inline'" not in csp
    assert r.headers.get("x-content-type-options") == "nosniff"
    assert r.headers.get("referrer-policy") == "no-referrer"
    assert r.headers.get("x-frame-options") == "DENY"


# -- item 9: DNS rebinding --------------------------------------------------------------------


def test_foreign_host_is_refused(front: ServerProc) -> None:
    evil = f"evil.example:{front.port}"
    with http(front, "127.0.0.13") as c:
        r = c.post(
            "/api/rooms",
            json={"mode": "friend", "name": "Ana"},
            headers={"Host": evil, "Origin": f"http://{evil}"},
        )
        assert r.status_code == 400 and r.json()["error"]["code"] == "bad_host"
        assert c.get("/", headers={"Host": evil}).status_code == 400
        assert c.get("/healthz", headers={"Host": "10.9.8.7"}).status_code == 400
        for host in (f"juego.example:{front.port}", "casino.example", f"localhost:{front.port}"):
            assert c.get("/healthz", headers={"Host": host}).status_code == 200, host


def test_foreign_host_cannot_open_the_websocket(front: ServerProc) -> None:
    evil = f"evil.example:{front.port}"
    sock = raw(front, "127.0.0.14")
    sock.sendall(
        (
            f"GET /ws HTTP/1.1\r\nHost: {evil}\r\nOrigin: http://{evil}\r\n"
            "Upgrade: websocket\r\nConnection: Upgrade\r\n"
            "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
            "Sec-WebSocket-Version: 13\r\n\r\n"
        ).encode()
    )
    answer = read_answer(sock, 3)
    sock.close()
    assert status_of(answer) == 403, answer
