"""Self-play benchmark: Normal against Fácil, and the engine's speed.

    .venv/bin/python benchmarks/selfplay.py                 # 1000 matches, 2 workers
    .venv/bin/python benchmarks/selfplay.py --matches 200   # quicker

Prints
- Normal's match win rate against Fácil (seats alternate: Normal leads the odd-numbered
  matches' first hand, Fácil the others) with a 95% Wilson interval;
- engine throughput: ``legal_moves`` calls per second over positions collected from the
  benchmark's own games, and random-play matches per second (one process);
- each level's decision time (``choose``, from the seat's view) p50 / p99 / max, measured
  inside the match workers;
and checks the goals: Normal wins >= 93%, Normal p99 <= 20 ms, legal_moves >= 20,000/s.
Exit status 1 if a goal is missed (with --strict).

Everything is seeded: match ``i`` uses the deck seed ``selfplay-{i}`` and player rngs
``{i}:{seat}``, so a run is reproducible (timings aside).
"""

from __future__ import annotations

import argparse
import math
import os
import random
import sys
import time
from dataclasses import dataclass, field
from multiprocessing import Pool
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from server.ai import LEVELS  # noqa: E402
from server.engine import Match, Position, legal_moves, view_for  # noqa: E402

GOAL_WIN_RATE = 0.93
GOAL_P99_MS = 20.0
GOAL_LEGAL_MOVES_PER_S = 20_000


@dataclass
class MatchResult:
    index: int
    normal_seat: int
    winner: int
    scores: tuple[int, int]
    hands: int
    moves: int
    times: dict[str, list[float]] = field(default_factory=dict)
    positions: list[Position] = field(default_factory=list)


def play_match(args: tuple[int, str, int]) -> MatchResult:
    """Match ``index``: Normal in seat ``index % 2``, Fácil in the other."""
    index, prefix, keep_positions = args
    normal_seat = index % 2
    levels = ("normal", "facil") if normal_seat == 0 else ("facil", "normal")
    players = (LEVELS[levels[0]], LEVELS[levels[1]])
    rngs = (random.Random(f"{index}:0"), random.Random(f"{index}:1"))
    times: dict[str, list[float]] = {
        f"{level}{part}": [] for level in ("normal", "facil")
        for part in ("", " choose", " cpu")
    }
    positions: list[Position] = []
    match = Match.new(f"{prefix}-{index}")
    while not match.finished:
        position = match.position
        seat = position.turn
        if index < keep_positions:
            positions.append(position)
        start, start_cpu = time.perf_counter(), time.process_time()
        view = view_for(position, seat)
        moves = legal_moves(view.as_position())
        chosen = time.perf_counter()
        move = players[seat].choose(view, moves, rngs[seat])
        end, end_cpu = time.perf_counter(), time.process_time()
        times[levels[seat]].append(end - start)
        times[f"{levels[seat]} choose"].append(end - chosen)
        times[f"{levels[seat]} cpu"].append(end_cpu - start_cpu)
        match, _ = match.play(move)
    assert match.winner is not None
    return MatchResult(
        index, normal_seat, match.winner, match.scores, len(match.results),
        match.move_count, times, positions,
    )


def wilson(wins: int, n: int, z: float = 1.959964) -> tuple[float, float]:
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    return centre - half, centre + half


def percentile(sorted_values: list[float], q: float) -> float:
    """Nearest-rank percentile of an already sorted list."""
    if not sorted_values:
        return float("nan")
    rank = max(math.ceil(q / 100 * len(sorted_values)), 1)
    return sorted_values[rank - 1]


def random_match(seed: int) -> int:
    rng = random.Random(seed)
    match = Match.new(f"random-{seed}")
    while not match.finished:
        match, _ = match.play(rng.choice(legal_moves(match.position)))
    return match.move_count


