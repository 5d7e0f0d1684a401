"""Figures for issue 9 (a script, not a test): what the attacks of the issue cost the server
now. Real servers on loopback, bounded in time; run it niced:

    nice -n 10 .venv/bin/python benchmarks/security.py            # everything, ~1 min
    nice -n 10 .venv/bin/python benchmarks/security.py --only limiter

Parts:
- ``header``: one socket sends a 120 MB header line; the server's memory before and after,
  how soon it refused, and the slowest /healthz meanwhile.
- ``halfopen``: 1,500 half-sent requests from 20 loopback addresses (the cap is 64 each);
  how many were refused at once, the slowest /healthz meanwhile, and how long until the
  server had closed every one of them (REQUEST_TIMEOUT).
- ``limiter``: microseconds of CPU per ``allow`` with N new addresses a minute, the limiter
  of before (a copy of it is below) and ``server.limits.SlidingLimit``.
- ``qr``: milliseconds of CPU per QR code, and the slowest /healthz while 36 QR codes a
  second are asked for (that used to saturate the event loop).
- ``parser``: /healthz requests a second over one keep-alive socket, uvicorn's httptools
  parser (the old default) against our guarded h11 protocol.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import socket
import subprocess
import sys
import tempfile
import time
from collections import deque
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from server.edge.limits import SlidingLimit  # noqa: E402

sys.path.insert(0, str(ROOT / "benchmarks"))
from load import cpu_seconds, free_port, healthy  # noqa: E402


def start(
    tmp: Path, env_extra: dict[str, str], command: list[str] | None = None
) -> tuple[subprocess.Popen[bytes], int]:
    port = free_port()
    env = dict(os.environ)
    env.update(
        {
            "DATABASE_URL": f"sqlite+aiosqlite:///{tmp / f'b{port}.db'}",
            "PORT": str(port),
            "HOST": "127.0.0.1",
            "LOG_LEVEL": "warning",
            **env_extra,
        }
    )
    log = open(tmp / f"server-{port}.log", "wb")  # noqa: SIM115
    proc = subprocess.Popen(
        command or [sys.executable, "-m", "server"], cwd=ROOT, env=env, stdout=log, stderr=log
    )
    if healthy(proc, port, 60):
        return proc, port
    proc.kill()
    raise RuntimeError("server did not start")


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


async def healthz_watch(port: int, stop: asyncio.Event, source: str = "127.0.0.250") -> list[float]:
    """/healthz latencies (s), one after another, until ``stop``."""
    times: list[float] = []
    transport = httpx.AsyncHTTPTransport(local_address=source)
    async with httpx.AsyncClient(transport=transport, timeout=30) as client:
        while not stop.is_set():
            t = time.perf_counter()
            await client.get(f"http://127.0.0.1:{port}/healthz")
            times.append(time.perf_counter() - t)
            await asyncio.sleep(0.02)
    return times


# -- header --------------------------------------------------------------------------------


async def bench_header(tmp: Path) -> None:
    proc, port = start(tmp, {})
    try:
        before = rss_mb(proc.pid)
        stop = asyncio.Event()
        watch = asyncio.create_task(healthz_watch(port, stop))
        _, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ")
        sent = 0
        started = time.perf_counter()
        chunk = b"a" * (1 << 20)
        try:
            while sent < 120 << 20:
                writer.write(chunk)
                await writer.drain()
                sent += len(chunk)
        except (ConnectionError, OSError):
            pass
        refused_after = time.perf_counter() - started
        writer.close()
        await asyncio.sleep(1)
        stop.set()
        times = await watch
        print(
            f"header: sent {sent >> 20} MB of a 120 MB header before the server closed "
            f"({refused_after:.2f} s); RSS {before:.0f} -> {rss_mb(proc.pid):.0f} MB; "
            f"/healthz slowest {max(times) * 1000:.1f} ms over {len(times)} requests"
        )
    finally:
        proc.terminate()
        proc.wait()


# -- halfopen ------------------------------------------------------------------------------


async def bench_halfopen(tmp: Path, count: int = 1500, timeout: float = 10.0) -> None:
    proc, port = start(tmp, {"REQUEST_TIMEOUT": str(timeout)})
    try:
        stop = asyncio.Event()
        watch = asyncio.create_task(healthz_watch(port, stop))
        socks: list[socket.socket] = []
        refused = 0
        for i in range(count):
            s = socket.socket()
            s.setblocking(False)
            s.bind((f"127.0.5.{i % 20 + 1}", 0))
            try:
                await asyncio.get_running_loop().sock_connect(s, ("127.0.0.1", port))
                await asyncio.get_running_loop().sock_sendall(s, b"GET /healthz HTTP/1.1\r\n")
            except OSError:
                refused += 1
            socks.append(s)
        opened = time.monotonic()
        await asyncio.sleep(0.5)
        for s in socks:  # a refused one has its answer waiting already
            try:
                if s.recv(16).startswith(b"HTTP/1.1 429"):
                    refused += 1
            except OSError:
                pass
        while True:  # until the server closed every socket it kept
            alive = 0
            for s in socks:
                try:
                    data = s.recv(4096)
                    if data and not data.startswith(b"HTTP/1.1 408"):
                        alive += 1
                except BlockingIOError:
                    alive += 1
                except OSError:
                    pass
            if not alive or time.monotonic() - opened > timeout + 20:
                break
            await asyncio.sleep(0.25)
        closed_after = time.monotonic() - opened
        stop.set()
        times = await watch
        for s in socks:
            s.close()
        print(
            f"halfopen: {count} half-sent requests from 20 addresses: {refused} refused at "
            f"once (429), the rest closed by the server within {closed_after:.1f} s "
            f"(REQUEST_TIMEOUT={timeout:g}); /healthz slowest "
            f"{max(times) * 1000:.1f} ms over {len(times)} requests"
        )
    finally:
        proc.terminate()
        proc.wait()


# -- limiter -------------------------------------------------------------------------------


class OldSlidingLimit:
    """server/app.py's SlidingLimit before issue 9, for comparison."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.hits: dict[str, deque[float]] = {}

    def allow(self, key: str) -> bool:
        now = time.monotonic()
        hits = self.hits.setdefault(key, deque())
        while hits and hits[0] <= now - 60:
            hits.popleft()
        if len(hits) >= self.limit:
            return False
        hits.append(now)
        if len(self.hits) > 10000:
            for k in [k for k, v in self.hits.items() if not v or v[-1] <= now - 60]:
                del self.hits[k]
        return True


