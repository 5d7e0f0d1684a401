"""What the benchmark scripts share (a module, not a script): processes read from /proc, a
git worktree of another revision to run beside this one (``--baseline REV``), HAProxy
running the repository's deploy/haproxy.cfg on local ports, and a process's /metrics.

Everything started here is ended by the caller's ``with`` (or ``stop``) and, in any case,
by ``end_all`` on the way out: nothing a benchmark starts outlives it.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import os
import re
import shutil
import signal
import socket
import statistics
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
HAPROXY_CFG = ROOT / "deploy" / "haproxy.cfg"
CHILDREN: list[subprocess.Popen[bytes]] = []  # every process started here, ended on the way out


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def healthy(proc: subprocess.Popen[bytes], port: int, seconds: float) -> bool:
    """Waits until the server on ``port`` answers /healthz (False: it exited, or did not
    answer within ``seconds``)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1).status_code == 200:
                return True
        except httpx.HTTPError:
            time.sleep(0.1)
    return False


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def cpu_total(pids: list[int]) -> float:
    return sum(cpu_seconds(pid) for pid in pids)


def rss_total(pids: list[int]) -> int:
    return sum(rss_kib(pid) for pid in pids)


def pids_on_port(port: int) -> list[int]:
    """The processes holding a socket that listens on ``port`` (from /proc)."""
    inodes = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with contextlib.suppress(OSError):
            for line in Path(table).read_text().splitlines()[1:]:
                cols = line.split()
                if cols[3] == "0A" and int(cols[1].rsplit(":", 1)[1], 16) == port:
                    inodes.add(cols[9])
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        with contextlib.suppress(OSError):
            for fd in (entry / "fd").iterdir():
                link = os.readlink(fd)
                if link.startswith("socket:[") and link[8:-1] in inodes:
                    pids.append(int(entry.name))
                    break
    return sorted(pids)


def started(proc: subprocess.Popen[bytes]) -> subprocess.Popen[bytes]:
    CHILDREN.append(proc)
    return proc


def end(proc: subprocess.Popen[bytes], sig: int = signal.SIGTERM, wait: float = 30) -> None:
    if proc.poll() is None:
        proc.send_signal(sig)
        try:
            proc.wait(wait)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def end_all() -> None:
    """Kills whatever this run started and is still running (interrupted runs too)."""
    for proc in CHILDREN:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


# -- the game, as the bots play it ------------------------------------------------------------


def pick_move(view: dict[str, Any]) -> dict[str, Any] | None:
    for opt in view["options"]:
        if opt["llevarte"]:
            return dict(opt["llevarte"])
    for opt in view["options"]:
        if opt["trail"]:
            return {"kind": "trail", "card": opt["card"]}
    for opt in view["options"]:
        if opt["builds"]:
            return dict(opt["builds"][0]["move"])
    return None


JOIN_REFUSALS: list[str] = []


async def post(http: httpx.AsyncClient, path: str, body: dict[str, Any]) -> httpx.Response:
    """A POST tried again when the connection fails under it (a kept-alive connection the
    proxy closed as it was reused)."""
    for attempt in range(3):
        try:
            return await http.post(path, json=body)
        except httpx.TransportError:
            if attempt == 2:
                raise
            await asyncio.sleep(0.2)
    raise AssertionError("not reached")


async def make_room(http: httpx.AsyncClient, sem: asyncio.Semaphore) -> tuple[str, str, str, str]:
    """A friend room and its second seat joined: (token 0, token 1, watch code, room)."""
    tokens, code, room = await make_table(http, sem, 2)
    return tokens[0], tokens[1], code, room


async def make_table(
    http: httpx.AsyncClient, sem: asyncio.Semaphore, seats: int = 2
) -> tuple[list[str], str, str]:
    """A friend room of ``seats`` (2 or 4) with every other chair a friend, each joined in
    its own chair: (each seat's token in seat order, watch code, room)."""
    body: dict[str, Any] = {"mode": "friend", "name": "Bot A"}
    if seats != 2:  # a two-seat body as before (a server from before tables of four too)
        body = {"seats": seats, "name": "Bot A", "chairs": [{"kind": "friend"}] * (seats - 1)}
    async with sem:
        r = await post(http, "/api/rooms", body)
        if r.status_code != 201:
            raise RuntimeError(f"a room was refused: {r.status_code} {r.text[:300]}")
        a = r.json()
        tokens = [str(a["token"])]
        for seat in range(1, seats):
            join: dict[str, Any] = {"invite": a["invite"], "name": f"Bot {'ABCD'[seat]}"}
            if seats != 2:
                join["seat"] = seat
            for attempt in range(5):  # a refused join is said once, then tried again
                r = await post(http, "/api/join", join)
                if r.status_code == 200:
                    break
                JOIN_REFUSALS.append(f"{r.status_code} {r.text[:200]}")
                if len(JOIN_REFUSALS) == 1:
                    print(f"a join was refused: {JOIN_REFUSALS[0]}", flush=True)
                await asyncio.sleep(0.2 * (attempt + 1))
            else:
                raise RuntimeError(f"join: {r.status_code} {r.text[:300]}")
            tokens.append(str(r.json()["token"]))
        code = str(a["watch_url"]).removeprefix("/v/")
        return tokens, code, str(a.get("room", ""))


