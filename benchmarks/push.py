"""A Web Push's cost on the process that sends it (issue 29), against a plain HTTP POST of
the same size to the same endpoint beside it (the baseline): what encrypting the payload
for the browser (RFC 8291: an ECDH key pair, HKDF, AES-GCM) and signing the VAPID token
(ES256) add to the post itself. Three figures, in rounds that alternate the two:

- CPU per push and per plain post (this process's CPU time: every thread), and the ratio;
- the whole path a room's event takes (``Notifier.tell``: the claim in a SQLite database
  through the one writer, the wording, the post): CPU per push;
- the event loop's lag (a timer every millisecond, how late it fires) while pushes go,
  against the same with no push: what a move waiting on the loop would feel.

The endpoint is a bare HTTP server in a process of its own (it answers 201 and reads the
body), on loopback: its CPU is not counted. Run: ``nice -n 10 .venv/bin/python
benchmarks/push.py --pushes 300 --rounds 3``."""

from __future__ import annotations

import argparse
import asyncio
import base64
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import requests
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchkit import free_port  # noqa: E402

from server.push import Notifier, PushEvent, Sender  # noqa: E402
from server.push.keys import VapidKey, new_private_key  # noqa: E402
from server.store import RoomState, SeatState, Storage, Subscription  # noqa: E402
from server.store.migrate import upgrade  # noqa: E402

RECEIVER = """
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
class H(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", "0")))
        self.send_response(201); self.send_header("Content-Length", "0"); self.end_headers()
    def log_message(self, *a): pass
ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
"""
PAYLOAD = (
    '{"title": "¡Te toca!", "body": "Te toca en tu partida con Abuela.", "kind": "turn", '
    '"room": "kX3d9aQ2pL0w", "tag": "casino-kX3d9aQ2pL0w", "url": "/?partida=kX3d9aQ2pL0w"}'
)


def browser_keys() -> tuple[str, str]:
    key = (
        ec.generate_private_key(ec.SECP256R1())
        .public_key()
        .public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
    )
    b64 = lambda b: base64.urlsafe_b64encode(b).rstrip(b"=").decode()  # noqa: E731
    return b64(key), b64(os.urandom(16))


async def plain_posts(url: str, n: int, body: bytes) -> float:
    """CPU seconds of ``n`` plain POSTs of ``body`` (4 threads, one session each)."""
    loop = asyncio.get_running_loop()
    sessions: dict[int, requests.Session] = {}

    def post() -> None:
        import threading

        session = sessions.setdefault(threading.get_ident(), requests.Session())
        session.post(url, data=body, headers={"TTL": "86400"}, timeout=10).raise_for_status()

    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(4) as pool:
        started = time.process_time()
        await asyncio.gather(*(loop.run_in_executor(pool, post) for _ in range(n)))
        return time.process_time() - started


async def pushes(sender: Sender, sub: Subscription, n: int) -> float:
    started = time.process_time()
    outcomes = await asyncio.gather(*(sender.send(sub, PAYLOAD, "t", 86400) for _ in range(n)))
    assert all(o.value == "sent" for o in outcomes), outcomes
    return time.process_time() - started


async def lag_during(work: asyncio.Future[object] | None, seconds: float) -> list[float]:
    """How late (ms) a 1 ms timer fires, for ``seconds`` or until ``work`` is done."""
    late: list[float] = []
    deadline = time.perf_counter() + seconds
    while time.perf_counter() < deadline and (work is None or not work.done()):
        asked = time.perf_counter()
        await asyncio.sleep(0.001)
        late.append((time.perf_counter() - asked - 0.001) * 1000)
    return late


