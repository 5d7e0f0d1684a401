"""Fits Difícil's deal-end estimate and opponent model from Normal's self-play (issue 19).

    nice -n 10 .venv/bin/python scripts/fit_dealend.py --matches 600 --workers 2
    nice -n 10 .venv/bin/python scripts/fit_dealend.py --seats 4 --matches 2000 --workers 2

Plays seeded Normal-against-Normal matches (Normal is the policy of Difícil's rollouts and
its model of the opponent) and measures:

- at the end of every deal but the last (where the rollouts stop), by the number of deals
  still to play and who captured last: the share of the cards not yet captured that the
  dealer ends the hand with, of the spades, of the 10♦, 2♠ and aces, and how often the
  dealer / the other player makes more of the hand's remaining limpias;
- how much a card of the hand that could have captured lowers the chance that Normal
  trails (``trail_with_capture``), and how often Normal, holding a card that sweeps the
  table, plays something else (``missed_limpia``): the factors of ``inference.Model``.

Writes server/ai/dealend.json (``--out``), which ``server.ai.dealend`` loads. With
``--seats 4`` it plays four-player Normal matches and measures the same shares per team (the
dealer's team and the other; a four-player deal is 16 cards, so 1 or 2 deals are still to
play at a deal's end): they replace the file's ``four`` section only, the two-player shares
and the model's factors are kept as they are.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections import defaultdict
from multiprocessing import Pool
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from server.ai import LEVELS  # noqa: E402
from server.ai.dealend import FIELDS, PATH  # noqa: E402
from server.engine import Card, Match, Position, legal_moves, view_for  # noqa: E402
from server.engine.cards import TEN_OF_DIAMONDS, TWO_OF_SPADES  # noqa: E402
from server.engine.moves import Table, capture_masks  # noqa: E402
from server.engine.scoring import ACE_ORDER  # noqa: E402
from server.engine.seats import team_of  # noqa: E402

POINT_CARDS = frozenset((TEN_OF_DIAMONDS, TWO_OF_SPADES, *ACE_ORDER))
Key = str  # "deals_left:last"
# per key: sums of [cards to dealer, cards, spades to dealer, spades, points to dealer,
# points, dealer more limpias, other more limpias, deal ends]
Sums = dict[Key, list[float]]
# trails by capturing cards held (0, 1), decisions with a sweep held / sweeps not made
Counts = list[int]


def _last(position: Position) -> str:
    if position.last_capturer is None:
        return "nobody"
    return "dealer" if team_of(position.last_capturer) == team_of(position.dealer) else "other"


def _remaining(position: Position) -> frozenset[Card]:
    taken = set(position.captured[0]) | set(position.captured[1])
    held = (*(c for hand in position.hands for c in hand), *position.cards, *position.deck)
    on_piles = (card for pile in position.piles for card in pile.cards)
    return frozenset(c for c in (*held, *on_piles) if c not in taken)


def _capturing(position: Position) -> tuple[int, bool]:
    """How many cards of the hand of the seat to move would capture something, and
    whether one of them would sweep the table."""
    table = Table(position.cards, position.piles)
    everything = (1 << len(table.items)) - 1
    count, sweep = 0, False
    for card in position.hands[position.turn]:
        masks = capture_masks(table, card)
        if masks:
            count += 1
            sweep = sweep or everything in masks
    return count, sweep


def play(job: tuple[int, int]) -> tuple[Sums, Counts]:
    pair, seat_count = job
    sums: Sums = defaultdict(lambda: [0.0] * 9)
    counts = [0] * 8  # decisions/trails with 0 capturers, with 1; sweep held / not made
    normal = LEVELS["normal"]
    if seat_count == 2:  # the seeds of the two-player fit, as before
        match = Match.new(f"fit-dealend-{pair}")
    else:
        match = Match.new(f"fit-dealend-{seat_count}-{pair}", seat_count)
    rngs = [random.Random(f"fit:{pair}:{seat}") for seat in range(seat_count)]
    deal_cards = 4 * seat_count
    snapshots: list[tuple[Key, frozenset[Card], int, tuple[int, int]]] = []
    while not match.finished:
        position = match.position
        view = view_for(position, position.turn)
        moves = legal_moves(view.as_position())
        move = normal.choose(view, moves, rngs[position.turn])
        capturers, sweep = _capturing(position)
        if capturers <= 1:
            counts[2 * capturers] += 1
            counts[2 * capturers + 1] += move.kind == "trail"
        if sweep:
            counts[4] += 1
            table_items = len(position.cards) + len(position.piles)
            counts[5] += not (move.kind == "capture" and len(move.take) == table_items)
        match_after, step = match.play(move)
        if step.dealt:
            after = step.position
            deals_left = len(after.deck) // deal_cards + 1
            snapshots.append(
                (f"{deals_left}:{_last(after)}", _remaining(after), after.dealer, after.limpias)
            )
        if step.result is not None:
            end = step.position
            dealer = team_of(end.dealer)
            for key, remaining, snap_dealer, limpias in snapshots:
                assert team_of(snap_dealer) == dealer
                mine = set(end.captured[dealer])
                for row in (sums[key], sums[key.split(":")[0] + ":any"]):
                    _count(row, remaining, mine, end.limpias, limpias, dealer)
            snapshots = []
        match = match_after
    return dict(sums), counts


def _count(
    row: list[float],
    remaining: frozenset[Card],
    mine: set[Card],
    end_limpias: tuple[int, int],
    limpias: tuple[int, int],
    dealer: int,
) -> None:
    """Adds one deal end to ``row`` (see ``Sums``)."""
    row[0] += sum(1 for c in remaining if c in mine)
    row[1] += len(remaining)
    row[2] += sum(1 for c in remaining if c in mine and c.suit == "s")
    row[3] += sum(1 for c in remaining if c.suit == "s")
    row[4] += sum(1 for c in remaining if c in mine and c in POINT_CARDS)
    row[5] += sum(1 for c in remaining if c in POINT_CARDS)
    more_dealer = end_limpias[dealer] - limpias[dealer]
    more_other = end_limpias[1 - dealer] - limpias[1 - dealer]
    row[6] += more_dealer > more_other
    row[7] += more_other > more_dealer
    row[8] += 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=600)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--min-ends", type=int, default=30, help="deal ends a row needs")
    parser.add_argument("--out", type=Path, default=PATH)
    parser.add_argument("--seats", type=int, choices=(2, 4), default=2)
    args = parser.parse_args(argv)
    totals: Sums = defaultdict(lambda: [0.0] * 9)
    counts = [0] * 8
    with Pool(args.workers) as pool:
        jobs = [(pair, args.seats) for pair in range(args.matches)]
        for sums, found in pool.imap_unordered(play, jobs, chunksize=4):
            for key, row in sums.items():
                totals[key] = [a + b for a, b in zip(totals[key], row, strict=True)]
            counts = [a + b for a, b in zip(counts, found, strict=True)]
    shares: dict[str, dict[str, float]] = {}
    for key in sorted(totals):
        row = totals[key]
        if row[8] < args.min_ends:
            continue
        values = (
            row[0] / row[1] if row[1] else 0.5,
            row[2] / row[3] if row[3] else 0.5,
            row[4] / row[5] if row[5] else 0.5,
            row[6] / row[8],
            row[7] / row[8],
        )
        shares[key] = {name: round(v, 4) for name, v in zip(FIELDS, values, strict=True)}
        print(f"{key:9} {int(row[8]):6} deal ends: " + ", ".join(
            f"{name} {v:.3f}" for name, v in zip(FIELDS, values, strict=True)
        ))  # fmt: skip
    trail0 = counts[1] / counts[0] if counts[0] else 1.0
    trail1 = counts[3] / counts[2] if counts[2] else 1.0
    trail = min(max(trail1 / trail0 if trail0 else 1.0, 0.01), 1.0)
    missed = min(max(counts[5] / counts[4] if counts[4] else 1.0, 0.01), 1.0)
    print(
        f"Normal trails {trail0:.3f} of its decisions holding no capturing card, {trail1:.3f} "
        f"holding one: trail_with_capture {trail:.3f}; a sweep held is not made "
        f"{counts[5]}/{counts[4]}: missed_limpia {missed:.3f}"
    )
    about = "scripts/fit_dealend.py: " + " ".join(sys.argv[1:])
    if args.seats == 4:
        data = json.loads(args.out.read_text()) if args.out.exists() else {}
        data["four"] = {"about": about, "matches": args.matches, "shares": shares}
    else:
        data = {
            "about": about,
            "matches": args.matches,
            "shares": shares,
            "model": {"trail_with_capture": round(trail, 4), "missed_limpia": round(missed, 4)},
        }
        old = json.loads(args.out.read_text()) if args.out.exists() else {}
        if "four" in old:  # the four-player section is fitted apart
            data["four"] = old["four"]
    args.out.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
