"""Four players, two against two (issue 26): the computer levels playing for a team.

    nice -n 10 .venv/bin/python benchmarks/four.py --matches 200 --dificil-matches 200 --workers 2
    nice -n 10 .venv/bin/python benchmarks/four.py --matches 40 --dificil-matches 20   # quicker

Matches are played in pairs on the same deck seeds with the teams swapped: match ``2k`` puts
the stronger level on team 0 (seats 0 and 2; seat 0 leads the first hand), match ``2k + 1``
on team 1, both on deck seed ``{prefix}-{k}`` with player rngs ``{k}:{seat}``.

Prints, each rate with its 95% Wilson interval:
- Normal's team against Fácil's, on the server's engine and on the browser's (Node, through
  tests/js/harness.js ``selfplay``: the same decks, seats and seeds);
- Difícil's team against Normal's, and Difícil beside a Normal partner against two Normals;
- a four-player decision's time: Difícil's CPU (``time.process_time``) p50 / p99 / max in
  the matches it played (each from its seat's view with the plays of the hand it saw), and
  Normal's in Chromium's Web Worker, unthrottled (``choose`` posted to
  client/js/play/worker.js, post to answer), on positions of four-player Normal matches;
and says, per goal, met or missed.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from multiprocessing import Pool
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from server.ai import LEVELS, choose_for_position  # noqa: E402
from server.ai.dificil import Dificil  # noqa: E402
from server.ai.inference import Seen  # noqa: E402
from server.engine import Match, Position, legal_moves, view_for  # noqa: E402
from server.engine.seats import team_of, team_seats  # noqa: E402

FOUR = 4
GOALS = {
    "normal_vs_facil": 0.90,
    "dificil_vs_normal": 0.65,
    "dificil_vs_normal_low": 0.58,
    "dificil_p99_s": 0.5,
    "normal_worker_p99_ms": 12.0,
}
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")


def wilson(wins: int, n: int, z: float = 1.96) -> tuple[float, float]:
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


@dataclass
class Result:
    index: int
    strong_team: int
    winner: int
    scores: tuple[int, int]
    times: dict[str, list[float]] = field(default_factory=dict)  # CPU seconds, by level


def lineup(strong: str, weak: str, strong_team: int, mixed: bool) -> list[str]:
    """The level of each seat: ``strong`` for the strong team (with ``mixed``: only its
    first seat, a Normal partner beside it), ``weak`` for the other."""
    levels = []
    for seat in range(FOUR):
        if team_of(seat) != strong_team:
            levels.append(weak)
        elif mixed and seat != team_seats(strong_team, FOUR)[0]:
            levels.append("normal")
        else:
            levels.append(strong)
    return levels


def play_match(args: tuple[int, str, str, str, bool]) -> Result:
    index, strong, weak, prefix, mixed = args
    pair, strong_team = divmod(index, 2)
    levels = lineup(strong, weak, strong_team, mixed)
    rngs = [random.Random(f"{pair}:{seat}") for seat in range(FOUR)]
    times: dict[str, list[float]] = {level: [] for level in set(levels)}
    match = Match.new(f"{prefix}-{pair}", FOUR)
    seen: list[Seen] = []
    hand_number = match.hand_number
    while not match.finished:
        position = match.position
        seat = position.turn
        if match.hand_number != hand_number:
            seen, hand_number = [], match.hand_number
        start = time.process_time()
        view = view_for(position, seat)
        moves = legal_moves(view.as_position())
        chooser = LEVELS[levels[seat]]
        if isinstance(chooser, Dificil):
            move = chooser.choose(view, moves, rngs[seat], seen)
        else:
            move = chooser.choose(view, moves, rngs[seat])
        if len(moves) > 1:
            times[levels[seat]].append(time.process_time() - start)
        seen.append(Seen(seat, position.cards, position.piles, len(position.deck), move))
        match, _ = match.play(move)
    assert match.winner is not None
    return Result(index, strong_team, match.winner, match.scores, times)


def series(
    strong: str,
    weak: str,
    matches: int,
    prefix: str,
    workers: int,
    mixed: bool = False,
    offset: int = 0,
) -> list[Result]:
    jobs = [(i, strong, weak, prefix, mixed) for i in range(offset, offset + matches)]
    if workers > 1:
        with Pool(workers) as pool:
            return list(pool.imap(play_match, jobs))
    return [play_match(job) for job in jobs]


def report(name: str, wins: int, n: int, goal: float | None, low_goal: float | None = None) -> str:
    low, high = wilson(wins, n)
    rate = wins / n if n else 0.0
    line = f"{name}: {wins}/{n} = {rate:.1%} (95% interval {low:.1%}-{high:.1%})"
    if goal is not None:
        met = rate >= goal and (low_goal is None or low > low_goal)
        wanted = f">= {goal:.0%}" + (f", low end > {low_goal:.0%}" if low_goal else "")
        line += f"; goal {wanted}: {'met' if met else 'MISSED'}"
    return line


def server_series(
    strong: str, weak: str, args: argparse.Namespace, matches: int, **kw: bool
) -> list[Result]:
    start = time.perf_counter()
    prefix = f"four-{strong}-{weak}"
    results = series(strong, weak, matches, prefix, args.workers, offset=args.offset, **kw)
    print(f"  ({len(results)} matches in {time.perf_counter() - start:.0f} s)")
    return results


def browser_normal_vs_facil(matches: int) -> tuple[int, int]:
    pairs = matches // 2
    request = {
        "op": "selfplay",
        "first": "normal",
        "second": "facil",
        "pairs": pairs,
        "prefix": "four-normal-facil",
        "seats": FOUR,
    }
    done = subprocess.run(
        ["node", str(ROOT / "tests" / "js" / "harness.js")],
        input=json.dumps(request) + "\n",
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    found = json.loads(done.stdout.splitlines()[0])["matches"]
    return sum(1 for m in found if m["winner"] == m["first_seat"]), len(found)


WORKER_TIMES = """async (requests) => {
  const worker = new Worker('/static/js/play/worker.js', {type: 'module'});
  let next = 1;
  const waiting = new Map();
  worker.onmessage = (e) => { waiting.get(e.data.id)(e.data); waiting.delete(e.data.id); };
  const ask = (req) => new Promise((ok) => { const id = next++; waiting.set(id, ok);
    worker.postMessage({id, ...req}); });
  await ask(requests[0]);  // the modules loaded and compiled once, before timing
  const times = [];
  for (const request of requests) {
    const t = performance.now();
    const answer = await ask(request);
    times.push(performance.now() - t);
    if (!answer.move) throw new Error(JSON.stringify(answer));
  }
  worker.terminate();
  return times;
}"""


def normal_positions(matches: int) -> list[Position]:
    """Every position with a choice met in ``matches`` four-player Normal matches."""
    found: list[Position] = []
    for k in range(matches):
        match = Match.new(f"four-time-{k}", FOUR)
        count = 0
        while not match.finished:
            position = match.position
            if len(legal_moves(position)) > 1:
                found.append(position)
            match, _ = match.play(choose_for_position("normal", position, f"{k}:{count}"))
            count += 1
    return found


def node_times(positions: list[Position]) -> list[float]:
    """CPU milliseconds of each decision under Node (benchmarks/four_normal_time.js)."""
    done = subprocess.run(
        ["node", str(ROOT / "benchmarks" / "four_normal_time.js")],
        input=json.dumps({"positions": [p.to_json() for p in positions]}),
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    cpu: list[float] = json.loads(done.stdout)["cpu"]
    return cpu


def worker_times(positions: list[Position]) -> list[float]:
    from playwright.sync_api import sync_playwright

    from tests.support.srvkit import ServerProc

    requests = [
        {"op": "choose", "level": "normal", "position": p.to_json(), "seed": n}
        for n, p in enumerate(positions)
    ]
    with tempfile.TemporaryDirectory() as tmp:
        server = ServerProc(Path(tmp)).start()
        try:
            with sync_playwright() as pw:
                browser = pw.chromium.launch(
                    executable_path=CHROMIUM, headless=True, args=["--no-sandbox", "--disable-gpu"]
                )
                page = browser.new_page()
                page.goto(server.base + "/")
                times: list[float] = page.evaluate(WORKER_TIMES, requests)
                browser.close()
        finally:
            server.stop()
    return times


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--matches", type=int, default=200, help="Normal-vs-Fácil matches")
    parser.add_argument("--dificil-matches", type=int, default=200, help="Difícil's matches")
    parser.add_argument("--mixed-matches", type=int, default=None, help="Difícil+Normal's")
    parser.add_argument("--time-matches", type=int, default=4, help="Normal matches timed")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument(
        "--offset",
        type=int,
        default=0,
        help="first match index (even): a run of matches N.. adds to an earlier run of ..N",
    )
    parser.add_argument("--skip", default="", help="comma list: browser,dificil,mixed,worker")
    args = parser.parse_args()
    skip = set(filter(None, args.skip.split(",")))

    if args.matches:
        print("Normal's team against Fácil's, the server's engine")
        results = server_series("normal", "facil", args, args.matches)
        wins = sum(r.winner == r.strong_team for r in results)
        print("  " + report("Normal's team wins", wins, len(results), GOALS["normal_vs_facil"]))
    if "browser" not in skip and args.matches:
        print("Normal's team against Fácil's, the browser's engine (Node)")
        wins, n = browser_normal_vs_facil(args.matches)
        print("  " + report("Normal's team wins", wins, n, GOALS["normal_vs_facil"]))

    if "dificil" not in skip and args.dificil_matches:
        print("Difícil's team against Normal's")
        results = server_series("dificil", "normal", args, args.dificil_matches)
        wins = sum(r.winner == r.strong_team for r in results)
        print(
            "  "
            + report(
                "Difícil's team wins",
                wins,
                len(results),
                GOALS["dificil_vs_normal"],
                GOALS["dificil_vs_normal_low"],
            )
        )
        cpu = [t for r in results for t in r.times.get("dificil", [])]
        p99 = percentile(cpu, 0.99)
        print(
            f"  Difícil's four-player decisions, CPU: {len(cpu)} decisions, "
            f"p50 {statistics.median(cpu):.3f} s, p99 {p99:.3f} s, max {max(cpu):.3f} s; "
            f"goal p99 <= {GOALS['dificil_p99_s']} s: "
            f"{'met' if p99 <= GOALS['dificil_p99_s'] else 'MISSED'}"
        )
    mixed = args.dificil_matches if args.mixed_matches is None else args.mixed_matches
    if "mixed" not in skip and mixed:
        print("Difícil beside a Normal partner against two Normals (reported, no goal)")
        results = server_series("dificil", "normal", args, mixed, mixed=True)
        wins = sum(r.winner == r.strong_team for r in results)
        print("  " + report("Difícil + Normal win", wins, len(results), None))

    if "worker" not in skip:
        positions = normal_positions(args.time_matches)
        node = node_times(positions)
        print(
            f"Normal's four-player decisions under Node (beside: CPU, no browser): "
            f"{len(node)} decisions, p50 {statistics.median(node):.2f} ms, "
            f"p99 {percentile(node, 0.99):.2f} ms, max {max(node):.2f} ms"
        )
        times = worker_times(positions)
        p99 = percentile(times, 0.99)
        print(
            f"Normal's four-player decisions in Chromium's worker, unthrottled: {len(times)} "
            f"decisions, p50 {statistics.median(times):.2f} ms, p99 {p99:.2f} ms, "
            f"max {max(times):.2f} ms; goal p99 <= {GOALS['normal_worker_p99_ms']:.0f} ms: "
            f"{'met' if p99 <= GOALS['normal_worker_p99_ms'] else 'MISSED'}"
        )


if __name__ == "__main__":
    main()
