"""Load test of the game server over real websockets (a script, not a test).

Starts ``python -m server`` (COMPUTER_DELAY=0, a temporary SQLite file) on a free loopback
port and drives friend rooms, each with two bot clients that play legal moves (from the
view's options: a capture, else a trail, else a build) and ask for a rematch at the end.

  flat out:        K rooms play as fast as the server answers, for D seconds:
                   moves/s, round trip (move sent -> ack) p50/p95/p99, errors.
  people's pace:   bots wait 1-3 s (seeded) before each move; rooms are added in steps
                   until the round trip p99 goes over 100 ms or the cap is reached:
                   rooms held, server RSS per room, errors.
  computer:        F friend rooms at people's pace; their round trip is measured alone,
                   then again while C rooms play Difícil flat out (a bot that moves as soon
                   as it may, so the server's computer workers never rest): does a room
                   waiting for Difícil delay the moves of other rooms?
  --watchers N:    flat out and people's pace: N watchers per friend room on websockets
                   too (``watch`` with the room's watch code), counting the frames and
                   bytes they receive: what watching costs the server.
  --seats 4:       flat out and people's pace in friend rooms of four (issue 27): four bot
                   clients a room, each on its own socket, reading every frame and moving
                   only on its own turn; people's pace counts people (sockets of seats)
                   held as well as rooms; ``--step``/``--cap`` count two-seat rooms, so a
                   step of four-seat rooms adds as many people (half as many rooms).
  --seats 2,4:     both side by side in one run: flat out plays rooms of two and rooms of
                   four in turn on the same server (2,4 then 4,2 from round to round),
                   people's pace gives each a fresh server in the same order; then each
                   figure per seat count (median and every round) and the ratio 4/2.

    .venv/bin/python benchmarks/load.py --mode pace --step 200 --cap 1000 --hold 10  # both: none
    .venv/bin/python benchmarks/load.py --mode flat --baseline main --rounds 2 --echo
    .venv/bin/python benchmarks/load.py --mode computer --friends 200 --computers 100
    .venv/bin/python benchmarks/load.py --mode flat --rooms 100 --seconds 10 --watchers 10
    .venv/bin/python benchmarks/load.py --mode flat --seats 2,4 --rooms 100 --seconds 10 --rounds 4
    .venv/bin/python benchmarks/load.py --mode pace --seats 2,4 --step 20 --cap 300 --p99-limit 50
    .venv/bin/python benchmarks/load.py --servers http://127.0.0.1:8001,http://127.0.0.1:8002

``--baseline REV``: the server of REV too (a git worktree in a temporary folder, removed at
the end), interleaved with this one's; ``--echo``: a bare websocket echo of the same stack
(echo.py) too; then each figure's median per server and the ratios.
With ``--servers`` it starts no server and drives those already running: room i is created
on servers[i % n] (its watchers watch there), its seat 0 plays on servers[i % n] and seat 1
on servers[(i + 1) % n], so with n > 1 every move crosses processes. Server CPU and RSS are
summed over ``--server-pids`` (by default: the processes listening on the servers' ports).

The bots run in this one process on the same machine, so they share its cores with the
server: the figures are a floor for the server alone.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import json
import multiprocessing
import os
import random
import re
import resource
import signal
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import websockets

sys.path.insert(0, str(Path(__file__).resolve().parent))
import benchkit  # noqa: E402  (the sibling modules)
import echo  # noqa: E402
from benchkit import (  # noqa: E402, F401  (the sibling module; load.X for cluster.py)
    ROOT,
    children_cpu,
    compare,
    cpu_seconds,
    cpu_total,
    free_port,
    healthy,
    make_room,
    make_table,
    percentile,
    pick_move,
    pids_on_port,
    rss_kib,
    rss_total,
    summary,
    watch_figures,
)


def connect(url: str) -> Any:
    """A bot's websocket (from an address of its own through HAProxy: benchkit.source)."""
    return websockets.connect(
        url, max_size=None, open_timeout=60, ping_interval=None, compression=None,
        **benchkit.source(),
    )  # fmt: skip


ROOM_NUMBER = itertools.count()  # rooms made by this process: spreads them over servers


ROOMS_IN_URL = True  # the server takes /ws/<room> (issue 21); False: an older one, /ws only


def ws_url(server: str, room: str = "") -> str:
    """The websocket address of ``room`` on ``server`` (through HAProxy: the room's owner)."""
    base = server.replace("http", "ws", 1).rstrip("/") + "/ws"
    return f"{base}/{room}" if ROOMS_IN_URL and room else base


