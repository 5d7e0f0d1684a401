"""Self-play benchmark: Difícil against Normal, Normal against Fácil, and the engine's speed.

    nice -n 10 .venv/bin/python benchmarks/selfplay.py --matches 400 --workers 2
    .venv/bin/python benchmarks/selfplay.py --matches 40 --agreement 20   # quicker

Matches are played in pairs on the same deck seeds with the seats swapped: match ``2k``
puts the stronger level in seat 0 (it leads the first hand), match ``2k + 1`` in seat 1,
both on deck seed ``{prefix}-{k}`` with player rngs ``{k}:{seat}``, so the luck of the
cards is shared out evenly and a run is reproducible (timings aside).

Prints, each with a 95% Wilson interval where it is a rate:
- Difícil's and Normal's match win rates (against Normal and Fácil), per seat, how the
  pairs split (won both / one each / lost both), the mean final score margin;
- each level's decision time (``choose`` from the seat's view) p50 / p99 / max, wall and
  CPU time, measured inside the match workers;
- how often Difícil's move agrees with a search ten times longer (ten times the worlds
  and solver nodes) on positions of its own games: a cheap measure of move quality;
- engine throughput: ``legal_moves`` per second, random-play matches per second;
and checks the goals (``--strict``: exit 1 if one is missed).
"""

from __future__ import annotations

import argparse
import math
import os
import random
import sys
import time
from dataclasses import dataclass, field, replace
from multiprocessing import Pool
from multiprocessing.pool import Pool as ProcessPool
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from searcher import Searcher  # noqa: E402  (benchmarks/searcher.py, beside this script)

from server.ai import LEVELS, Player  # noqa: E402
from server.ai.dificil import Dificil, Tuning  # noqa: E402
from server.ai.inference import Seen  # noqa: E402
from server.engine import Match, Position, legal_moves, view_for  # noqa: E402

GOALS = {
    "dificil_vs_normal": 0.75,
    "dificil_vs_searcher": 0.55,
    "normal_vs_facil": 0.97,
    "dificil_p50_s": 0.3,
    "dificil_p99_s": 0.8,
    "normal_p99_s": 0.020,
    "legal_moves_per_s": 20_000,
}
LONGER = 10  # the agreement check's search is this many times longer
PROGRESS = 50  # matches between progress lines


def player(name: str) -> Player:
    if name == "searcher":
        return Searcher()
    if name == "dificil-long":
        tuning = Tuning()
        return Dificil(
            replace(
                tuning, samples=tuning.samples * LONGER, solver_nodes=tuning.solver_nodes * LONGER
            )
        )
    return LEVELS[name]


@dataclass
class MatchResult:
    index: int
    strong_seat: int
    winner: int
    scores: tuple[int, int]
    hands: int
    moves: int
    times: dict[str, list[float]] = field(default_factory=dict)
    positions: list[Position] = field(default_factory=list)  # the strong seat's decisions


def play_match(args: tuple[int, str, str, str, int]) -> MatchResult:
    """Match ``index`` of ``strong`` against ``weak``: pair ``index // 2``, the strong
    level in seat ``index % 2``."""
    index, strong, weak, prefix, keep_positions = args
    pair, strong_seat = divmod(index, 2)
    names = (strong, weak) if strong_seat == 0 else (weak, strong)
    players = (player(names[0]), player(names[1]))
    rngs = (random.Random(f"{pair}:0"), random.Random(f"{pair}:1"))
    times: dict[str, list[float]] = {
        f"{n}{part}": [] for n in (strong, weak) for part in ("", " cpu")
    }
    positions: list[Position] = []
    match = Match.new(f"{prefix}-{pair}")
    seen: list[Seen] = []  # this hand's plays, public (Difícil's inference reads them)
    hand_number = match.hand_number
    while not match.finished:
        position = match.position
        seat = position.turn
        if match.hand_number != hand_number:
            seen, hand_number = [], match.hand_number
        start, start_cpu = time.perf_counter(), time.process_time()
        view = view_for(position, seat)
        moves = legal_moves(view.as_position())
        chooser = players[seat]
        if isinstance(chooser, Dificil):
            move = chooser.choose(view, moves, rngs[seat], seen)
        else:
            move = chooser.choose(view, moves, rngs[seat])
        end, end_cpu = time.perf_counter(), time.process_time()
        times[names[seat]].append(end - start)
        times[f"{names[seat]} cpu"].append(end_cpu - start_cpu)
        if seat == strong_seat and len(moves) > 1 and index < keep_positions:
            positions.append(position)
        seen.append(Seen(seat, position.cards, position.piles, len(position.deck), move))
        match, _ = match.play(move)
    assert match.winner is not None
    return MatchResult(
        index,
        strong_seat,
        match.winner,
        match.scores,
        len(match.results),
        match.move_count,
        times,
        positions,
    )


