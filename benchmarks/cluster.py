"""One process or two: SQLite, PostgreSQL, PostgreSQL + Redis (a script, not a test).

Runs, one after the other, each on a fresh database of its own and freshly started
``python -m server`` processes (COMPUTER_DELAY=0, rate limits out of the way):

  sqlite-1p    SQLite (a temporary file), one process
  postgres-1p  PostgreSQL (a new database ``casino_bench_<random>``), one process
  postgres-2p  PostgreSQL + Redis, two processes (NODE_NAME b0, b1) behind a real HAProxy
               (/usr/sbin/haproxy) running the repository's deploy/haproxy.cfg, its ports
               made local (benchkit.render_haproxy): HTTP round robin, a room's sockets
               (/ws/<room>) hashed to one process. The bots go through HAProxy only, each
               socket from a loopback address of its own (HAProxy caps 64 per client)

and for each: flat-out moves per second (``load.flat_out``), then rooms held at people's
pace (``load.peoples_pace``: rooms added in steps until the round trip p99 passes 100 ms;
the rooms held under 50 ms come from the same steps) and the server's memory per room (RSS
summed over the processes at the largest step held under 100 ms, divided by its rooms).
For two processes, the share of the frames handed to sockets that crossed Redis first
(each process's /metrics, casino_frames_crossed / casino_frames_delivered, scraped twice a
second), and on a fresh database again: the failover time after a SIGKILL. Rooms play
(a move 0.2-0.5 s after the turn comes) with bots that behave like the browser (on a closed
socket or ``reconnecting``: hello to the next server with ``since``, the unacknowledged
move sent again with the same id); the process owning most of them (``select owner from
rooms``) is killed with SIGKILL and started again, and for each room it owned the time from
the kill to the room's next acknowledged move is measured. LEASE_SECONDS is 5 (the default)
unless ``--lease`` says otherwise; the table sets its p99 beside LEASE_SECONDS + 1 s.

``--baseline REV`` runs each configuration against the servers of REV too (a git worktree
in a temporary folder, removed at the end), interleaved (``--rounds``), and prints ratios;
``--parts`` picks flat, pace, failover. Everything the run starts (servers, HAProxy, the
worktree, the databases) is ended or removed on the way out, interrupted or not.

    .venv/bin/python benchmarks/cluster.py                      # about 15-20 minutes
    .venv/bin/python benchmarks/cluster.py --only postgres-2p --kills 5 --step 500
    .venv/bin/python benchmarks/cluster.py --only postgres-1p,postgres-2p --baseline main

PostgreSQL is expected on 127.0.0.1:5432 (trust, user postgres) and Redis on
127.0.0.1:6379 (``--postgres``, ``--redis``). Redis keys get a prefix of this run's own.
The bots run in this process (flat out: ``--procs`` processes) on the same machine, so they
share its cores with the servers: the figures are a floor for the servers alone.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import resource
import secrets
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import asyncpg
import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
import benchkit  # noqa: E402  (the sibling modules)
import failover  # noqa: E402
import load  # noqa: E402

ROOT = benchkit.ROOT
CONFIGS = ("sqlite-1p", "postgres-1p", "postgres-2p")
DATABASES: list[str] = []  # every database it made, to drop them


# -- the servers -----------------------------------------------------------------------------


@dataclass
class Proc:
    name: str  # NODE_NAME
    port: int
    env: dict[str, str]
    log: Path
    root: Path = ROOT  # the checkout whose server it runs
    popen: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def pid(self) -> int:
        assert self.popen is not None
        return self.popen.pid

    def start(self) -> Proc:
        with open(self.log, "ab") as log:
            self.popen = benchkit.started(
                subprocess.Popen(
                    [sys.executable, "-m", "server"],
                    cwd=self.root,
                    env=self.env,
                    stdout=log,
                    stderr=log,
                )
            )
        if benchkit.healthy(self.popen, self.port, 60):
            return self
        raise SystemExit(f"{self.name} did not start: {self.log.read_text()[-3000:]}")

    def kill9(self) -> None:
        assert self.popen is not None
        self.popen.kill()
        self.popen.wait()

    def stop(self) -> None:
        if self.popen is None or self.popen.poll() is not None:
            return
        self.popen.send_signal(signal.SIGTERM)
        try:
            self.popen.wait(30)
        except subprocess.TimeoutExpired:
            self.popen.kill()
            self.popen.wait()


@dataclass
class Setup:
    """The processes of one configuration, on a database of their own."""

    config: str
    tmp: Path
    args: argparse.Namespace
    root: Path = ROOT
    database_url: str = ""
    pg_name: str | None = None
    procs: list[Proc] = field(default_factory=list)
    commands: list[str] = field(default_factory=list)
    front: benchkit.Haproxy | None = None  # two processes: HAProxy, deploy/haproxy.cfg

    @property
    def servers(self) -> list[str]:
        """Where the bots go: HAProxy when it is there, else the processes themselves."""
        return [self.front.url] if self.front else [p.url for p in self.procs]

    @property
    def processes(self) -> list[str]:
        return [p.url for p in self.procs]

    @property
    def pids(self) -> list[int]:
        return [p.pid for p in self.procs]

    async def start(self) -> Setup:
        n = 2 if self.config.endswith("2p") else 1
        if self.config.startswith("sqlite"):
            self.database_url = f"sqlite+aiosqlite:///{self.tmp / f'{self.config}.db'}"
        else:
            self.pg_name = f"casino_bench_{secrets.token_hex(4)}"
            await pg_admin(self.args.postgres, f'create database "{self.pg_name}"')
            DATABASES.append(self.pg_name)
            self.database_url = self.args.postgres.rsplit("/", 1)[0] + "/" + self.pg_name
        shown = {"DATABASE_URL": self.database_url, "LEASE_SECONDS": f"{self.args.lease:g}"}
        if n > 1:
            shown["REDIS_URL"] = self.args.redis
            shown["REDIS_PREFIX"] = f"bench{secrets.token_hex(3)}"
        for i in range(n):
            port = benchkit.free_port()
            own = {**shown, "NODE_NAME": f"b{i}", "PORT": str(port)}
            env = {**os.environ, **BENCH_ENV, **own, "PYTHONPATH": str(self.root)}
            self.commands.append(
                " ".join(f"{k}={v}" for k, v in {**own, **BENCH_ENV}.items())
                + " .venv/bin/python -m server"
            )
            log = self.tmp / f"{self.config}-{secrets.token_hex(2)}-b{i}.log"
            self.procs.append(Proc(f"b{i}", port, env, log, self.root))
        for proc in self.procs:  # one after the other: each runs the migrations first
            await asyncio.to_thread(proc.start)
        if n > 1:
            self.front = await asyncio.to_thread(
                benchkit.Haproxy, self.tmp, [p.port for p in self.procs]
            )
            self.commands.append(f"haproxy -db -f {self.front.cfg.name} (deploy/haproxy.cfg)")
        return self

    async def stop(self) -> None:
        if self.front is not None:
            self.front.stop()
        for proc in self.procs:
            await asyncio.to_thread(proc.stop)
        for proc in self.procs:
            text = proc.log.read_text(errors="replace")
            if "Traceback" in text:
                print(f"{self.config} {proc.name} log (errors):\n{text[-3000:]}", flush=True)
        if self.pg_name:
            await pg_admin(
                self.args.postgres, f'drop database if exists "{self.pg_name}" with (force)'
            )

    async def rows(self, query: str, *params: Any) -> list[asyncpg.Record]:
        con = await asyncpg.connect(self.database_url, timeout=10)
        try:
            return list(await con.fetch(query, *params))
        finally:
            await con.close()


BENCH_ENV = {
    "HOST": "127.0.0.1",
    "COMPUTER_DELAY": "0",
    "LOG_LEVEL": "warning",
    "WS_RATE": "100000",
    "WS_BURST": "100000",
    "WS_QUEUE": "100000",
    "RATE_ROOMS_PER_MIN": "1000000",
    "RATE_JOIN_PER_MIN": "1000000",
    "MAX_CONNECTIONS_PER_ADDRESS": "0",  # every socket comes from 127.0.0.1
    "ROOM_IDLE": "20",  # the flat-out rooms leave memory before the pace steps grow
}


async def pg_admin(dsn: str, statement: str) -> None:
    con = await asyncpg.connect(dsn, timeout=10)
    try:
        await con.execute(statement)
    finally:
        await con.close()


# -- where the CPU goes ----------------------------------------------------------------------


def proc_table() -> dict[int, tuple[int, float]]:
    """pid -> (parent pid, CPU seconds) of every process."""
    out = {}
    tick = os.sysconf("SC_CLK_TCK")
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError, IndexError):
                f = (entry / "stat").read_text().rsplit(")", 1)[1].split()
                out[int(entry.name)] = (int(f[1]), (int(f[11]) + int(f[12])) / tick)
    return out


@dataclass
class Sampler:
    """CPU seconds of each server process, the bots (this process and its children but the
    servers), Redis and PostgreSQL (the postmaster and all its backends: other users' too),
    the rest of the machine (busy time in /proc/stat minus those) and Redis's command
    count, twice a second."""

    setup: Setup
    redis_url: str
    samples: list[tuple[float, dict[str, float]]] = field(default_factory=list)

    async def run(self, stop: asyncio.Event) -> None:
        import redis.asyncio as aioredis

        redis_pids = set(benchkit.pids_on_port(int(self.redis_url.rsplit(":", 1)[1].split("/")[0])))
        pg_pids = set(benchkit.pids_on_port(5432))
        client = aioredis.from_url(self.redis_url)
        http = httpx.AsyncClient(timeout=5)
        try:
            while not stop.is_set():
                table = await asyncio.to_thread(proc_table)  # not in the bots' loop
                servers = {p.pid: p.name for p in self.setup.procs}
                sample = {name: table.get(pid, (0, 0.0))[1] for pid, name in servers.items()}
                me = os.getpid()
                sample["bots"] = sum(
                    cpu
                    for pid, (ppid, cpu) in table.items()
                    if (pid == me or ppid == me) and pid not in servers
                )
                sample["redis"] = sum(table.get(pid, (0, 0.0))[1] for pid in redis_pids)
                sample["postgres"] = sum(
                    cpu for pid, (ppid, cpu) in table.items() if pid in pg_pids or ppid in pg_pids
                )
                cpu = [int(x) for x in Path("/proc/stat").read_text().split("\n")[0].split()[1:]]
                busy = (sum(cpu[:8]) - cpu[3] - cpu[4]) / os.sysconf("SC_CLK_TCK")
                sample["others"] = busy - sum(sample.values())  # the rest of the machine
                with contextlib.suppress(Exception):
                    info = await client.info("stats")
                    sample["redis_commands"] = float(info["total_commands_processed"])
                for proc in self.setup.procs:  # each process's own /metrics
                    with contextlib.suppress(httpx.HTTPError, ValueError):
                        text = (await http.get(f"{proc.url}/metrics")).text
                        for name, value in benchkit.METRIC.findall(text):
                            if name in ("casino_frames_crossed", "casino_frames_delivered"):
                                sample[f"{name.split('_')[-1]}_{proc.name}"] = float(value)
                self.samples.append((time.time(), sample))
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(stop.wait(), 0.5)
        finally:
            await client.aclose()
            await http.aclose()

    def shares(self, start: float, end: float) -> dict[str, float]:
        """Per second between ``start`` and ``end``: CPU share of one core per part,
        Redis commands."""
        inside = [(t, s) for t, s in self.samples if start - 0.5 <= t <= end + 0.5]
        if len(inside) < 2:
            return {}
        (t0, a), (t1, b) = inside[0], inside[-1]
        out = {k: round((b[k] - a.get(k, 0.0)) / (t1 - t0), 2) for k in b if k in a}
        delivered = sum(b[k] - a[k] for k in b if k.startswith("delivered_") and k in a)
        crossed = sum(b[k] - a[k] for k in b if k.startswith("crossed_") and k in a)
        if delivered:  # of the frames handed to sockets, those that crossed Redis first
            out["frames_crossed_share"] = round(crossed / delivered, 5)
        return out


# -- one configuration, the table ------------------------------------------------------------


def held_under(steps: list[dict[str, Any]], limit: float) -> dict[str, Any] | None:
    """The largest step before the first whose p99 went over ``limit``."""
    held = None
    for step in steps:
        if not step["p99_ms"] <= limit:
            break
        held = step
    return held


async def run_config(
    config: str, tmp: Path, args: argparse.Namespace, root: Path, label: str
) -> dict[str, Any]:
    result: dict[str, Any] = {"config": config if label == "this" else f"{config} @{label}"}
    load.ROOMS_IN_URL = benchkit.names_rooms_in_url(root)
    parts = args.parts.split(",")
    if "flat" in parts or "pace" in parts:
        setup = await Setup(config, tmp, args, root).start()
        benchkit.SPREAD_SOURCES = setup.front is not None
        result["commands"] = setup.commands
        print(
            f"== {result['config']}: pids {setup.pids}, servers {setup.servers}, "
            f"load {os.getloadavg()[0]:.2f}",
            flush=True,
        )
        stop = asyncio.Event()
        sampler = Sampler(setup, args.redis)
        sampling = asyncio.create_task(sampler.run(stop))
        try:
            result["idle_rss_mib"] = round(benchkit.rss_total(setup.pids) / 1024, 1)
            if "flat" in parts:
                flat = await load.flat_out(
                    setup.servers, setup.pids, args.rooms, args.seconds, args.seed, args.procs
                )
                print("  flat out:", json.dumps(flat, ensure_ascii=False), flush=True)
                flat["cpu"] = sampler.shares(*flat["window"])
                print("  flat-out CPU shares:", json.dumps(flat["cpu"]), flush=True)
                result["flat"] = flat
            if "pace" in parts:
                pace = await load.peoples_pace(
                    setup.servers, setup.pids, args.step, args.cap, args.hold, args.seed, 100.0
                )
                steps = pace["steps"]
                for step in steps:
                    step["cpu"] = sampler.shares(*step["window"])
                    print(f"  {step['rooms']} rooms:", json.dumps(step["cpu"]), flush=True)
                result["steps"] = steps
                for limit in (100, 50):
                    step = held_under(steps, limit)
                    result[f"held_{limit}"] = step["rooms"] if step else 0
                    result[f"step_{limit}"] = step
        finally:
            stop.set()
            await sampling
            await setup.stop()
    if config.endswith("2p") and args.kills and "failover" in parts:
        setup = await Setup(config, tmp, args, root).start()
        benchkit.SPREAD_SOURCES = setup.front is not None
        result.setdefault("commands", setup.commands)
        try:
            print(
                f"== {result['config']} failover: {args.failover_rooms} rooms, {args.kills} "
                f"kills, LEASE_SECONDS={args.lease}, through {setup.servers}",
                flush=True,
            )
            result["failover"] = await failover.failover_run(
                setup, args.failover_rooms, args.kills, args.seed
            )
            print(
                "  failover:",
                json.dumps({k: v for k, v in result["failover"].items() if k != "per_kill"}),
                flush=True,
            )
        finally:
            await setup.stop()
    return result


def servers_ms_per_move(part: dict[str, Any] | None) -> float | None:
    """Server CPU per move summed over the processes (from /proc, in the window)."""
    cpu = (part or {}).get("cpu") or {}
    moves = (part or {}).get("moves_per_s") or 0
    total = sum(v for k, v in cpu.items() if k[:1] == "b" and k[1:].isdigit())
    return 1000 * total / moves if moves and total else None


def cpu_ratios(results: list[dict[str, Any]]) -> list[str]:
    """Two processes' summed CPU per move over one PostgreSQL process's (goal ≤ 1.1×), and
    each baseline's figures beside this checkout's."""
    out = []
    one = {r["config"]: r for r in results}
    for part, name in (("step_100", "at people's pace"), ("flat", "flat out")):
        two = servers_ms_per_move(one.get("postgres-2p", {}).get(part))
        single = servers_ms_per_move(one.get("postgres-1p", {}).get(part))
        if two and single:
            out.append(
                f"summed server CPU per move {name}: 2p {two:.3f} ms / 1p {single:.3f} ms = "
                f"{two / single:.2f}× (goal ≤ 1.1×)"
            )
    for r in results:
        if " @" not in r["config"]:
            continue
        this = one.get(r["config"].split(" @")[0], {})
        pairs = [
            ("rooms held < 100 ms", this.get("held_100"), r.get("held_100")),
            ("pace CPU/move", servers_ms_per_move(this.get("step_100")),
             servers_ms_per_move(r.get("step_100"))),
            ("flat CPU/move", servers_ms_per_move(this.get("flat")),
             servers_ms_per_move(r.get("flat"))),
            ("flat moves/s", this.get("flat", {}).get("moves_per_s"),
             r.get("flat", {}).get("moves_per_s")),
        ]  # fmt: skip
        cells = [f"{k} {a:.3g}/{b:.3g} = {a / b:.2f}×" for k, a, b in pairs if a and b]
        if cells:
            out.append(f"this / {r['config']}: " + "; ".join(cells))
    return out


def table(results: list[dict[str, Any]], args: argparse.Namespace, load_avg: str) -> str:
    def cell(r: dict[str, Any], what: str) -> str:
        step = r.get("step_100")
        flat = r.get("flat", {})
        fo = r.get("failover")
        if what in ("held_100", "held_50"):
            steps = r.get("steps") or []
            held = r.get(what, "—")
            limit = float(what.split("_")[1])
            if steps and held == steps[-1]["rooms"] and steps[-1]["p99_ms"] <= limit:
                return f"≥ {held} (the cap)"
            return str(held)
        if what == "flat":
            return f"{flat.get('moves_per_s', '—')}"
        if what == "flat_rtt":
            return str(flat.get("rtt", "—")).replace(", mean", "; mean")
        if what == "cpu_move":
            return f"{flat.get('server_cpu_ms_per_move', '—')} ms"
        if what == "cpu_share":
            return (
                f"servers {flat.get('server_cpu_share', '—')}, "
                f"bots {flat.get('bots_cpu_share', '—')}"
            )
        if what == "mem":
            if not step:
                return "—"
            return (
                f"{step['rss_mib'] * 1024 / step['rooms']:.0f} KiB "
                f"({step['rss_kib_per_room']:.0f} over idle)"
            )
        if what == "pace_cpu":
            if not step:
                return "—"
            return (
                f"servers {step['server_cpu_share']}, bots {step['bots_cpu_share']} "
                f"({step['moves_per_s']} moves/s)"
            )
        if what == "pace_rtt":
            return step["rtt"].replace(", mean", "; mean") if step else "—"
        if what in ("flat_parts", "pace_parts"):
            part = flat if what == "flat_parts" else (step or {})
            cpu = part.get("cpu") or {}
            moves = part.get("moves_per_s") or 0
            if not cpu or not moves:
                return "—"
            names = [k for k in cpu if k[1:].isdigit()] + ["redis", "postgres", "bots"]
            others = f"; the rest of the machine {cpu['others']}" if "others" in cpu else ""
            text = ", ".join(
                f"{k} {cpu[k]} ({1000 * cpu[k] / moves:.2f} ms/move)" for k in names if k in cpu
            )
            if "redis_commands" in cpu:
                text += f"; Redis commands/move {cpu['redis_commands'] / moves:.1f}"
            return text + others
        if what == "failover":
            if not fo:
                return "—"
            goal = args.lease + 1
            verdict = "met" if fo["p99_s"] <= goal else "missed"
            return (
                f"p50 {fo['p50_s']} s, p99 {fo['p99_s']} s (max {fo['max_s']} s, "
                f"{fo['samples']} rooms over {fo['kills']} kills, "
                f"{fo['unrecovered']} unrecovered); goal p99 ≤ {goal:g} s: {verdict}"
            )
        if what in ("crossed_flat", "crossed_pace"):
            part = flat if what == "crossed_flat" else (step or {})
            share = (part.get("cpu") or {}).get("frames_crossed_share")
            return "—" if share is None else f"{100 * share:.2f}%"
        raise KeyError(what)

    rows = [
        ("rooms held at people's pace, p99 < 100 ms", "held_100"),
        ("rooms held at people's pace, p99 < 50 ms", "held_50"),
        ("round trip at the largest step held < 100 ms", "pace_rtt"),
        ("CPU share (of one core) at that step", "pace_cpu"),
        ("CPU share by process at that step (CPU per move)", "pace_parts"),
        ("server memory per room at that step (RSS summed)", "mem"),
        (f"flat-out moves/s ({args.rooms} rooms, {args.seconds:g} s)", "flat"),
        ("flat-out round trip", "flat_rtt"),
        ("flat-out server CPU per move (summed)", "cpu_move"),
        ("flat-out CPU share (of one core)", "cpu_share"),
        ("flat-out CPU share by process (CPU per move)", "flat_parts"),
        ("frames that crossed Redis, at the largest step held < 100 ms", "crossed_pace"),
        ("frames that crossed Redis, flat out", "crossed_flat"),
        (f"failover after SIGKILL (LEASE_SECONDS={args.lease:g}), kill to next ack", "failover"),
    ]
    lines = [
        "| | " + " | ".join(r["config"] for r in results) + " |",
        "|---|" + "---|" * len(results),
    ]
    for label, what in rows:
        lines.append(f"| {label} | " + " | ".join(cell(r, what) for r in results) + " |")
    one = {r["config"]: r for r in results}
    ratio = []
    for limit in (100, 50):
        two = one.get("postgres-2p", {}).get(f"held_{limit}")
        for base in ("postgres-1p", "sqlite-1p"):
            single = one.get(base, {}).get(f"held_{limit}")
            if two is not None and single:
                ratio.append(f"p99 < {limit} ms: 2p / {base} = {two / single:.2f}×")
            elif two is not None and single is not None:
                ratio.append(f"p99 < {limit} ms: 2p {two} rooms, {base} {single}")
    out = "\n".join(lines)
    if ratio:
        out += "\n\n" + "; ".join(ratio) + " (goal ≥ 1.6×)"
    out += "".join("\n" + line for line in cpu_ratios(results))
    out += (
        f"\n\nMachine: {os.cpu_count()} cores, load average {load_avg}; "
        f"pace steps of {args.step} rooms (cap {args.cap}), {args.hold:g} s each."
    )
    return out


async def main_async(args: argparse.Namespace) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    before = " ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"load average before: {before}", flush=True)
    started = time.monotonic()
    results = []
    with tempfile.TemporaryDirectory() as tmp, contextlib.ExitStack() as stack:
        targets = [("this", ROOT)]
        if args.baseline:
            tree = stack.enter_context(benchkit.baseline_tree(args.baseline))
            targets.append((benchkit.short_rev(args.baseline), tree))
        for config in args.only.split(","):
            for n in range(args.rounds):  # this, baseline, baseline, this, ...
                for label, root in targets if n % 2 == 0 else targets[::-1]:
                    results.append(await run_config(config, Path(tmp), args, root, label))
    after = " ".join(f"{x:.2f}" for x in os.getloadavg())
    load_avg = f"{before} before, {after} after"
    print(f"\nall done in {(time.monotonic() - started) / 60:.1f} min\n", flush=True)
    print(table(results, args, load_avg))
    print(
        "\nCommands:\n\n    .venv/bin/python "
        + " ".join(
            [
                str(Path(sys.argv[0]).relative_to(ROOT))
                if Path(sys.argv[0]).is_absolute()
                else sys.argv[0],
                *sys.argv[1:],
            ]
        )
    )
    for r in results:
        for command in r["commands"]:
            print(f"    # {r['config']}: {command}")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1, ensure_ascii=False))


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--only",
        default=",".join(CONFIGS),
        help=f"configurations, comma separated ({', '.join(CONFIGS)})",
    )
    parser.add_argument(
        "--postgres",
        default="postgresql://postgres@127.0.0.1:5432/postgres",
        help="an admin connection: the databases are made and dropped here",
    )
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/0")
    parser.add_argument("--lease", type=float, default=5.0, help="LEASE_SECONDS")
    parser.add_argument("--rooms", type=int, default=200, help="flat out: rooms")
    parser.add_argument("--seconds", type=float, default=15, help="flat out: seconds")
    parser.add_argument("--procs", type=int, default=2, help="flat out: bot processes")
    parser.add_argument("--step", type=int, default=250, help="pace: rooms added per step")
    parser.add_argument("--cap", type=int, default=4000, help="pace: most rooms")
    parser.add_argument("--hold", type=float, default=12, help="pace: seconds per step")
    parser.add_argument("--kills", type=int, default=20, help="failover: SIGKILLs (0: none)")
    parser.add_argument("--failover-rooms", type=int, default=40, help="failover: rooms under play")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument(
        "--parts", default="flat,pace,failover", help="of each configuration: flat,pace,failover"
    )
    parser.add_argument(
        "--baseline",
        default="",
        help="also run the servers of this git revision (a temporary worktree), interleaved",
    )
    parser.add_argument("--rounds", type=int, default=1, help="runs of each server, interleaved")
    parser.add_argument("--json", default="", help="also write every figure here")
    args = parser.parse_args()
    for config in args.only.split(","):
        if config not in CONFIGS:
            parser.error(f"unknown configuration {config!r}")
    signal.signal(signal.SIGTERM, lambda *_: sys.exit("stopped (SIGTERM)"))
    try:
        asyncio.run(main_async(args))
    finally:  # interrupted too: no server or HAProxy left running, no database left behind
        benchkit.end_all()
        for name in DATABASES:
            with contextlib.suppress(Exception):
                asyncio.run(
                    pg_admin(args.postgres, f'drop database if exists "{name}" with (force)')
                )


if __name__ == "__main__":
    main()