def start_server(
    tmp: Path,
    synchronous: str,
    profile: str | None,
    root: Path = ROOT,
    traced: bool = False,
) -> tuple[subprocess.Popen[bytes], int]:
    """A server of ``root`` on SQLite in ``tmp``; ``traced``: under tracemalloc
    (``traced_server.py``: a snapshot in ``tmp`` at each SIGUSR1)."""
    port = free_port()
    env = dict(os.environ)
    env.update(
        {
            "DATABASE_URL": f"sqlite+aiosqlite:///{tmp / 'load.db'}",
            "PORT": str(port),
            "HOST": "127.0.0.1",
            "COMPUTER_DELAY": "0",
            "WS_RATE": "100000",
            "WS_BURST": "100000",
            "WS_QUEUE": "100000",
            "RATE_ROOMS_PER_MIN": "1000000",
            "RATE_JOIN_PER_MIN": "1000000",
            "MAX_CONNECTIONS_PER_ADDRESS": "0",  # every socket comes from 127.0.0.1
            "MAX_WATCHERS": "100000",
            "LOG_LEVEL": "warning",
            "SQLITE_SYNCHRONOUS": synchronous,
        }
    )
    command = [sys.executable, "-m", "server"]
    if profile:
        command = [sys.executable, "-m", "cProfile", "-o", profile, "-m", "server"]
    if traced:
        command = [sys.executable, str(Path(__file__).with_name("traced_server.py"))]
        env["TRACE_DIR"] = str(tmp)
    log = open(tmp / "server.log", "wb")  # noqa: SIM115
    env["PYTHONPATH"] = str(root)  # the server of that checkout (before/after in one run)
    proc = benchkit.started(subprocess.Popen(command, cwd=root, env=env, stdout=log, stderr=log))
    if healthy(proc, port, 120 if traced else 30):  # tracemalloc slows the start
        return proc, port
    proc.kill()
    raise SystemExit("the server did not start: " + (tmp / "server.log").read_text())


@dataclass
class Stats:
    rtts: list[tuple[float, float]] = field(default_factory=list)  # (when, seconds)
    moves: int = 0
    errors: dict[str, int] = field(default_factory=dict)
    rematches: int = 0
    watchers: int = 0  # watcher sockets welcomed
    watch_frames: int = 0  # frames all watchers received
    watch_bytes: int = 0
    # (when, seconds) from a bot's ack until its turn again: the computer's decision, wall
    waits: list[tuple[float, float]] = field(default_factory=list)

    def error(self, code: str) -> None:
        self.errors[code] = self.errors.get(code, 0) + 1


async def bot(
    url: str,
    token: str,
    stats: Stats,
    pace: bool,
    rng: random.Random,
    stop: asyncio.Event,
    ready: asyncio.Event | None = None,
) -> None:
    try:
        async with connect(url) as ws:
            await ws.send(
                json.dumps({"type": "hello", "version": 3, "token": token, "since": None})
            )
            sent: dict[str, float] = {}
            pending = False
            asked = False
            counter = 0
            view: dict[str, Any] | None = None
            their_turn_since: float | None = None  # the other seat's turn began (our ack)

            async def send_move(move: dict[str, Any], seq: int, delay: float) -> None:
                nonlocal counter
                if delay:
                    await asyncio.sleep(delay)
                if stop.is_set():
                    return
                counter += 1
                move_id = f"b{counter}"
                sent[move_id] = time.perf_counter()
                await ws.send(json.dumps({"type": "move", "move": move, "seq": seq, "id": move_id}))

            stopper = asyncio.create_task(stop.wait())
            stopper.add_done_callback(lambda _: asyncio.create_task(ws.close()))
            async for text in ws:
                msg = json.loads(text)
                kind = msg["type"]
                if kind == "welcome" and ready is not None:
                    ready.set()
                if "view" in msg:  # a move's frame: its move part over the whole view
                    view = {**view, **msg["view"]} if kind == "events" and view else msg["view"]
                if kind == "events" and "id" in msg:  # one frame per change: the ack too
                    kind = "ack"
                if kind == "ack":
                    start = sent.pop(msg["id"], None)
                    if start is not None:
                        stats.rtts.append((time.time(), time.perf_counter() - start))
                    stats.moves += 1
                    pending = False
                    their_turn_since = time.perf_counter()
                elif kind == "error":
                    stats.error(msg["code"])
                    sent.pop(msg.get("id", ""), None)
                    pending = False
                if view is None or pending:
                    continue
                if view["status"] == "finished" and not asked:
                    asked = True
                    stats.rematches += 1
                    await ws.send('{"type":"rematch"}')
                elif view["status"] == "playing":
                    asked = False
                    if view["turn"] == view["seat"] and their_turn_since is not None:
                        stats.waits.append((time.time(), time.perf_counter() - their_turn_since))
                        their_turn_since = None
                    if view["turn"] == view["seat"] and view["options"]:
                        move = pick_move(view)
                        if move is None:
                            stats.error("no_move")
                            continue
                        pending = True
                        delay = rng.uniform(1.0, 3.0) if pace else 0.0
                        asyncio.create_task(send_move(move, view["seq"], delay))
    except (OSError, websockets.WebSocketException, TimeoutError) as exc:
        stats.error(type(exc).__name__)
    finally:  # a bot that never got its welcome is counted in errors, not waited for
        if ready is not None:
            ready.set()