def agree(args: tuple[Position, str]) -> tuple[bool, bool, float]:
    """Whether Difícil and the ten-times-longer search choose the same move here, whether
    the deck was empty (the exact solver's ground), and Difícil's time."""
    position, seed = args
    view = view_for(position, position.turn)
    moves = legal_moves(view.as_position())
    start = time.perf_counter()
    mine = player("dificil").choose(view, moves, random.Random(seed))
    elapsed = time.perf_counter() - start
    longer = player("dificil-long").choose(view, moves, random.Random(seed))
    return mine == longer, view.deck_size == 0, elapsed


def wilson(wins: int, n: int, z: float = 1.959964) -> tuple[float, float]:
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    return centre - half, centre + half


def rate(wins: int, n: int) -> str:
    low, high = wilson(wins, n)
    return f"{wins}/{n} = {wins / n if n else float('nan'):.1%} (95% CI {low:.1%} - {high:.1%})"


def percentile(sorted_values: list[float], q: float) -> float:
    """Nearest-rank percentile of an already sorted list."""
    if not sorted_values:
        return float("nan")
    rank = max(math.ceil(q / 100 * len(sorted_values)), 1)
    return sorted_values[rank - 1]


def run_matches(
    pool: ProcessPool | None, strong: str, weak: str, matches: int, prefix: str, keep: int
) -> tuple[list[MatchResult], float]:
    started = time.perf_counter()
    jobs = [(i, strong, weak, prefix, keep) for i in range(matches)]
    results: list[MatchResult] = []
    for result in pool.imap(play_match, jobs) if pool else map(play_match, jobs):
        results.append(result)
        if len(results) % PROGRESS == 0 and len(results) < matches:  # a long run shows its way
            wins = sum(r.winner == r.strong_seat for r in results)
            print(
                f"  ... {strong} vs {weak}: {rate(wins, len(results))} after "
                f"{time.perf_counter() - started:.0f} s",
                flush=True,
            )
    return results, time.perf_counter() - started


