"""The browser's Normal against the server's Normal (issue 18: even, 45-55%, over 400
paired matches).

    nice -n 19 .venv/bin/python benchmarks/js_normal_even.py --matches 400 --workers 2

Matches are played in pairs on the same deck seed with the seats swapped: match ``2k``
puts the browser's Normal (client/js/ai/normal.js, through scripts/oracle-js) in seat 0,
match ``2k + 1`` in seat 1, on deck seed ``{prefix}-{k}``; the server's Normal
(server/ai/normal.py) plays the other seat in this process. Both are handed the same seed
for each decision (they draw from it with different generators). As a baseline beside it
(``--baseline``), the same deals with the server's Normal in both seats, the seat under test
drawing from another seed: two equal players whose random draws differ, as the browser's and
the server's do.

Prints the browser's match win rate with its 95% Wilson interval, per seat, how the pairs
split, the mean final score margin, and each side's decision time.
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time
from multiprocessing import Pool
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a script: the repository root

from server.ai import choose_for_position  # noqa: E402
from server.engine import Match, Move  # noqa: E402
from tests.engine.oracles import Oracle, oracle  # noqa: E402

GOAL = (0.45, 0.55)

_js: Oracle | None = None


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


def js_oracle() -> Oracle:
    global _js
    if _js is None:
        _js = oracle("js")
    return _js


def play_match(
    args: tuple[int, str, bool],
) -> tuple[int, int, int, tuple[int, int], list[float], list[float]]:
    """Match ``index``: pair ``index // 2``, the browser's Normal in seat ``index % 2`` (or,
    for the baseline, the server's Normal there too, drawing from other seeds). Returns
    (index, seat, winner, scores, the seat under test's decision times, the other's)."""
    index, prefix, baseline = args
    pair, seat = divmod(index, 2)
    match = Match.new(f"{prefix}-{pair}")
    count = 0
    times: tuple[list[float], list[float]] = ([], [])
    while not match.finished:
        position = match.position
        seed = f"{pair}:{position.turn}:{count}"
        count += 1
        start = time.perf_counter()
        if position.turn == seat and not baseline:
            request = {
                "op": "choose",
                "level": "normal",
                "position": position.to_json(),
                "seed": seed,
            }
            move = Move.from_json(js_oracle().ask(request)["move"])
            times[0].append(time.perf_counter() - start)
        else:
            mine = baseline and position.turn == seat
            move = choose_for_position("normal", position, f"{seed}/other" if mine else seed)
            times[position.turn != seat].append(time.perf_counter() - start)
        match, _ = match.play(move)
    assert match.winner is not None
    return index, seat, match.winner, match.scores, times[0], times[1]


def report(
    title: str, results: list[tuple[int, int, int, tuple[int, int], list[float], list[float]]]
) -> float:
    n = len(results)
    wins = sum(1 for _, seat, winner, *_ in results if winner == seat)
    print(f"{title}: the seat under test won {rate(wins, n)}")
    for s in (0, 1):
        mine = [r for r in results if r[1] == s]
        print(f"  in seat {s}: {rate(sum(1 for r in mine if r[2] == s), len(mine))}")
    by_pair: dict[int, int] = {}
    for index, seat, winner, *_ in results:
        by_pair[index // 2] = by_pair.get(index // 2, 0) + (winner == seat)
    split = [sum(1 for v in by_pair.values() if v == k) for k in (2, 1, 0)]
    print(f"  pairs won both / one each / lost both: {split[0]} / {split[1]} / {split[2]}")
    margins = [r[3][r[1]] - r[3][1 - r[1]] for r in results]
    print(f"  mean final score margin: {statistics.fmean(margins):+.2f}")
    for label, k in (("seat under test", 4), ("the server's Normal", 5)):
        times = sorted(t for r in results for t in r[k])
        if times:
            p99 = times[min(len(times) - 1, int(0.99 * len(times)))]
            print(
                f"  {label} decision (wall, the browser's through its pipe): "
                f"p50 {statistics.median(times) * 1000:.1f} ms, p99 {p99 * 1000:.1f} ms"
            )
    return wins / n if n else float("nan")


def run(
    matches: int, workers: int, prefix: str, baseline: bool
) -> list[tuple[int, int, int, tuple[int, int], list[float], list[float]]]:
    jobs = [(i, prefix, baseline) for i in range(matches)]
    if workers <= 1:
        return [play_match(job) for job in jobs]
    with Pool(workers) as pool:
        return sorted(pool.imap_unordered(play_match, jobs, chunksize=4))


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--matches", type=int, default=400, help="matches (even: pairs)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--prefix", default="even")
    parser.add_argument(
        "--baseline", action="store_true", help="also the server's Normal against itself"
    )
    args = parser.parse_args()
    matches = args.matches + args.matches % 2
    start = time.perf_counter()
    share = report(
        "browser's Normal vs server's Normal", run(matches, args.workers, args.prefix, False)
    )
    if args.baseline:
        report(
            "baseline, server's Normal vs server's Normal",
            run(matches, args.workers, args.prefix, True),
        )
    low, high = wilson(round(share * matches), matches)
    verdict = "even" if GOAL[0] <= share <= GOAL[1] else "NOT even"
    print(
        f"goal {GOAL[0]:.0%}-{GOAL[1]:.0%}: {share:.1%} ({verdict}; the interval {low:.1%} - "
        f"{high:.1%} says how sure); {time.perf_counter() - start:.0f} s"
    )


if __name__ == "__main__":
    main()