# -- where the bots' sockets come from --------------------------------------------------------

# Through HAProxy every socket from one address counts against its cap per client (64 in
# deploy/haproxy.cfg): when set, each bot's socket comes from a loopback address of its own
# (127.0.0.0/8 is all loopback on Linux), as players' sockets come from theirs.
SPREAD_SOURCES = False
_SOURCES = itertools.count()


def source() -> dict[str, Any]:
    """``websockets.connect``'s keyword for the next socket's own address (or nothing)."""
    if not SPREAD_SOURCES:
        return {}
    n = next(_SOURCES)
    return {"local_addr": (f"127.{1 + n // 62500 % 250}.{n // 250 % 250}.{1 + n % 250}", 0)}


# -- another revision beside this one ---------------------------------------------------------


def short_rev(rev: str) -> str:
    out = subprocess.run(
        ["git", "rev-parse", "--short", rev], cwd=ROOT, capture_output=True, text=True, check=True
    )
    return out.stdout.strip()


@contextlib.contextmanager
def baseline_tree(rev: str) -> Iterator[Path]:
    """A ``git worktree`` of ``rev`` in a temporary folder (detached: no branch is made),
    removed on the way out. Its server runs with this checkout's .venv."""
    parent = Path(tempfile.mkdtemp(prefix="casino-baseline-"))
    tree = parent / "tree"
    subprocess.run(
        ["git", "worktree", "add", "--detach", "--quiet", str(tree), rev],
        cwd=ROOT,
        check=True,
    )
    try:
        yield tree
    finally:
        subprocess.run(
            ["git", "worktree", "remove", "--force", str(tree)], cwd=ROOT, capture_output=True
        )
        subprocess.run(["git", "worktree", "prune"], cwd=ROOT, capture_output=True)
        shutil.rmtree(parent, ignore_errors=True)


def names_rooms_in_url(root: Path) -> bool:
    """The server of ``root`` takes ``/ws/<room>`` (issue 21); older ones only ``/ws``."""
    routes = root / "server" / "web" / "routes.py"
    return routes.exists() and "/ws/{room}" in routes.read_text()


# -- HAProxy ----------------------------------------------------------------------------------


def haproxy_binary() -> str:
    found = shutil.which("haproxy") or shutil.which("haproxy", path="/usr/sbin")
    if found is None:
        raise SystemExit("haproxy is not installed: apt-get install -y haproxy")
    return found


def render_haproxy(text: str, listen: int, ports: list[int]) -> str:
    """deploy/haproxy.cfg with its frontend on 127.0.0.1:``listen`` and its servers, in
    each backend in order, at the local ``ports`` (a line per port: the first ``server``
    line of a backend is copied for any port beyond the file's own); every other line as
    it is (the tests do the same: tests/server/test_deploy_cluster.py)."""
    out: list[str] = []
    backend: list[str] = []  # the current backend's server lines, as read

    def flush() -> None:
        if backend:
            first = backend[0].split()
            for i, port in enumerate(ports):
                name = f"casino-{i}"
                out.append(
                    backend[0].replace(first[1], name, 1).replace(first[2], f"127.0.0.1:{port}", 1)
                )
            backend.clear()

    for line in text.splitlines():
        words = line.split()
        if words[:1] == ["server"]:
            backend.append(line)
            continue
        flush()
        if words[:1] == ["bind"]:
            line = line.replace(words[1], f"127.0.0.1:{listen}")
        out.append(line)
    flush()
    return "\n".join(out) + "\n"


class Haproxy:
    """HAProxy running the repository's configuration in front of ``ports``."""

    def __init__(self, tmp: Path, ports: list[int]) -> None:
        self.port = free_port()
        self.cfg = tmp / f"haproxy-{self.port}.cfg"
        self.cfg.write_text(render_haproxy(HAPROXY_CFG.read_text(), self.port, ports))
        self.log_path = tmp / f"haproxy-{self.port}.log"
        with open(self.log_path, "ab") as log:
            self.proc = started(
                subprocess.Popen(
                    [haproxy_binary(), "-db", "-f", str(self.cfg)], stdout=log, stderr=log
                )
            )
        deadline = time.monotonic() + 30
        while True:
            if self.proc.poll() is not None:
                raise SystemExit("haproxy exited: " + self.log_path.read_text()[-2000:])
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"{self.url}/healthz", timeout=1).status_code == 200:
                    return
            if time.monotonic() > deadline:
                raise SystemExit("haproxy did not answer: " + self.log_path.read_text()[-2000:])
            time.sleep(0.1)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def stop(self) -> None:
        end(self.proc, wait=10)


