"""Difícil's four-player decisions against a reference search: a low-variance yardstick.

Paired matches (benchmarks/four.py) cannot tell a +6% change of Difícil's four-player
strength from noise in fewer than several hundred matches. This measures decisions
instead:

1. **Points.** Four-player Difícil-vs-Normal matches (four.py's decks, seats and seeds)
   are played and every ``--every``-th decision of a Difícil seat with more than one legal
   move is kept: the seat's ``View``, its legal moves and the plays of the hand it saw
   (``seen``), up to ``--points``.
2. **Reference.** Each point's legal moves (all of them, up to ``--ref-moves`` in
   Normal's order) are valued by Difícil's own search with a much bigger budget:
   ``--ref-worlds`` sampled worlds, every move in the same worlds with the same rollout
   seeds, rollouts with main's rollout Normal. Points and references are cached under
   ``--cache`` (not committed): the first run takes a while, the next ones only play the
   variants.
3. **Variants.** Each variant (a ``Tuning``) chooses a move at every point, ``--seeds``
   times with different rngs; its score is the mean **regret** (the reference value of
   the reference's best move minus that of the move chosen, in chances of winning the
   match) and its CPU per decision (``time.process_time``), side by side with main's
   Tuning in the same process (compare CPU as ratios: the machine is shared). Also
   printed: how often the reference's best move is outside Normal's top 5 (the candidates
   cut wrongly).

    nice -n 10 .venv/bin/python benchmarks/dificil_regret.py --points 200
    nice -n 10 .venv/bin/python benchmarks/dificil_regret.py --variants main,shipped,worlds2

``main`` is the four-player search as it was before this yardstick, ``shipped`` the
Tuning of the code (see ``variants``).
"""

from __future__ import annotations

import argparse
import pickle
import random
import statistics
import sys
import time
from dataclasses import dataclass, replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from server.ai import LEVELS  # noqa: E402
from server.ai.dificil import Dificil, Tuning, _unseen  # noqa: E402
from server.ai.inference import Inference, Seen  # noqa: E402
from server.engine import Match, Move, View, legal_moves, view_for  # noqa: E402
from server.engine.seats import others, team_of  # noqa: E402

FOUR = 4
PREFIX = "four-dificil-normal"  # four.py's deck seeds for Difícil against Normal


@dataclass
class Point:
    view: View
    moves: list[Move]
    seen: tuple[Seen, ...]
    name: str  # match index and play number: the rng seed of every choice here


@dataclass
class Reference:
    values: dict[Move, float]  # mean chance of winning the match over the reference worlds
    normal_rank: dict[Move, int]  # the move's place in Normal's order (0 = best)


def collect(count: int, every: int, first_match: int) -> list[Point]:
    """Difícil's decisions in four-player Difícil-vs-Normal matches (as four.py plays
    them), every ``every``-th with a choice, up to ``count``."""
    points: list[Point] = []
    index = first_match
    met = 0
    while len(points) < count:
        pair, strong_team = divmod(index, 2)
        rngs = [random.Random(f"{pair}:{seat}") for seat in range(FOUR)]
        match = Match.new(f"{PREFIX}-{pair}", FOUR)
        seen: list[Seen] = []
        hand_number = match.hand_number
        play = 0
        while not match.finished and len(points) < count:
            position = match.position
            seat = position.turn
            if match.hand_number != hand_number:
                seen, hand_number = [], match.hand_number
            view = view_for(position, seat)
            moves = legal_moves(view.as_position())
            if team_of(seat) == strong_team:
                if len(moves) > 1:
                    if met % every == 0:
                        points.append(Point(view, moves, tuple(seen), f"{index}:{play}"))
                    met += 1
                move = LEVELS["dificil"].choose(view, moves, rngs[seat], seen)  # type: ignore[call-arg]
            else:
                move = LEVELS["normal"].choose(view, moves, rngs[seat])
            seen.append(Seen(seat, position.cards, position.piles, len(position.deck), move))
            match, _ = match.play(move)
            play += 1
        index += 1
        print(f"  match {index - 1}: {len(points)} points", file=sys.stderr)
    return points