def time_legal_moves(
    positions: list[Position], min_seconds: float
) -> tuple[float, float, int]:
    """Calls per second of wall time and of CPU time, and the number of calls."""
    calls = 0
    start, start_cpu = time.perf_counter(), time.process_time()
    while True:
        for position in positions:
            legal_moves(position)
        calls += len(positions)
        elapsed = time.perf_counter() - start
        if elapsed >= min_seconds:
            return calls / elapsed, calls / (time.process_time() - start_cpu), calls


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=1000, help="Normal vs Fácil matches")
    parser.add_argument("--workers", type=int, default=2, help="processes for the matches")
    parser.add_argument("--prefix", default="selfplay", help="deck seed prefix")
    parser.add_argument("--random-matches", type=int, default=100,
                        help="random-play matches for the engine throughput")
    parser.add_argument("--position-matches", type=int, default=40,
                        help="matches whose positions time legal_moves")
    parser.add_argument("--strict", action="store_true", help="exit 1 if a goal is missed")
    args = parser.parse_args(argv)

    started = time.perf_counter()
    jobs = [(i, args.prefix, args.position_matches) for i in range(args.matches)]
    if args.workers > 1:
        with Pool(args.workers) as pool:
            results = pool.map(play_match, jobs, chunksize=4)
    else:
        results = [play_match(job) for job in jobs]
    match_seconds = time.perf_counter() - started

    n = len(results)
    wins = sum(r.winner == r.normal_seat for r in results)
    low, high = wilson(wins, n)
    margin = sum(r.scores[r.normal_seat] - r.scores[1 - r.normal_seat] for r in results) / n
    print(f"Normal vs Fácil: {n} matches in {match_seconds:.1f} s with {args.workers} "
          f"worker(s), {sum(r.hands for r in results) / n:.2f} hands and "
          f"{sum(r.moves for r in results) / n:.0f} moves per match")
    for seat in (0, 1):
        seat_games = [r for r in results if r.normal_seat == seat]
        seat_wins = sum(r.winner == seat for r in seat_games)
        print(f"  Normal in seat {seat}: {seat_wins}/{len(seat_games)}")
    print(f"Normal win rate: {wins}/{n} = {wins / n:.1%}  "
          f"(95% Wilson interval {low:.1%} - {high:.1%}); mean final score margin "
          f"{margin:+.1f}")

    p99_normal = p99_normal_cpu = float("nan")
    for level in ("normal", "facil"):
        for part, what in (
            ("", "view + legal_moves + choose, wall"),
            (" choose", "choose only, wall"),
            (" cpu", "view + legal_moves + choose, CPU time"),
        ):
            times = sorted(t for r in results for t in r.times[level + part])
            p50, p99 = percentile(times, 50) * 1000, percentile(times, 99) * 1000
            if level == "normal" and not part:
                p99_normal = p99
            if level == "normal" and part == " cpu":
                p99_normal_cpu = p99
            print(f"Decision time {level:>6} ({what}, {len(times)} decisions): "
                  f"p50 {p50:.2f} ms, p99 {p99:.2f} ms, max {times[-1] * 1000:.1f} ms")

    positions = [p for r in results for p in r.positions]
    rate, rate_cpu, calls = (
        time_legal_moves(positions, 2.0) if positions else (float("nan"), float("nan"), 0)
    )
    print(f"legal_moves: {rate:,.0f} positions/s wall, {rate_cpu:,.0f} per CPU second "
          f"({calls} calls over {len(positions)} positions from the first "
          f"{min(args.position_matches, n)} matches)")

    start, start_cpu = time.perf_counter(), time.process_time()
    total_moves = sum(random_match(seed) for seed in range(args.random_matches))
    elapsed, cpu = time.perf_counter() - start, time.process_time() - start_cpu
    print(f"Random play: {args.random_matches / elapsed:.1f} matches/s wall, "
          f"{args.random_matches / cpu:.1f} per CPU second "
          f"({total_moves / elapsed:,.0f} moves/s, one process)")
    load = os.getloadavg()
    print(f"Load average at the end: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} "
          f"on {os.cpu_count()} CPUs (wall figures suffer when it exceeds the CPUs)")

    goals = [
        ("Normal wins >= 93%", wins / n >= GOAL_WIN_RATE if n else False),
        ("Normal p99 <= 20 ms (wall)", p99_normal <= GOAL_P99_MS),
        ("Normal p99 <= 20 ms (CPU time)", p99_normal_cpu <= GOAL_P99_MS),
        ("legal_moves >= 20,000/s (wall)", rate >= GOAL_LEGAL_MOVES_PER_S),
        ("legal_moves >= 20,000/s (CPU time)", rate_cpu >= GOAL_LEGAL_MOVES_PER_S),
    ]
    for name, ok in goals:
        print(f"  [{'ok' if ok else 'MISSED'}] {name}")
    return 1 if args.strict and not all(ok for _, ok in goals) else 0


if __name__ == "__main__":
    sys.exit(main())