# -- figures --------------------------------------------------------------------------------


def children_cpu(pids: list[int]) -> float:
    """CPU seconds of the live child processes of ``pids`` (the computer workers)."""
    total = 0.0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) in pids:
            total += cpu_seconds(int(entry.name))
    return total


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def summary(rtts: list[float]) -> str:
    ms = [r * 1000 for r in rtts]
    return (
        f"p50 {percentile(ms, 0.5):.1f} ms, p95 {percentile(ms, 0.95):.1f} ms, "
        f"p99 {percentile(ms, 0.99):.1f} ms, mean {statistics.fmean(ms) if ms else 0:.1f} ms"
    )


def watch_figures(watchers: int, frames: int, sent: int, seconds: float) -> dict[str, Any]:
    """What the watchers received in a window, in all and per watcher."""
    return {
        "watchers": watchers,
        "watcher_frames_per_s": round(frames / seconds, 1),
        "watcher_kib_per_s": round(sent / 1024 / seconds, 1),
        "frames_per_watcher_per_s": round(frames / seconds / max(1, watchers), 2),
        "bytes_per_watcher_frame": round(sent / max(1, frames)),
    }


def median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def figures(run: dict[str, Any]) -> dict[str, float]:
    """The figures a comparison reads from one run."""
    out: dict[str, float] = {}
    if "flat" in run:
        flat = run["flat"]
        out["flat server CPU ms/move"] = flat["server_cpu_ms_per_move"]
        out["flat moves/s"] = flat["moves_per_s"]
    if "pace" in run:
        steps = run["pace"]["steps"]
        held = [s for s in steps if s["p99_ms"] <= args_limit(run)] or steps[:1]
        out["pace rooms held"] = float(run["pace"][next(iter(run["pace"]))])
        out["pace RSS KiB/room (largest step held)"] = held[-1]["rss_kib_per_room"]
        out["pace server CPU share (largest step held)"] = held[-1]["server_cpu_share"]
    return out


def args_limit(run: dict[str, Any]) -> float:
    key = next(iter(run["pace"]))  # rooms_held_p99_under_<limit>ms
    return float(key.removeprefix("rooms_held_p99_under_").removesuffix("ms"))


def compare(results: dict[str, list[dict[str, Any]]], echoes: list[dict[str, Any]]) -> None:
    """Each figure's median over the rounds per server, the ratios to this checkout's."""
    labels = list(results)
    table: dict[str, dict[str, float]] = {}
    for label in labels:
        runs = [figures(r) for r in results[label]]
        for name in runs[0] if runs else []:
            table.setdefault(name, {})[label] = median([f[name] for f in runs])
    if any("flat" in e for e in echoes):
        echo_ms = median([e["flat"]["server_cpu_ms_per_round_trip"] for e in echoes if "flat" in e])
        table.setdefault("flat server CPU ms/move", {})["echo"] = echo_ms
    if any("pace" in e for e in echoes):
        per_pair = median([e["pace"]["rss_kib_per_pair"] for e in echoes if "pace" in e])
        table.setdefault("pace RSS KiB/room (largest step held)", {})["echo"] = per_pair
    print(f"\ncomparison (medians over {max(len(v) for v in results.values())} rounds):")
    for name, row in table.items():
        this = row.get(labels[0])
        cells = [f"{label} {value:g}" for label, value in row.items()]
        ratios = [
            f"{labels[0]}/{label} {this / value:.2f}"
            for label, value in row.items()
            if label != labels[0] and this is not None and value
        ]
        print(f"  {name}: " + ", ".join(cells) + (" (" + ", ".join(ratios) + ")" if ratios else ""))


# -- /metrics ---------------------------------------------------------------------------------

METRIC = re.compile(r"^(casino_[a-z_]+?)(?:_total)? ([0-9.eE+-]+)$", re.M)


def scrape(server: str) -> dict[str, float]:
    """The unlabelled ``casino_*`` figures of one process's /metrics (empty: none, or a
    server from before /metrics)."""
    try:
        r = httpx.get(f"{server}/metrics", timeout=5)
    except httpx.HTTPError:
        return {}
    if r.status_code != 200:
        return {}
    return {name: float(value) for name, value in METRIC.findall(r.text)}


def crossed_share(before: list[dict[str, float]], after: list[dict[str, float]]) -> float | None:
    """Of the frames handed to sockets between two scrapes of every process, the share that
    crossed Redis to reach theirs (None: no figures)."""
    crossed = delivered = 0.0
    for a, b in zip(before, after, strict=True):
        if "casino_frames_delivered" not in b:
            return None
        crossed += b.get("casino_frames_crossed", 0.0) - a.get("casino_frames_crossed", 0.0)
        delivered += b["casino_frames_delivered"] - a.get("casino_frames_delivered", 0.0)
    return crossed / delivered if delivered else None