def reference(point: Point, worlds: int, max_moves: int) -> Reference:
    """Every move (up to ``max_moves`` in Normal's order) valued over ``worlds`` worlds."""
    # the rollouts of two players (4 hands drawn by the rollout Normal), whatever the
    # shipped four-player ones are
    searcher = Dificil(replace(Tuning(), four_rollout=None))
    view = point.view
    rng = random.Random(f"ref:{point.name}")
    ranked = [m for m, _ in searcher.judge.ranked(view, point.moves, random.Random(point.name))]
    first = set(ranked)
    ordered = (ranked + [m for m in point.moves if m not in first])[:max_moves]
    inference = {
        s: Inference(view, point.seen, searcher.estimate.model, s)
        for s in others(view.seat, view.seat_count)
    }
    values = searcher._values(view, _unseen(view), ordered, worlds, inference, rng)
    return Reference(
        {m: sum(v) / len(v) for m, v in zip(ordered, values, strict=True)},
        {m: i for i, m in enumerate(ranked)},
    )


def variants() -> dict[str, Tuning]:
    """Named Tunings to score (``--variants``)."""
    # main's settings before this yardstick (2026-12-04): four-player rollouts with the
    # two-player rollout Normal (4 hands drawn), 0.7 of the worlds
    main = replace(Tuning(), four_share=0.7, four_rollout=None)
    roll = main.rollout
    share = main.four_share

    def four(w: float = 1.0, **rollout: int) -> Tuning:
        return replace(main, four_share=share * w, four_rollout=replace(roll, **rollout))

    return {
        "main": main,
        "shipped": Tuning(),
        "s1_share1": replace(Tuning(), four_share=1.0),
        # fifth pass: the shipped tuning before it (0.9 of the worlds, no cap on the plays)
        "fourth": replace(Tuning(), four_share=0.9, four_plays=0),
        # fourth pass: the rollouts 0.7x the CPU (same moves), their savings spent on worlds
        "share12": replace(Tuning(), four_share=1.2),
        "share13": replace(Tuning(), four_share=1.3),
        "share15": replace(Tuning(), four_share=1.5),
        "worlds2": replace(main, four_share=share * 2),
        "worlds4": replace(main, four_share=share * 4),
        "half": replace(main, four_share=share / 2),
        "cand3": replace(main, four_candidates=3),
        "cand8": replace(main, four_candidates=8),
        "cand8w2": replace(main, four_candidates=8, four_share=share * 2),
        "noextra": replace(main, extra_samples=0),
        "extra2": replace(main, extra_samples=24),
        "stretch1": replace(main, four_stretch=1.0),
        "roll_s2": four(samples=2),
        "roll_s1": four(samples=1),
        "roll_s1w2": four(2, samples=1),
        "roll_c6": four(max_candidates=6, min_builds=2),
        "roll_c4": four(max_candidates=4, min_builds=1),
        "roll_c4s1": four(max_candidates=4, min_builds=1, samples=1),
        "roll_c4s1w2": four(2, max_candidates=4, min_builds=1, samples=1),
        "roll_c6s2w15": four(1.5, max_candidates=6, min_builds=2, samples=2),
        "roll_s2w15": four(1.5, samples=2),
        "roll_s1w15": four(1.5, samples=1),
        "roll_s1w25": four(2.5, samples=1),
        "roll_c4s1w15": four(1.5, max_candidates=4, min_builds=1, samples=1),
        "roll_c4s1w25": four(2.5, max_candidates=4, min_builds=1, samples=1),
    }