def report(
    strong: str, weak: str, results: list[MatchResult], seconds: float, workers: int
) -> float:
    """Prints the win rate and its details; returns the strong level's win rate."""
    n = len(results)
    wins = sum(r.winner == r.strong_seat for r in results)
    print(
        f"\n{strong} vs {weak}: {n} matches ({n // 2} pairs, seats swapped) in "
        f"{seconds:.0f} s with {workers} worker(s), "
        f"{sum(r.hands for r in results) / n:.2f} hands and "
        f"{sum(r.moves for r in results) / n:.0f} moves per match"
    )
    print(f"  {strong} wins {rate(wins, n)}")
    for seat in (0, 1):
        games = [r for r in results if r.strong_seat == seat]
        seat_wins = sum(r.winner == seat for r in games)
        print(f"  {strong} in seat {seat}: {rate(seat_wins, len(games))}")
    by_pair: dict[int, int] = {}
    for r in results:
        by_pair[r.index // 2] = by_pair.get(r.index // 2, 0) + (r.winner == r.strong_seat)
    split = [sum(1 for v in by_pair.values() if v == k) for k in (2, 1, 0)]
    print(f"  pairs: won both {split[0]}, one each {split[1]}, lost both {split[2]}")
    margin = sum(r.scores[r.strong_seat] - r.scores[1 - r.strong_seat] for r in results) / n
    print(f"  mean final score margin {margin:+.1f}")
    return wins / n if n else 0.0


def timing(level: str, results: list[MatchResult]) -> tuple[float, float]:
    """Prints a level's decision times; returns its wall p50 and p99 in seconds."""
    found = (float("nan"), float("nan"))
    for part, what in (("", "wall"), (" cpu", "CPU time")):
        times = sorted(t for r in results for t in r.times.get(level + part, []))
        if not times:
            continue
        p50, p99 = percentile(times, 50), percentile(times, 99)
        if not part:
            found = (p50, p99)
        print(
            f"  decision time {level} ({what}, {len(times)} decisions, view + legal_moves + "
            f"choose): p50 {p50 * 1000:.1f} ms, p99 {p99 * 1000:.1f} ms, "
            f"max {times[-1] * 1000:.0f} ms, mean {sum(times) / len(times) * 1000:.1f} ms"
        )
    return found


def random_match(seed: int) -> int:
    rng = random.Random(seed)
    match = Match.new(f"random-{seed}")
    while not match.finished:
        match, _ = match.play(rng.choice(legal_moves(match.position)))
    return match.move_count


def time_legal_moves(positions: list[Position], min_seconds: float) -> float:
    calls = 0
    start = time.perf_counter()
    while True:
        for position in positions:
            legal_moves(position)
        calls += len(positions)
        elapsed = time.perf_counter() - start
        if elapsed >= min_seconds:
            return calls / elapsed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--matches", type=int, default=400, help="matches per pairing (rounded up to pairs)"
    )
    parser.add_argument(
        "--normal-matches",
        type=int,
        default=None,
        help="Normal vs Fácil matches (default: --matches)",
    )
    parser.add_argument("--workers", type=int, default=2, help="processes for the matches")
    parser.add_argument("--prefix", default="selfplay", help="deck seed prefix")
    parser.add_argument(
        "--agreement",
        type=int,
        default=200,
        help="Difícil positions compared with the ten-times-longer search",
    )
    parser.add_argument(
        "--skip",
        choices=["dificil", "normal"],
        action="append",
        default=[],
        help="leave a pairing out",
    )
    parser.add_argument(
        "--random-matches",
        type=int,
        default=50,
        help="random-play matches for the engine throughput",
    )
    parser.add_argument(
        "--against",
        choices=["normal", "searcher"],
        default="normal",
        help="Difícil's opponent: Normal, or benchmarks/searcher.py (0.2 s of CPU a move)",
    )
    parser.add_argument("--strict", action="store_true", help="exit 1 if a goal is missed")
    args = parser.parse_args(argv)
    matches = args.matches + args.matches % 2
    normal_matches = args.normal_matches if args.normal_matches is not None else matches
    normal_matches += normal_matches % 2

    goals: list[tuple[str, bool]] = []
    pool = Pool(args.workers) if args.workers > 1 else None
    try:
        engine_positions: list[Position] = []
        if "normal" not in args.skip:
            results, seconds = run_matches(pool, "normal", "facil", normal_matches, args.prefix, 40)
            won = report("normal", "facil", results, seconds, args.workers)
            _, normal_p99 = timing("normal", results)
            timing("facil", results)
            goals += [
                (
                    f"Normal wins >= {GOALS['normal_vs_facil']:.0%} against Fácil",
                    won >= GOALS["normal_vs_facil"],
                ),
                (
                    f"Normal p99 <= {GOALS['normal_p99_s'] * 1000:.0f} ms",
                    normal_p99 <= GOALS["normal_p99_s"],
                ),
            ]
            engine_positions = [p for r in results for p in r.positions]
        if "dificil" not in args.skip:
            keep = max(4, args.agreement // 8)  # matches whose positions are kept
            weak = args.against
            results, seconds = run_matches(pool, "dificil", weak, matches, args.prefix, keep)
            won = report("dificil", weak, results, seconds, args.workers)
            p50, p99 = timing("dificil", results)
            timing(weak, results)
            goal = GOALS[f"dificil_vs_{weak}"]
            goals += [
                (f"Difícil wins >= {goal:.0%} against {weak}", won >= goal),
                (f"Difícil p50 <= {GOALS['dificil_p50_s']} s", p50 <= GOALS["dificil_p50_s"]),
                (f"Difícil p99 <= {GOALS['dificil_p99_s']} s", p99 <= GOALS["dificil_p99_s"]),
            ]
            positions = [p for r in results for p in r.positions]
            picked = random.Random("agreement").sample(
                positions, min(args.agreement, len(positions))
            )
            if picked:
                jobs = [(p, f"agree-{i}") for i, p in enumerate(picked)]
                checks = pool.map(agree, jobs, chunksize=1) if pool else [agree(j) for j in jobs]
                same = sum(c[0] for c in checks)
                last = [c for c in checks if c[1]]
                before = [c for c in checks if not c[1]]
                print(f"\nDifícil agrees with a search {LONGER}x longer: {rate(same, len(checks))}")
                print(
                    f"  before the last deal: {rate(sum(c[0] for c in before), len(before))}; "
                    f"in the last deal (exact solver, both): "
                    f"{rate(sum(c[0] for c in last), len(last))}"
                )
    finally:
        if pool is not None:
            pool.close()
            pool.join()

    if engine_positions:
        per_second = time_legal_moves(engine_positions, 2.0)
        print(
            f"\nlegal_moves: {per_second:,.0f} positions/s over {len(engine_positions)} "
            "positions of Normal's games"
        )
        goals.append(("legal_moves >= 20,000/s", per_second >= GOALS["legal_moves_per_s"]))
    if args.random_matches:
        start = time.perf_counter()
        total_moves = sum(random_match(seed) for seed in range(args.random_matches))
        elapsed = time.perf_counter() - start
        print(
            f"Random play: {args.random_matches / elapsed:.1f} matches/s "
            f"({total_moves / elapsed:,.0f} moves/s, one process)"
        )
    load = os.getloadavg()
    print(
        f"Load average at the end: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} on "
        f"{os.cpu_count()} CPUs (wall times suffer when it exceeds the CPUs)"
    )
    for name, ok in goals:
        print(f"  [{'ok' if ok else 'MISSED'}] {name}")
    return 1 if args.strict and not all(ok for _, ok in goals) else 0


if __name__ == "__main__":
    sys.exit(main())