async def watcher(
    url: str, code: str, stats: Stats, stop: asyncio.Event, ready: asyncio.Event
) -> None:
    """A watcher: says ``watch`` and counts what it is sent until ``stop``."""
    try:
        async with connect(url) as ws:
            await ws.send(json.dumps({"type": "watch", "version": 3, "code": code, "since": None}))
            stopper = asyncio.create_task(stop.wait())
            stopper.add_done_callback(lambda _: asyncio.create_task(ws.close()))
            async for text in ws:
                stats.watch_frames += 1
                stats.watch_bytes += len(text)
                if not ready.is_set():
                    if '"type":"watching"' in text:
                        stats.watchers += 1
                    else:
                        stats.error("watch:" + str(json.loads(text).get("code")))
                    ready.set()
    except (OSError, websockets.WebSocketException, TimeoutError) as exc:
        stats.error(type(exc).__name__)
        ready.set()


async def make_computer_room(
    http: httpx.AsyncClient, sem: asyncio.Semaphore, level: str
) -> tuple[str, str]:
    async with sem:
        r = await http.post("/api/rooms", json={"mode": "computer", "level": level, "name": "Ana"})
        if r.status_code != 201:
            raise RuntimeError(f"a computer room was refused: {r.status_code} {r.text}")
        return str(r.json()["token"]), str(r.json().get("room", ""))


async def add_computer_rooms(
    servers: list[str],
    count: int,
    level: str,
    stats: Stats,
    seed: int,
    stop: asyncio.Event,
    tasks: list[asyncio.Task[None]],
    pace: bool = False,
) -> None:
    sem = asyncio.Semaphore(32)
    homes = [servers[next(ROOM_NUMBER) % len(servers)] for _ in range(count)]
    async with contextlib.AsyncExitStack() as stack:
        https = {
            s: await stack.enter_async_context(httpx.AsyncClient(base_url=s, timeout=60))
            for s in servers
        }
        tokens = await asyncio.gather(
            *(make_computer_room(https[home], sem, level) for home in homes)
        )
    readies = []
    for i, (token, room) in enumerate(tokens):
        ready = asyncio.Event()
        readies.append(ready)
        rng = random.Random(f"{seed}:computer:{i}")
        url = ws_url(homes[i], room)
        tasks.append(asyncio.create_task(bot(url, token, stats, pace, rng, stop, ready)))
    await asyncio.wait_for(asyncio.gather(*(r.wait() for r in readies)), 120)


async def computer_load(
    servers: list[str],
    pids: list[int],
    friends: int,
    computers: int,
    level: str,
    hold: float,
    seed: int,
    pace: bool = False,
) -> dict[str, Any]:
    """Friend rooms' round trip alone, then beside rooms playing the computer (flat out, or
    at people's pace with ``pace``); the computer's decisions timed from the bot's ack to its
    turn again (wall time, the computer's delay being 0)."""
    stats, computer_stats, stop = Stats(), Stats(), asyncio.Event()
    tasks: list[asyncio.Task[None]] = []

    async def window(label: str) -> dict[str, Any]:
        await asyncio.sleep(hold / 3)  # let the newest bots settle into their pace
        start = time.time()
        cpu0, workers0 = cpu_total(pids), children_cpu(pids)
        moves0 = computer_stats.moves
        await asyncio.sleep(hold * 2 / 3)
        end = time.time()
        seconds = end - start
        friend = [r for t, r in stats.rtts if start <= t <= end]
        decisions = [w for t, w in computer_stats.waits if start <= t <= end]
        row = {
            "phase": label,
            "friend_moves": len(friend),
            "friend_rtt": summary(friend),
            "computer_decisions": len(decisions),
            "computer_decision_wall": summary(decisions) if decisions else None,
            "computer_room_moves_per_s": round((computer_stats.moves - moves0) / seconds, 1),
            "server_cpu_share": round((cpu_total(pids) - cpu0) / seconds, 2),
            "workers_cpu_share": round((children_cpu(pids) - workers0) / seconds, 2),
            "machine_load_1min": os.getloadavg()[0],
            "errors": dict(stats.errors),
            "computer_errors": dict(computer_stats.errors),
        }
        print("  computer step:", json.dumps(row, ensure_ascii=False), flush=True)
        return row

    await add_rooms(servers, friends, stats, True, seed, stop, tasks)
    alone = await window(f"{friends} friend rooms alone")
    await add_computer_rooms(servers, computers, level, computer_stats, seed, stop, tasks, pace)
    beside = await window(f"{friends} friend rooms + {computers} {level} rooms")
    stop.set()
    await asyncio.gather(*tasks, return_exceptions=True)
    return {"alone": alone, "beside": beside}