async def notifier_path(storage: Storage, sender: Sender, n: int) -> tuple[float, list[float]]:
    """CPU seconds of ``n`` room events told to the notifier, each one claimed (SQLite
    through the writer), worded and posted; and the loop's lag meanwhile."""
    own = Sender(sender.key, sender.subject, sender.timeout)  # closed with the notifier
    notifier = Notifier(storage.push, own, 0.0, time.time, lambda room, epoch: True)
    started = time.process_time()
    for i in range(n):
        notifier.tell(PushEvent("room", 0, "turn", i, 0, "Abuela"))
    probe = asyncio.ensure_future(lag_during(None, 60))

    async def done() -> None:
        while notifier.under_way:
            await asyncio.sleep(0.005)

    finished = asyncio.ensure_future(done())
    late = await lag_during(finished, 60)
    probe.cancel()
    cpu = time.process_time() - started
    sent = notifier.counts.outcomes["sent"]
    assert sent == n, notifier.counts
    await notifier.close()
    return cpu, late


def p(values: list[float], q: float) -> float:
    return sorted(values)[min(len(values) - 1, int(q * len(values)))]


async def main(args: argparse.Namespace) -> None:
    port = free_port()
    receiver = subprocess.Popen([sys.executable, "-c", RECEIVER, str(port)])
    try:
        url = f"http://127.0.0.1:{port}/push/x"
        for _ in range(200):
            try:
                requests.post(url, data=b"", timeout=1)
                break
            except requests.ConnectionError:
                await asyncio.sleep(0.05)
        p256dh, auth = browser_keys()
        sub = Subscription(url, p256dh, auth)
        sender = Sender(VapidKey(new_private_key()), "mailto:bench@localhost", 10.0)
        body = os.urandom(len(PAYLOAD.encode()) + 103)  # the aes128gcm header and tag
        with tempfile.TemporaryDirectory() as tmp:
            db = f"sqlite+aiosqlite:///{tmp}/bench.db"
            await asyncio.to_thread(upgrade, db)
            storage = Storage.open(db, "NORMAL")
            room = RoomState("room", "friend", None, "s", 1, 0, 0, 0, ("Ana", "Abuela"), "I",
                             (SeatState(), SeatState()))  # fmt: skip
            await storage.rooms.create(room, "playing", "tok")
            await storage.push.subscribe("tok", "room", 0, sub, "es", 1.0)
            await pushes(sender, sub, 20)  # warm up: connections, code paths
            await plain_posts(url, 20, body)
            rows = []
            for r in range(args.rounds):
                plain = await plain_posts(url, args.pushes, body) / args.pushes
                push = await pushes(sender, sub, args.pushes) / args.pushes
                path, late = await notifier_path(storage, sender, args.pushes)
                idle = await lag_during(None, 1.0)
                rows.append((plain, push, path / args.pushes, late, idle))
                print(
                    f"round {r + 1}: plain post {plain * 1e3:.3f} ms CPU, push {push * 1e3:.3f}"
                    f" ms ({push / plain:.1f}x), the notifier's whole path"
                    f" {path / args.pushes * 1e3:.3f} ms; loop lag p50/p99/max during pushes"
                    f" {p(late, 0.5):.2f}/{p(late, 0.99):.2f}/{max(late):.2f} ms, with none"
                    f" {p(idle, 0.5):.2f}/{p(idle, 0.99):.2f}/{max(idle):.2f} ms"
                )
            await storage.close()
        sender.close()
        med = statistics.median
        plain_ms = med(r[0] for r in rows) * 1e3
        push_ms = med(r[1] for r in rows) * 1e3
        path_ms = med(r[2] for r in rows) * 1e3
        print(
            f"medians of {args.rounds} rounds of {args.pushes}: a push {push_ms:.3f} ms CPU,"
            f" a plain post of its size {plain_ms:.3f} ms: {push_ms / plain_ms:.1f}x;"
            f" the notifier's whole path (claim, words, post) {path_ms:.3f} ms"
            f" ({path_ms / plain_ms:.1f}x)"
        )
    finally:
        receiver.terminate()
        receiver.wait()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pushes", type=int, default=300, help="pushes (and posts) per round")
    parser.add_argument("--rounds", type=int, default=3)
    asyncio.run(main(parser.parse_args()))
