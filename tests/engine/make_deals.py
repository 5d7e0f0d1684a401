"""Writes the fixed deals of seeds/deals/: whole matches as a seed and its moves, with the
result of every hand. Run it only to add a deal (the files are the test's expectations):

    .venv/bin/python -m tests.engine.make_deals
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from server.engine import Match, Move, legal_moves

DEALS = Path(__file__).resolve().parents[2] / "seeds" / "deals"


def random_player(rng: random.Random, match: Match) -> Move:
    return rng.choice(legal_moves(match.position))


def ai_player(level: str) -> Any:
    from server.ai import choose_for_position

    def choose(rng: random.Random, match: Match) -> Move:
        return choose_for_position(level, match.position, rng.randrange(1 << 30))

    return choose


def record(name: str, seed: str, players: tuple[str, ...], description: str) -> None:
    """``players``: one level (or "random") per seat: two seats, or four (RULES.md 9)."""
    rng = random.Random(seed)
    choosers = [random_player if p == "random" else ai_player(p) for p in players]
    match = Match.new(seed, len(players))
    moves: list[Move] = []
    while not match.finished:
        move = choosers[match.position.turn](rng, match)
        moves.append(move)
        match, _ = match.play(move)
    data: dict[str, Any] = {
        "description": description,
        "seed": seed,
        "players": list(players),
        "moves": [m.to_json() for m in moves],
        "hands": [r.to_json() for r in match.results],
        "final": {"scores": list(match.scores), "winner": match.winner},
    }
    if len(players) != 2:
        data["seats"] = len(players)
    DEALS.mkdir(parents=True, exist_ok=True)
    text = json.dumps(data, ensure_ascii=False, indent=None, separators=(",", ":"))
    (DEALS / f"{name}.json").write_text(text + "\n", encoding="utf-8")


def main(only: str | None = None) -> None:
    if only == "four":
        record_four()
        return
    record(
        "random-vs-random-1",
        "deal-one",
        ("random", "random"),
        "Both seats play uniformly random legal moves.",
    )
    record(
        "random-vs-random-2",
        "deal-two",
        ("random", "random"),
        "Both seats play uniformly random legal moves.",
    )
    record(
        "facil-vs-random",
        "deal-three",
        ("facil", "random"),
        "Seat 0 plays as Fácil, seat 1 at random.",
    )
    record("facil-vs-facil", "deal-four", ("facil", "facil"), "Two Fácil players.")
    record(
        "normal-vs-facil",
        "deal-five",
        ("normal", "facil"),
        "Seat 0 plays as Normal (it builds and raises), seat 1 as Fácil.",
    )


def record_four() -> None:
    record(
        "four-normal-vs-facil",
        "deal-six",
        ("normal", "facil", "normal", "facil"),
        "Four players: seats 0 and 2 (team 0) play as Normal, seats 1 and 3 as Fácil.",
    )
    record(
        "four-random",
        "deal-seven",
        ("random", "random", "random", "random"),
        "Four players, every seat playing uniformly random legal moves.",
    )


if __name__ == "__main__":
    import sys

    main(sys.argv[1] if len(sys.argv) > 1 else None)
