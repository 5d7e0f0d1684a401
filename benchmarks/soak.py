"""The soak (issue 31): one server process (SQLite, started here with
``METRICS_ROOM_PARTS=1``) holding ``--rooms`` friend rooms at people's pace (two bots a room,
1-3 s a move, a rematch at each match's end) for ``--minutes``, and beside it, in the same
run, the bare websocket echo of the same stack (``echo.py``) holding as many pairs of
sockets at people's pace. Every ``--every`` seconds one line: the server's RSS, its growth
per room over the idle server, what the rooms hold by part (``/metrics``,
``server/rooms/memory.py``), the echo's RSS per pair, the round trip's p99 over the last
interval, the errors the bots were told (``reconnecting`` among them) and the rooms stopped
by reason. ``--busy-from M --busy-for M``: ``--busy`` processes spinning on the CPU over
that stretch (a machine loaded by something else). At the end: the level per room, how
much it grew over the last half, when it reached its level.

    LEASE_SECONDS=30 nice -n 5 .venv/bin/python benchmarks/soak.py --rooms 500 --minutes 30 \\
        --busy-from 10 --busy-for 10
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import benchkit  # noqa: E402
import echo  # noqa: E402
import load  # noqa: E402

PART = re.compile(r'^casino_room_part_bytes\{part="([^"]+)"\} (\S+)$', re.M)
STOP = re.compile(r'^casino_room_stops_total\{reason="([^"]+)"\} (\S+)$', re.M)


def scrape(base: str) -> tuple[dict[str, float], dict[str, float]]:
    """(bytes by part, rooms stopped by reason) from the server's /metrics."""
    import httpx

    text = httpx.get(f"{base}/metrics", timeout=30).text
    parts = {k: float(v) for k, v in PART.findall(text)}
    stops = {k: float(v) for k, v in STOP.findall(text) if float(v)}
    return parts, stops


def snapshot(server: subprocess.Popen[bytes], tmp: Path) -> None:
    """Asks the traced server for its next tracemalloc snapshot and waits for it."""
    before = len(list(tmp.glob("snapshot-*.done")))
    server.send_signal(signal.SIGUSR1)
    deadline = time.monotonic() + 300
    while len(list(tmp.glob("snapshot-*.done"))) == before and time.monotonic() < deadline:
        time.sleep(0.2)


def _grouped(traces: Any, key: Any) -> dict[str, int]:
    sums: dict[str, int] = {}
    for trace in traces:
        k = key(trace.traceback)
        sums[k] = sums.get(k, 0) + trace.size
    return sums


def _library(tb: Any) -> str:
    """The package that allocated (the innermost frame's: a traceback runs oldest first)."""
    name = str(tb[-1].filename)
    for marker in ("/site-packages/", "/lib/python3"):
        if marker in name:
            rest = name.split(marker, 1)[1].split("/")
            return rest[0] if marker == "/site-packages/" else "stdlib/" + rest[1]
    return name.split("/server/", 1)[-1] if "/server/" in name else name


def _ours(tb: Any) -> str:
    """The innermost frame of the server's own code that led to the allocation."""
    for frame in reversed(tb):  # innermost first
        if "/server/" in frame.filename and "site-packages" not in frame.filename:
            return f"{frame.filename.split('/server/', 1)[1]}:{frame.lineno}"
    return "(outside server/)"


def print_traced(tmp: Path, rooms: int, rss_kib_per_room: float) -> None:
    """What tracemalloc saw grow between the idle server and the last minute, per room:
    by the package that allocated and by the server's line that led there."""
    import tracemalloc

    idle = tracemalloc.Snapshot.load(str(tmp / "snapshot-0")).traces
    busy = tracemalloc.Snapshot.load(str(tmp / "snapshot-1")).traces
    total = (sum(t.size for t in busy) - sum(t.size for t in idle)) / rooms / 1024
    print(
        f"traced: Python's allocations grew {total:.1f} KiB a room "
        f"(of the RSS's {rss_kib_per_room} KiB; the rest is outside Python's allocator's view "
        "or its free lists)",
        flush=True,
    )
    for title, key in (("by package", _library), ("by the server's line", _ours)):
        before, after = _grouped(idle, key), _grouped(busy, key)
        grown = {k: after.get(k, 0) - before.get(k, 0) for k in after.keys() | before.keys()}
        top = sorted(grown.items(), key=lambda kv: -kv[1])[:25]
        print(f"  {title}:", flush=True)
        for k, v in top:
            print(f"    {v / rooms / 1024:7.2f} KiB a room  {k}", flush=True)


