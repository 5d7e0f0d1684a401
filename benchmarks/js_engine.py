"""The browser's engine and players: their bytes on the wire, and a Normal decision's time.

    .venv/bin/python benchmarks/js_engine.py            # bytes, and 20 matches of timings
    nice -n 19 .venv/bin/python benchmarks/js_engine.py --matches 60

- Bytes: every module the offline game's worker loads (client/js/play/worker.js and what
  it imports, followed from its import lines), each file raw and gzip-compressed as the
  server sends it (gzip level 9, Starlette's GZipMiddleware default), and the sum; against
  the goal of issue 18 (60 KB compressed).
- Time: a Normal decision under Node (node benchmarks/js_normal_time.js: seeded Normal-vs-
  Fácil matches, each Normal decision from its seat's view, the legal moves included),
  p50 / p99 / max, beside the server's Normal deciding the very same positions in this
  process (CPython), and the ratio. Issue 18's goal is for Chromium with a 4x CPU slowdown
  (p99 at most 50 ms); the 4x Node figure is printed as an estimate of that, not a measure.
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from server.ai import choose_for_position  # noqa: E402
from server.engine import Position  # noqa: E402

ENTRY = ROOT / "client" / "js" / "play" / "worker.js"
GOAL_BYTES = 60 * 1024
GOAL_P99_MS = 50.0
IMPORT = re.compile(r"""^\s*(?:import|export)\b[^'"]*?from\s+["'](\.[^"']+)["']""", re.M)
DYNAMIC = re.compile(r"""import\(\s*["'](\.[^"']+)["']\s*\)""")


def modules(entry: Path) -> list[Path]:
    """The entry and every module it imports, transitively (relative imports only: the
    client has no other kind)."""
    found: list[Path] = []
    todo = [entry.resolve()]
    while todo:
        path = todo.pop()
        if path in found:
            continue
        found.append(path)
        text = path.read_text(encoding="utf-8")
        for spec in IMPORT.findall(text) + DYNAMIC.findall(text):
            todo.append((path.parent / spec).resolve())
    return sorted(found)


def sizes() -> None:
    files = modules(ENTRY)
    total_raw = total_gz = 0
    print("modules the offline worker loads (bytes raw / gzip -9):")
    for path in files:
        data = path.read_bytes()
        packed = len(gzip.compress(data, 9, mtime=0))
        total_raw += len(data)
        total_gz += packed
        print(f"  {path.relative_to(ROOT)}: {len(data)} / {packed}")
    together = len(gzip.compress(b"".join(p.read_bytes() for p in files), 9, mtime=0))
    print(
        f"total: {len(files)} files, {total_raw} bytes raw, {total_gz} gzip-compressed one by "
        f"one ({total_gz / 1024:.1f} KB; {together / 1024:.1f} KB as one stream)"
    )
    print(
        f"goal <= {GOAL_BYTES // 1024} KB compressed: {total_gz / GOAL_BYTES:.2f} of it "
        f"({'met' if total_gz <= GOAL_BYTES else 'MISSED'})"
    )


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def timings(matches: int) -> None:
    done = subprocess.run(
        ["node", str(ROOT / "benchmarks" / "js_normal_time.js"), str(matches)],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    data = json.loads(done.stdout)
    positions = [Position.from_json(p) for p in data["positions"]]
    py_wall, py_cpu = [], []
    for n, position in enumerate(positions):
        start, used = time.perf_counter(), time.process_time()
        choose_for_position("normal", position, n)
        py_cpu.append((time.process_time() - used) * 1000)
        py_wall.append((time.perf_counter() - start) * 1000)
    print(f"Normal decisions: {len(positions)} in {matches} matches against Fácil (ms)")
    rows = (
        ("browser's, Node, wall", data["times"]),
        ("browser's, Node, CPU", data["cpu"]),
        ("server's, CPython, wall", py_wall),
        ("server's, CPython, CPU", py_cpu),
    )
    for name, values in rows:
        print(
            f"  {name}: p50 {statistics.median(values):.2f}, p99 {percentile(values, 0.99):.2f}, "
            f"max {max(values):.2f}"
        )
    for kind, js, py in (("wall", data["times"], py_wall), ("CPU", data["cpu"], py_cpu)):
        p50 = statistics.median(js) / statistics.median(py)
        p99 = percentile(js, 0.99) / percentile(py, 0.99)
        print(f"  browser / server ({kind}): p50 {p50:.2f}, p99 {p99:.2f}")
    estimate = 4 * percentile(data["cpu"], 0.99)
    print(
        f"  4x the Node CPU p99 (an estimate of Chromium with a 4x CPU slowdown): {estimate:.1f} "
        f"ms against the goal of {GOAL_P99_MS:.0f} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--matches", type=int, default=20, help="timed matches")
    parser.add_argument("--no-time", action="store_true", help="only the bytes")
    args = parser.parse_args()
    sizes()
    if not args.no_time:
        timings(args.matches)


if __name__ == "__main__":
    main()
