"""A bare websocket echo on the game's own stack (Starlette's WebSocketRoute under uvicorn
with the same websocket protocol, event loop and garbage-collector thresholds as
``python -m server``): what a move would cost if the server did nothing but answer it.

    .venv/bin/python benchmarks/echo.py --port 8765      # serves /ws/<anything>

``load.py --echo`` starts it and measures it beside the game, in the same run:

  flat out:       ``sockets`` sockets each send a frame the size of a move message and wait
                  for it to come back, as fast as it comes: server CPU per round trip.
  people's pace:  pairs of sockets (a room's two seats), each sending a frame every 1-3 s:
                  server RSS per pair of sockets.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import random
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import websockets

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import benchkit  # noqa: E402  (the sibling module)

# a move message as the bots send it (docs/protocol.md, "move")
FRAME = json.dumps(
    {"type": "move", "move": {"kind": "capture", "card": "7h", "take": ["7c"]}, "seq": 12,
     "id": "b123"}
)  # fmt: skip


def serve(port: int) -> None:
    import uvicorn
    from starlette.applications import Starlette
    from starlette.routing import WebSocketRoute
    from starlette.websockets import WebSocket, WebSocketDisconnect

    async def echo(ws: WebSocket) -> None:
        await ws.accept()
        try:
            while True:
                await ws.send_text(await ws.receive_text())
        except WebSocketDisconnect:
            pass

    gc.set_threshold(10_000, 20, 20)  # as server/__main__.py
    app = Starlette(routes=[WebSocketRoute("/ws/{room}", echo)])
    uvicorn.run(
        app, host="127.0.0.1", port=port, http="h11", ws="websockets-sansio",
        ws_max_size=4096, log_level="warning", lifespan="off",
    )  # fmt: skip


def start(tmp: Path) -> tuple[subprocess.Popen[bytes], int]:
    port = benchkit.free_port()
    with open(tmp / "echo.log", "ab") as log:
        proc = benchkit.started(
            subprocess.Popen(
                [sys.executable, str(HERE / "echo.py"), "--port", str(port)],
                stdout=log,
                stderr=log,
            )
        )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return proc, port
        except OSError:
            time.sleep(0.1)
    raise SystemExit("the echo server did not start: " + (tmp / "echo.log").read_text())


async def _echoer(
    url: str, stop: asyncio.Event, rtts: list[tuple[float, float]], pace: bool, seed: int
) -> None:
    rng = random.Random(seed)
    async with websockets.connect(url, max_size=None, ping_interval=None, compression=None) as ws:
        while not stop.is_set():
            if pace:
                try:
                    await asyncio.wait_for(stop.wait(), rng.uniform(1.0, 3.0))
                    return
                except TimeoutError:
                    pass
            started = time.perf_counter()
            await ws.send(FRAME)
            await ws.recv()
            rtts.append((time.time(), time.perf_counter() - started))


async def flat(port: int, pid: int, sockets: int, seconds: float) -> dict[str, Any]:
    """Round trips flat out over ``sockets`` sockets: the server's CPU per round trip."""
    stop, rtts = asyncio.Event(), list[tuple[float, float]]()
    url = f"ws://127.0.0.1:{port}/ws/echo"
    tasks = [asyncio.create_task(_echoer(url, stop, rtts, False, i)) for i in range(sockets)]
    await asyncio.sleep(2)
    start, cpu0 = time.time(), benchkit.cpu_seconds(pid)
    await asyncio.sleep(seconds)
    end, cpu = time.time(), benchkit.cpu_seconds(pid) - cpu0
    stop.set()
    await asyncio.gather(*tasks, return_exceptions=True)
    n = sum(1 for t, _ in rtts if start <= t <= end)
    return {
        "sockets": sockets,
        "round_trips_per_s": round(n / seconds, 1),
        "server_cpu_share": round(cpu / seconds, 2),
        "server_cpu_ms_per_round_trip": round(1000 * cpu / max(1, n), 4),
    }


async def pace(port: int, pid: int, pairs: int, hold: float) -> dict[str, Any]:
    """``pairs`` pairs of sockets at people's pace: the server's RSS per pair."""
    stop, rtts = asyncio.Event(), list[tuple[float, float]]()
    base = benchkit.rss_kib(pid)
    tasks = []
    for i in range(pairs * 2):
        url = f"ws://127.0.0.1:{port}/ws/room{i // 2}"
        tasks.append(asyncio.create_task(_echoer(url, stop, rtts, True, i)))
        if i % 64 == 63:
            await asyncio.sleep(0.05)
    await asyncio.sleep(hold)
    rss = benchkit.rss_kib(pid)
    stop.set()
    await asyncio.gather(*tasks, return_exceptions=True)
    return {
        "pairs": pairs,
        "rss_mib": round(rss / 1024, 1),
        "rss_kib_per_pair": round((rss - base) / pairs, 1),
        "errors": sum(1 for t in tasks if t.exception() is not None),
    }


async def run(args: argparse.Namespace, pairs: int) -> dict[str, Any]:
    """The bare echo of the same stack: flat out over ``--rooms`` sockets, and ``pairs``
    pairs of sockets at people's pace."""
    out: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp:
        proc, port = start(Path(tmp))
        try:
            if args.mode in ("flat", "both"):
                out["flat"] = await flat(port, proc.pid, args.rooms, args.seconds)
            if args.mode in ("pace", "both") and pairs:
                out["pace"] = await pace(port, proc.pid, pairs, args.hold)
        finally:
            benchkit.end(proc)
    print("== echo:", json.dumps(out), flush=True)
    return out


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--port", type=int, required=True)
    serve(parser.parse_args().port)