def bench_limiter() -> None:
    for addresses in (1_000, 10_000, 24_000, 100_000):
        row = [f"limiter: {addresses:>7,} addresses a minute:"]
        for name, limit in (("before", OldSlidingLimit(30)), ("now", SlidingLimit(30))):
            if name == "before" and addresses > 24_000:
                row.append("before (too slow to run)")
                continue
            keys = [f"10.{i >> 16 & 255}.{i >> 8 & 255}.{i & 255}" for i in range(addresses)]
            for key in keys:  # the minute's addresses, each seen once
                limit.allow(key)
            t = time.process_time()
            calls = 2000
            for i in range(calls):  # then more requests among them
                limit.allow(keys[(i * 7919) % addresses])
            row.append(f"{name} {(time.process_time() - t) / calls * 1e6:8.1f} µs/call")
        print(" ".join(row))


# -- qr ------------------------------------------------------------------------------------


async def bench_qr(tmp: Path, per_second: int = 36, seconds: float = 5.0) -> None:
    from server.web.qr import render

    t = time.process_time()
    for i in range(50):
        render(f"https://casino.example/r/{'x' * 32}{i}")
    per_qr = (time.process_time() - t) / 50
    proc, port = start(tmp, {"RATE_QR_PER_MIN": "100000"})
    try:
        stop = asyncio.Event()
        watch = asyncio.create_task(healthz_watch(port, stop))
        cpu0 = cpu_seconds(proc.pid)
        statuses: list[int] = []
        async with httpx.AsyncClient(timeout=30) as client:

            async def one(i: int) -> None:
                r = await client.post(
                    f"http://127.0.0.1:{port}/api/qr", json={"text": f"/r/{'y' * 30}{i}"}
                )
                statuses.append(r.status_code)

            tasks = []
            started = time.monotonic()
            for i in range(int(per_second * seconds)):
                tasks.append(asyncio.create_task(one(i)))
                await asyncio.sleep(max(0.0, started + (i + 1) / per_second - time.monotonic()))
            await asyncio.gather(*tasks)
        stop.set()
        times = await watch
        ok = statuses.count(200)
        print(
            f"qr: {per_qr * 1000:.1f} ms CPU per code; {len(statuses)} asked at "
            f"{per_second}/s: {ok} made, {statuses.count(503)} busy (503); server CPU "
            f"{cpu_seconds(proc.pid) - cpu0:.1f} s; /healthz slowest "
            f"{max(times) * 1000:.1f} ms, median {sorted(times)[len(times) // 2] * 1000:.1f} ms"
        )
    finally:
        proc.terminate()
        proc.wait()


# -- parser --------------------------------------------------------------------------------


def bench_parser(tmp: Path, seconds: float = 3.0) -> None:
    httptools = [
        sys.executable,
        "-c",
        "import os, uvicorn; from server.web.app import create_app; "
        "uvicorn.run(create_app(), host='127.0.0.1', port=int(os.environ['PORT']), "
        "http='httptools', log_level='warning')",
    ]
    for name, command in (("httptools (before)", httptools), ("guarded h11 (now)", None)):
        proc, port = start(tmp, {}, command)
        try:
            with httpx.Client(timeout=10) as client:
                n = 0
                end = time.monotonic() + seconds
                while time.monotonic() < end:
                    client.get(f"http://127.0.0.1:{port}/healthz")
                    n += 1
            print(
                f"parser: {name}: {n / seconds:.0f} /healthz requests a second "
                "(one keep-alive socket)"
            )
        finally:
            proc.terminate()
            proc.wait()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--only", choices=["header", "halfopen", "limiter", "qr", "parser"])
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        if args.only in (None, "header"):
            asyncio.run(bench_header(tmp))
        if args.only in (None, "halfopen"):
            asyncio.run(bench_halfopen(tmp))
        if args.only in (None, "limiter"):
            bench_limiter()
        if args.only in (None, "qr"):
            asyncio.run(bench_qr(tmp))
        if args.only in (None, "parser"):
            bench_parser(tmp)


if __name__ == "__main__":
    main()