async def add_rooms(
    servers: list[str],
    count: int,
    stats: Stats,
    pace: bool,
    seed: int,
    stop: asyncio.Event,
    tasks: list[asyncio.Task[None]],
    watchers: int = 0,
    seats: int = 2,
) -> None:
    """``count`` friend rooms of ``seats`` (2 or 4), every chair a bot of its own socket."""
    sem = asyncio.Semaphore(32)
    numbers = [next(ROOM_NUMBER) for _ in range(count)]
    async with contextlib.AsyncExitStack() as stack:
        https = {
            s: await stack.enter_async_context(httpx.AsyncClient(base_url=s, timeout=60))
            for s in servers
        }
        tables = await asyncio.gather(
            *(make_table(https[servers[k % len(servers)]], sem, seats) for k in numbers)
        )
    readies = []
    for k, (_, code, room) in zip(numbers, tables, strict=True):  # the watchers first:
        url = ws_url(servers[k % len(servers)], room)  # they see every move of their room
        for _ in range(watchers):
            ready = asyncio.Event()
            readies.append(ready)
            tasks.append(asyncio.create_task(watcher(url, code, stats, stop, ready)))
            if len(readies) % 64 == 0:
                await asyncio.gather(*(r.wait() for r in readies[-64:]))
    for i, (tokens, _, room) in enumerate(tables):
        for j, token in enumerate(tokens):
            ready = asyncio.Event()
            readies.append(ready)
            rng = random.Random(f"{seed}:{len(tasks)}:{i}:{j}")
            url = ws_url(servers[(numbers[i] + j) % len(servers)], room)  # seat j: the j-th
            tasks.append(asyncio.create_task(bot(url, token, stats, pace, rng, stop, ready)))
            if len(readies) % 64 == 0:
                await asyncio.gather(*(r.wait() for r in readies[-64:]))
    await asyncio.wait_for(asyncio.gather(*(r.wait() for r in readies)), 120)


# servers, rooms, seed, worker number, the shared dict, watchers, ROOMS_IN_URL, SPREAD_SOURCES,
# seats a room
FlatJob = tuple[list[str], int, int, int, Any, int, bool, bool, int]


def flat_worker(job: FlatJob) -> dict[str, Any]:
    """One bot process of the flat-out run."""
    global ROOMS_IN_URL
    servers, rooms, seed, number, shared, watchers, ROOMS_IN_URL, benchkit.SPREAD_SOURCES, seats = (
        job
    )
    return asyncio.run(_flat_worker(servers, rooms, seed, number, shared, watchers, seats))


async def _flat_worker(
    servers: list[str],
    rooms: int,
    seed: int,
    number: int,
    shared: Any,
    watchers: int,
    seats: int = 2,
) -> dict[str, Any]:
    """Makes its rooms, says so in ``shared`` (a manager's dict) and lets them play until the
    window the parent then writes there (``"window"``) is over."""
    stats, stop = Stats(), asyncio.Event()
    tasks: list[asyncio.Task[None]] = []
    await add_rooms(servers, rooms, stats, False, seed, stop, tasks, watchers, seats)
    ready = time.time()
    shared[f"ready {number}"] = ready
    while "window" not in shared:  # the bots play meanwhile
        await asyncio.sleep(0.05)
    window_start, window_end = shared["window"]
    late = ready > window_start
    await asyncio.sleep(max(0.0, window_start - time.time()))
    cpu0 = time.process_time()
    frames0, bytes0 = stats.watch_frames, stats.watch_bytes
    await asyncio.sleep(max(0.0, window_end - time.time()))
    cpu = time.process_time() - cpu0
    frames, sent = stats.watch_frames - frames0, stats.watch_bytes - bytes0
    stop.set()
    await asyncio.gather(*tasks, return_exceptions=True)
    rtts = [r for t, r in stats.rtts if window_start <= t <= window_end]
    return {
        "rtts": rtts,
        "errors": stats.errors,
        "rematches": stats.rematches,
        "late": late,
        "cpu": cpu,
        "watchers": stats.watchers,
        "watch_frames": frames,
        "watch_bytes": sent,
    }