async def soak(args: argparse.Namespace) -> None:
    os.environ["METRICS_ROOM_PARTS"] = "1"
    tmp = Path(tempfile.mkdtemp(prefix="soak-"))
    server, port = load.start_server(tmp, args.synchronous, None, traced=args.trace)
    echo_proc, echo_port = echo.start(tmp)
    base = f"http://127.0.0.1:{port}"
    busy: list[subprocess.Popen[bytes]] = []
    try:
        await asyncio.sleep(2)
        idle = benchkit.rss_kib(server.pid)
        if args.trace:
            await asyncio.to_thread(snapshot, server, tmp)
        echo_idle = benchkit.rss_kib(echo_proc.pid)
        stats, stop = load.Stats(), asyncio.Event()
        tasks: list[asyncio.Task[None]] = []
        echo_rtts: list[tuple[float, float]] = []
        for i in range(args.rooms * 2):  # the echo's pairs, at people's pace
            url = f"ws://127.0.0.1:{echo_port}/ws/room{i // 2}"
            tasks.append(asyncio.create_task(echo._echoer(url, stop, echo_rtts, True, i)))
            if i % 64 == 63:
                await asyncio.sleep(0.05)
        for start in range(0, args.rooms, 100):
            count = min(100, args.rooms - start)
            await load.add_rooms([base], count, stats, True, args.seed, stop, tasks)
        began = time.time()
        print(
            f"soak: {args.rooms} rooms and {args.rooms} echo pairs from "
            f"{time.strftime('%H:%M:%S', time.gmtime(began))} UTC; idle RSS server "
            f"{idle / 1024:.1f} MiB, echo {echo_idle / 1024:.1f} MiB",
            flush=True,
        )
        rows: list[dict[str, Any]] = []
        last = began
        while (now := time.time()) < began + args.minutes * 60:
            minute = (now - began) / 60
            if args.busy and not busy and args.busy_from <= minute < args.busy_from + args.busy_for:
                busy = [
                    subprocess.Popen([sys.executable, "-c", "while True: pass"])
                    for _ in range(args.busy)
                ]
            if busy and minute >= args.busy_from + args.busy_for:
                for proc in busy:
                    benchkit.end(proc)
                busy = []
            await asyncio.sleep(min(args.every, began + args.minutes * 60 - now))
            now = time.time()
            rss = benchkit.rss_kib(server.pid)
            echo_rss = benchkit.rss_kib(echo_proc.pid)
            parts, stops = await asyncio.to_thread(scrape, base)
            window = [r * 1000 for t, r in stats.rtts if last <= t <= now]
            row = {
                "minute": round((now - began) / 60, 1),
                "rss_mib": round(rss / 1024, 1),
                "kib_per_room": round((rss - idle) / args.rooms, 1),
                "echo_kib_per_pair": round((echo_rss - echo_idle) / args.rooms, 1),
                "parts_kib_per_room": {
                    k: round(v / args.rooms / 1024, 2) for k, v in sorted(parts.items())
                },
                "moves": stats.moves,
                "rematches": stats.rematches,
                "p99_ms": round(benchkit.percentile(window, 0.99), 1) if window else None,
                "errors": dict(stats.errors),
                "stops": stops,
                "load": round(os.getloadavg()[0], 1),
                "busy": len(busy),
            }
            rows.append(row)
            last = now
            print(json.dumps(row), flush=True)
        if args.trace:
            await asyncio.to_thread(snapshot, server, tmp)
        stop.set()
        await asyncio.gather(*tasks, return_exceptions=True)
        if args.trace:
            print_traced(tmp, args.rooms, rows[-1]["kib_per_room"])
        final = rows[-1]["kib_per_room"]
        half = [r for r in rows if r["minute"] >= args.minutes / 2]
        grown = (rows[-1]["rss_mib"] - half[0]["rss_mib"]) / half[0]["rss_mib"] if half else 0
        level = next((r["minute"] for r in rows if r["kib_per_room"] >= 0.98 * final), None)
        echo_pair = rows[-1]["echo_kib_per_pair"]
        print(
            f"end: {final} KiB a room over the idle server against the echo's "
            f"{echo_pair} KiB a pair (+{final - echo_pair:.1f} KiB); RSS grew "
            f"{100 * grown:.1f}% over the last half; 98% of the level at minute {level}; "
            f"errors {dict(stats.errors)}; stops {rows[-1]['stops']}",
            flush=True,
        )
        said: dict[str, int] = {}  # the server's warnings, told once with their count
        for line in (tmp / "server.log").read_text(errors="replace").splitlines():
            words = re.sub(r"^\S+ \S+ ", "", line)  # without the time
            words = re.sub(r"[0-9a-f]{8,}|\b[\w-]{12}\b", "…", words)  # ids
            said[words[:160]] = said.get(words[:160], 0) + 1
        for words, count in sorted(said.items(), key=lambda kv: -kv[1])[:20]:
            print(f"  server log ×{count}: {words}", flush=True)
    finally:
        for proc in busy:
            benchkit.end(proc)
        benchkit.end(server)
        benchkit.end(echo_proc)
        shutil.rmtree(tmp, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rooms", type=int, default=500)
    parser.add_argument("--minutes", type=float, default=30)
    parser.add_argument("--every", type=float, default=60, help="seconds between lines")
    parser.add_argument("--busy", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--busy-from", type=float, default=10, help="minute")
    parser.add_argument("--busy-for", type=float, default=0, help="minutes (0: never busy)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument(
        "--trace",
        action="store_true",
        help="the server under tracemalloc: what grew, by package and by line (slower)",
    )
    parser.add_argument("--synchronous", choices=["FULL", "NORMAL"], default="FULL")
    asyncio.run(soak(parser.parse_args()))


if __name__ == "__main__":
    main()