def score(
    tuning: Tuning, points: list[Point], refs: list[Reference], seeds: int
) -> tuple[float, float, float, float, int]:
    """Mean regret, mean and p99 CPU seconds, the share of choices the reference holds no
    value for (outside ``--ref-moves``: counted as the worst reference value), and n."""
    player = Dificil(tuning)
    regrets: list[float] = []
    cpu: list[float] = []
    missing = 0
    for point, ref in zip(points, refs, strict=True):
        best = max(ref.values.values())
        worst = min(ref.values.values())
        for s in range(seeds):
            rng = random.Random(f"{point.name}:{s}")
            start = time.process_time()
            move = player.choose(point.view, point.moves, rng, point.seen)
            cpu.append(time.process_time() - start)
            value = ref.values.get(move)
            if value is None:
                missing += 1
                value = worst
            regrets.append(best - value)
    ordered = sorted(cpu)
    p99 = ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]
    return (
        statistics.fmean(regrets),
        statistics.fmean(cpu),
        p99,
        missing / len(regrets),
        len(regrets),
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--points", type=int, default=200)
    parser.add_argument("--every", type=int, default=7, help="keep every n-th decision")
    parser.add_argument("--first-match", type=int, default=1000, help="a match index")
    parser.add_argument("--ref-worlds", type=int, default=96)
    parser.add_argument("--ref-moves", type=int, default=12)
    parser.add_argument("--seeds", type=int, default=2, help="choices per point and variant")
    parser.add_argument("--variants", default="main,shipped,worlds2")
    parser.add_argument("--cache", default="/tmp/dificil_regret")
    args = parser.parse_args()

    cache = Path(args.cache)
    cache.mkdir(parents=True, exist_ok=True)
    key = f"p{args.points}-e{args.every}-m{args.first_match}"
    points_file = cache / f"points-{key}.pickle"
    if points_file.exists():
        points: list[Point] = pickle.loads(points_file.read_bytes())
    else:
        start = time.perf_counter()
        points = collect(args.points, args.every, args.first_match)
        points_file.write_bytes(pickle.dumps(points))
        print(f"{len(points)} points collected in {time.perf_counter() - start:.0f} s")
    refs_file = cache / f"refs-{key}-w{args.ref_worlds}-k{args.ref_moves}.pickle"
    if refs_file.exists():
        refs: list[Reference] = pickle.loads(refs_file.read_bytes())
    else:
        start = time.process_time()
        refs = []
        for n, point in enumerate(points):
            refs.append(reference(point, args.ref_worlds, args.ref_moves))
            if n % 20 == 19:
                print(f"  {n + 1} references", file=sys.stderr)
        refs_file.write_bytes(pickle.dumps(refs))
        print(f"{len(refs)} references in {time.process_time() - start:.0f} s of CPU")

    outside = [
        r for r in refs if r.normal_rank.get(max(r.values, key=r.values.__getitem__), 99) >= 5
    ]
    spread = statistics.fmean(max(r.values.values()) - min(r.values.values()) for r in refs)
    print(
        f"{len(points)} points, {statistics.fmean(len(p.moves) for p in points):.1f} legal "
        f"moves on average; the reference's best outside Normal's top 5: {len(outside)} "
        f"({len(outside) / len(refs):.0%}); mean best-worst spread {spread:.4f}"
    )
    loss5 = statistics.fmean(
        max(r.values.values()) - max(v for m, v in r.values.items() if r.normal_rank.get(m, 99) < 5)
        for r in refs
    )
    loss1 = statistics.fmean(
        max(r.values.values()) - max(v for m, v in r.values.items() if r.normal_rank.get(m) == 0)
        if any(r.normal_rank.get(m) == 0 for m in r.values)
        else 0.0
        for r in refs
    )
    print(f"regret of the best of Normal's top 5 (a perfect searcher's): {loss5:.4f}")
    print(f"regret of Normal's first move: {loss1:.4f}")

    table = variants()
    base_cpu = None
    for name in args.variants.split(","):
        regret, cpu, p99, missing, n = score(table[name], points, refs, args.seeds)
        if base_cpu is None:
            base_cpu = cpu
        print(
            f"{name:12s} regret {regret:.4f}  CPU mean {cpu * 1000:6.1f} ms "
            f"({cpu / base_cpu:.2f}x the first)  p99 {p99:.3f} s  "
            f"outside the reference {missing:.1%}  (n {n})",
            flush=True,
        )


if __name__ == "__main__":
    main()