async def flat_out(
    servers: list[str],
    pids: list[int],
    rooms: int,
    seconds: float,
    seed: int,
    procs: int,
    watchers: int = 0,
    seats: int = 2,
) -> dict[str, Any]:
    """``rooms`` rooms of ``seats`` play as fast as the server answers for ``seconds``: one
    move in flight per room whatever its seats, so a four-seat room differs from a two-seat
    one by its sockets (four views and frames a move instead of two)."""
    # The window opens at the time planned (as before), or, where the rooms are not all made
    # and playing by then (a loaded machine), 1 s after the last bot process says they are:
    # the making of rooms and sockets is never counted as the moves' CPU.
    planned = time.time() + 4 + rooms * seats / 100 + rooms * watchers / 200
    shares = [rooms // procs + (1 if i < rooms % procs else 0) for i in range(procs)]
    context = multiprocessing.get_context("spawn")
    loop = asyncio.get_running_loop()
    with context.Manager() as manager, ProcessPoolExecutor(len(shares), mp_context=context) as pool:
        shared = manager.dict()
        jobs = [
            (
                servers,
                share,
                seed * 100 + i,
                i,
                shared,
                watchers,
                ROOMS_IN_URL,
                benchkit.SPREAD_SOURCES,
                seats,
            )
            for i, share in enumerate(shares)
            if share
        ]
        futures = [loop.run_in_executor(pool, flat_worker, job) for job in jobs]
        await asyncio.sleep(max(0.0, planned - time.time()))
        while len(shared.keys()) < len(jobs) and not any(f.done() for f in futures):
            await asyncio.sleep(0.05)
        window_start = planned if time.time() <= planned + 0.1 else time.time() + 1
        window_end = window_start + seconds
        shared["window"] = (window_start, window_end)
        await asyncio.sleep(max(0.0, window_start - time.time()))
        cpu0 = cpu_total(pids)
        await asyncio.sleep(max(0.0, window_end - time.time()))
        cpu = cpu_total(pids) - cpu0
        results = await asyncio.gather(*futures)
    rtts = [r for res in results for r in res["rtts"]]
    errors: dict[str, int] = {}
    for res in results:
        for code, n in res["errors"].items():
            errors[code] = errors.get(code, 0) + n
    watched = watch_figures(
        sum(res["watchers"] for res in results),
        sum(res["watch_frames"] for res in results),
        sum(res["watch_bytes"] for res in results),
        seconds,
    )
    return {
        "rooms": rooms,
        "seats": seats,
        "people": rooms * seats,
        "watchers_per_room": watchers,
        **(watched if watchers else {}),
        "bot_processes": len(jobs),
        "seconds": seconds,
        "moves": len(rtts),
        "moves_per_s": round(len(rtts) / seconds, 1),
        "window": [window_start, window_end],
        "window_later_than_planned_s": round(window_start - planned, 1),
        "rtt": summary(rtts),
        "rtt_p50_ms": round(percentile([r * 1000 for r in rtts], 0.5), 2),
        "rtt_p99_ms": round(percentile([r * 1000 for r in rtts], 0.99), 2),
        "server_cpu_share": round(cpu / seconds, 2),
        "bots_cpu_share": round(sum(res["cpu"] for res in results) / seconds, 2),
        "server_cpu_ms_per_move": round(1000 * cpu / max(1, len(rtts)), 3),
        "machine_load_1min": os.getloadavg()[0],
        "errors": errors,
        "rematches": sum(res["rematches"] for res in results),
        "setup_ran_into_window": any(res["late"] for res in results),
    }


async def peoples_pace(
    servers: list[str],
    pids: list[int],
    step: int,
    cap: int,
    hold: float,
    seed: int,
    p99_limit: float,
    watchers: int = 0,
    seats: int = 2,
) -> dict[str, Any]:
    """Rooms of ``seats`` added ``step`` at a time (up to ``cap``) at people's pace until the
    round trip p99 is over ``p99_limit``: the rooms, and the people (sockets of seats), held."""
    stats, stop = Stats(), asyncio.Event()
    tasks: list[asyncio.Task[None]] = []
    lags: list[tuple[float, float]] = []  # (time, how late this process's loop woke up)

    async def watch_loop() -> None:
        while not stop.is_set():
            before = time.perf_counter()
            await asyncio.sleep(0.01)
            lags.append((time.time(), time.perf_counter() - before - 0.01))

    watcher = asyncio.create_task(watch_loop())
    base_rss = rss_total(pids)
    rooms = 0
    steps = []
    held = 0
    while rooms < cap:
        add = min(step, cap - rooms)
        await add_rooms(servers, add, stats, True, seed, stop, tasks, watchers, seats)
        rooms += add
        await asyncio.sleep(hold / 3)  # let the new bots settle into their pace
        start = time.time()
        cpu0, bots0 = cpu_total(pids), time.process_time()
        waits0 = await asyncio.to_thread(server_waits, servers)
        frames0, bytes0 = stats.watch_frames, stats.watch_bytes
        trace = []  # RSS (MiB) every 30 s of a long step: does a room keep growing?
        while (left := start + hold * 2 / 3 - time.time()) > 0:
            await asyncio.sleep(min(30.0, left))
            trace.append(round(rss_total(pids) / 1024, 1))
        end = time.time()
        server_cpu = (cpu_total(pids) - cpu0) / (end - start)
        server_waited = waits_between(waits0, await asyncio.to_thread(server_waits, servers))
        bots_cpu = (time.process_time() - bots0) / (end - start)
        window = [r for t, r in stats.rtts if start <= t <= end]
        p99 = percentile([r * 1000 for r in window], 0.99)
        rss = rss_total(pids)
        row = {
            "rooms": rooms,
            "seats": seats,
            "people": seats * rooms,
            "sockets": (seats + watchers) * rooms,
            **(
                watch_figures(
                    stats.watchers,
                    stats.watch_frames - frames0,
                    stats.watch_bytes - bytes0,
                    end - start,
                )
                if watchers
                else {}
            ),
            "moves_per_s": round(len(window) / (end - start), 1),
            "rtt": summary(window),
            "p99_ms": round(p99, 1),
            "window": [start, end],
            "rss_mib": round(rss / 1024, 1),
            "rss_kib_per_room": round((rss - base_rss) / rooms, 1),
            **({"rss_mib_every_30s": trace} if len(trace) > 2 else {}),
            "rematches": stats.rematches,
            "server_cpu_share": round(server_cpu, 2),
            "server_cpu_ms_per_s": round(1000 * server_cpu, 1),
            "server_cpu_ms_per_move": round(
                1000 * server_cpu * (end - start) / max(1, len(window)), 3
            ),
            "bots_cpu_share": round(bots_cpu, 2),
            **({"waits": server_waited} if server_waited else {}),
            "machine_load_1min": os.getloadavg()[0],
            "bots_loop_lag": summary([lag for t, lag in lags if start <= t <= end]),
            "errors": dict(stats.errors),
        }
        steps.append(row)
        print("  pace step:", json.dumps(row, ensure_ascii=False), flush=True)
        if p99 > p99_limit:
            break
        held = rooms
    stop.set()
    await asyncio.gather(*tasks, watcher, return_exceptions=True)
    return {  # the rooms held first: benchkit.figures reads the limit from that key
        f"rooms_held_p99_under_{p99_limit:g}ms": held,
        f"people_held_p99_under_{p99_limit:g}ms": held * seats,
        "seats": seats,
        "steps": steps,
    }


GC_PAUSE = re.compile(
    r'^casino_gc_pause_seconds_(bucket|count|sum)\{generation="(\d)"(?:,le="([^"]+)")?\} (\S+)$',
    re.M,
)
WRITE_BATCH = re.compile(
    r'^casino_write_batch_seconds_(bucket|count|sum)(?:\{le="([^"]+)"\})? (\S+)$', re.M
)


def server_waits(servers: list[str]) -> dict[str, float]:
    """What the servers' moves waited for so far, summed: the garbage collector's pauses
    (``server/web/pauses.py``) per generation, and the writer's committed batches (a move is
    told once its batch is): the count, the seconds, and those over 25 and 50 ms (none from a
    server that does not count them)."""
    out: dict[str, float] = {}
    for base in servers:
        try:
            text = httpx.get(f"{base}/metrics", timeout=30).text
        except httpx.HTTPError:
            continue
        found = [(kind, f"gen{gen}", le, value) for kind, gen, le, value in GC_PAUSE.findall(text)]
        # the writer's committed batches, the same buckets: what a move waits for its storage
        found += [(kind, "writes", le, value) for kind, le, value in WRITE_BATCH.findall(text)]
        for kind, what, le, value in found:
            if kind == "bucket" and le not in ("0.025", "0.05"):
                continue
            key = f"{what}_" + {"count": "count", "sum": "seconds"}.get(kind, f"le{le}")
            out[key] = out.get(key, 0.0) + float(value)
    return out


def waits_between(before: dict[str, float], after: dict[str, float]) -> dict[str, Any]:
    """The pauses of a window per generation, and its write batches: how many, their mean
    ms, how many over 25 and over 50 ms."""
    out: dict[str, Any] = {}

    def grew(key: str) -> float:
        return after.get(key, 0.0) - before.get(key, 0.0)

    for what in ("gen0", "gen1", "gen2", "writes"):
        if f"{what}_count" not in after:
            continue
        count = grew(f"{what}_count")
        out[what] = {
            "count": int(count),
            "mean_ms": round(1000 * grew(f"{what}_seconds") / count, 2) if count else None,
            "over_25ms": int(count - grew(f"{what}_le0.025")),
            "over_50ms": int(count - grew(f"{what}_le0.05")),
        }
    return out


def pace_rooms(args: argparse.Namespace, seats: int) -> tuple[int, int]:
    """People's pace: rooms of ``seats`` per step and at most. ``--step`` and ``--cap`` count
    two-seat rooms; rooms of four add as many people a step (half as many rooms)."""
    return max(1, args.step * 2 // seats), max(1, args.cap * 2 // seats)


async def run_modes(
    args: argparse.Namespace,
    servers: list[str],
    pids: list[int],
    seats: list[int] | None = None,
    modes: tuple[str, ...] = ("flat", "computer", "pace"),
) -> dict[str, Any]:
    """The modes asked for on these servers. With several seat counts (``--seats 2,4``),
    flat out runs each in turn on the same server (``flat_by_seats``); people's pace takes
    the first only (``main_async`` gives each seat count a server of its own)."""
    seats = seats or [2]
    out: dict[str, Any] = {}
    if args.mode in ("flat", "both") and "flat" in modes:
        for n in seats:
            flat = await flat_out(
                servers, pids, args.rooms, args.seconds, args.seed, args.procs, args.watchers, n
            )
            print(f"flat out ({n} seats):", json.dumps(flat, ensure_ascii=False), flush=True)
            if len(seats) > 1:
                out.setdefault("flat_by_seats", {})[n] = flat
            else:
                out["flat"] = flat
    if args.mode == "computer" and "computer" in modes:
        out["computer"] = await computer_load(
            servers, pids, args.friends, args.computers, args.level, args.hold, args.seed,
            args.computer_pace,
        )  # fmt: skip
        print("computer:", json.dumps(out["computer"], ensure_ascii=False), flush=True)
    if args.mode in ("pace", "both") and "pace" in modes:
        step, cap = pace_rooms(args, seats[0])
        out["pace"] = await peoples_pace(
            servers, pids, step, cap, args.hold, args.seed, args.p99_limit, args.watchers, seats[0]
        )
        print("people's pace:", json.dumps(out["pace"], ensure_ascii=False), flush=True)
    return out


async def run_server(
    args: argparse.Namespace,
    root: Path,
    label: str,
    seats: list[int] | None = None,
    modes: tuple[str, ...] = ("flat", "computer", "pace"),
) -> dict[str, Any]:
    """The modes against a fresh server of the checkout at ``root``."""
    global ROOMS_IN_URL
    ROOMS_IN_URL = benchkit.names_rooms_in_url(root)
    with tempfile.TemporaryDirectory() as tmp:
        proc, port = start_server(Path(tmp), args.synchronous, args.profile, root)
        try:
            print(
                f"== {label}: server pid {proc.pid} on port {port}, synchronous="
                f"{args.synchronous}, {os.cpu_count()} cpus, load {os.getloadavg()[0]:.2f}"
                + (f", seats {','.join(map(str, seats))}" if seats and seats != [2] else ""),
                flush=True,
            )
            return await run_modes(args, [f"http://127.0.0.1:{port}"], [proc.pid], seats, modes)
        finally:
            benchkit.end(proc, signal.SIGINT if args.profile else signal.SIGTERM)
            log = (Path(tmp) / "server.log").read_text(errors="replace")
            if "Traceback" in log:
                print("server log (errors):\n" + log[-4000:], flush=True)


async def run_round(
    args: argparse.Namespace, root: Path, label: str, seats: list[int], n: int
) -> dict[str, Any]:
    """Round ``n`` of one checkout's server. One seat count: the modes on one fresh server,
    as ever. Several (``--seats 2,4``): flat out for each seat count in turn on one server,
    the order reversed every other round (2,4 then 4,2: neither always goes first); people's
    pace on a fresh server for each seat count, in the same alternating order."""
    if len(seats) == 1:
        return await run_server(args, root, label, seats)
    order = seats if n % 2 == 0 else seats[::-1]
    run: dict[str, Any] = {}
    if args.mode in ("flat", "both", "computer"):
        run = await run_server(args, root, label, order, ("flat", "computer"))
    if args.mode in ("pace", "both"):
        for seat_count in order:
            one = await run_server(
                args, root, f"{label}, {seat_count} seats", [seat_count], ("pace",)
            )
            run.setdefault("pace_by_seats", {})[seat_count] = one["pace"]
    return run


def compare_seats(results: dict[str, list[dict[str, Any]]], seats: list[int]) -> None:
    """Per checkout, each seat count's figures (medians over the rounds, and each round's)
    and their ratios to the first seat count's: the issue-27 goals read from these."""
    first = seats[0]
    for label, runs in results.items():
        print(f"\nseats side by side, {label} (medians over {len(runs)} rounds; each round's):")
        flats = [r["flat_by_seats"] for r in runs if "flat_by_seats" in r]
        for name, key in (
            ("flat server CPU ms/move", "server_cpu_ms_per_move"),
            ("flat moves/s", "moves_per_s"),
            ("flat round trip p50 ms", "rtt_p50_ms"),
            ("flat round trip p99 ms", "rtt_p99_ms"),
        ):
            if not flats:
                break
            cells = []
            for n in seats:
                values = [f[n][key] for f in flats]
                cells.append(
                    f"{n} seats {benchkit.median(values):g} ({', '.join(map(str, values))})"
                )
            ratios = [
                f"{n}/{first} {benchkit.median([f[n][key] / f[first][key] for f in flats]):.2f}"
                for n in seats[1:]
                if all(f[first][key] for f in flats)
            ]
            said = ", ".join(ratios)
            print(f"  {name}: " + "; ".join(cells) + f" (ratio, median of the rounds': {said})")
        paces = [r["pace_by_seats"] for r in runs if "pace_by_seats" in r]
        if paces:
            key = next(k for k in paces[0][first] if k.startswith("people_held"))
            cells = []
            for n in seats:
                values = [p[n][key] for p in paces]
                rooms = [p[n][key.replace("people", "rooms", 1)] for p in paces]
                cells.append(
                    f"{n} seats {benchkit.median(values):g} people "
                    f"(rounds: {', '.join(map(str, values))}; rooms {', '.join(map(str, rooms))})"
                )
            ratios = [
                f"{n}/{first} {benchkit.median([p[n][key] for p in paces]) / held:.2f}"
                for n in seats[1:]
                if (held := benchkit.median([p[first][key] for p in paces]))
            ]
            said = ", ".join(ratios) or "none held"
            name = key.replace("_", " ")
            print(f"  pace {name}: " + "; ".join(cells) + f" (ratio of the medians: {said})")
            print(
                "  pace, step by step at the same people (median over the rounds that reached it):"
            )
            for people in sorted({st["people"] for p in paces for st in p[first]["steps"]}):
                at = {
                    n: [st for p in paces for st in p[n]["steps"] if st["people"] == people]
                    for n in seats
                }
                if not all(at.values()):
                    continue
                cells = []
                per_person = {}
                for n in seats:
                    rows = at[n]
                    cpu = benchkit.median(
                        [r.get("server_cpu_ms_per_s", 1000 * r["server_cpu_share"]) for r in rows]
                    )
                    per_person[n] = cpu / people
                    cells.append(
                        f"{n} seats p99 {benchkit.median([r['p99_ms'] for r in rows]):g} ms "
                        f"({', '.join(str(r['p99_ms']) for r in rows)}), "
                        f"{benchkit.median([r['moves_per_s'] for r in rows]):g} moves/s, "
                        f"server {cpu:g} ms CPU/s"
                    )
                ratios = [
                    f"{n}/{first} {per_person[n] / per_person[first]:.2f}"
                    for n in seats[1:]
                    if per_person[first]
                ]
                print(
                    f"    {people} people: " + "; ".join(cells)
                    + f" (server CPU per person: {', '.join(ratios) or '-'})"
                )  # fmt: skip


async def main_async(args: argparse.Namespace) -> None:
    global ROOMS_IN_URL
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    seats = [int(n) for n in args.seats.split(",")]
    if any(n not in (2, 4) for n in seats) or len(set(seats)) != len(seats):
        raise SystemExit("--seats: 2, 4 or both (2,4 or 4,2)")
    if args.servers:
        servers = [s.strip().rstrip("/") for s in args.servers.split(",") if s.strip()]
        pids = (
            [int(p) for p in args.server_pids.split(",")]
            if args.server_pids
            else [pid for s in servers for pid in pids_on_port(httpx.URL(s).port or 80)]
        )
        ROOMS_IN_URL = not args.plain_ws
        print(f"servers {servers}, pids {pids}, {os.cpu_count()} cpus", flush=True)
        await run_modes(args, servers, pids, seats)
        return
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)
    with contextlib.ExitStack() as stack:
        targets = [("this", Path(args.server_root).resolve())]
        if args.baseline:
            tree = stack.enter_context(benchkit.baseline_tree(args.baseline))
            targets.append((f"baseline {benchkit.short_rev(args.baseline)}", tree))
        results: dict[str, list[dict[str, Any]]] = {label: [] for label, _ in targets}
        echoes = []
        for n in range(args.rounds):
            for label, root in targets if n % 2 == 0 else targets[::-1]:  # ABBA...
                results[label].append(await run_round(args, root, label, seats, n))
            if args.echo:
                pace = results[targets[0][0]][-1].get("pace")
                pairs = pace["steps"][-1]["rooms"] if pace else 0
                echoes.append(await echo.run(args, pairs))
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)
    if len(seats) > 1:
        compare_seats(results, seats)
    elif len(targets) > 1 or echoes:
        compare(results, echoes)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--mode", choices=["flat", "pace", "both", "computer"], default="both")
    parser.add_argument("--friends", type=int, default=200, help="computer: friend rooms")
    parser.add_argument(
        "--computers", type=int, default=100, help="computer: rooms against the computer"
    )
    parser.add_argument("--level", default="dificil", help="computer: their level")
    parser.add_argument(
        "--computer-pace", action="store_true", help="computer: their bots at people's pace"
    )
    parser.add_argument(
        "--seats",
        default="2",
        help="flat out and pace: seats a room, 2 or 4; 2,4: both side by side in one run",
    )
    parser.add_argument("--rooms", type=int, default=200, help="flat out: rooms")
    parser.add_argument("--seconds", type=float, default=20, help="flat out: seconds")
    parser.add_argument("--procs", type=int, default=2, help="flat out: bot processes")
    parser.add_argument(
        "--step",
        type=int,
        default=250,
        help="pace: rooms added per step (of two seats: rooms of four add as many people)",
    )
    parser.add_argument(
        "--cap", type=int, default=2000, help="pace: most rooms (of two seats, as --step)"
    )
    parser.add_argument("--hold", type=float, default=15, help="pace: seconds per step")
    parser.add_argument(
        "--p99-limit",
        type=float,
        default=100,
        help="pace: stop adding rooms once the round trip p99 is over this (ms)",
    )
    parser.add_argument(
        "--watchers",
        type=int,
        default=0,
        help="flat out and pace: watchers per friend room (counting what they get)",
    )
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument(
        "--servers",
        default="",
        help="drive these running servers (http://host:port,...), start none",
    )
    parser.add_argument(
        "--server-pids",
        default="",
        help="with --servers: pids to sum CPU/RSS over (default: by port)",
    )
    parser.add_argument("--synchronous", default="FULL", choices=["FULL", "NORMAL"])
    parser.add_argument("--profile", default=None, help="write the server's cProfile here")
    parser.add_argument(
        "--baseline",
        default="",
        help="also run the server of this git revision (a temporary worktree), interleaved",
    )
    parser.add_argument("--rounds", type=int, default=1, help="runs of each server, interleaved")
    parser.add_argument(
        "--echo", action="store_true", help="also measure a bare websocket echo (echo.py)"
    )
    parser.add_argument(
        "--plain-ws", action="store_true", help="with --servers: /ws, not /ws/<room>"
    )
    parser.add_argument(
        "--server-root",
        default=str(ROOT),
        help="run the server of this checkout (to compare two versions)",
    )
    signal.signal(signal.SIGTERM, lambda *_: sys.exit("stopped (SIGTERM)"))
    try:
        asyncio.run(main_async(parser.parse_args()))
    finally:  # interrupted too: no server left running
        benchkit.end_all()


if __name__ == "__main__":
    main()
