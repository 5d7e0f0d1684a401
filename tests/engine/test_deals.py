"""Fixed deals (seeds/deals/*.json): whole matches as a seed and their moves. Replaying them
must give the recorded hands and final scores, and every hand is scored again here, apart
from the engine, straight from RULES.md 6."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from server.engine import DECK, Card, Match, Move, Position

DEALS = sorted((Path(__file__).resolve().parents[2] / "seeds" / "deals").glob("*.json"))


def load(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def rescore(finished: Position) -> tuple[list[list[int]], list[int], int | None]:
    """RULES.md 6, read again: the points by category (after the 18-points rule), and the
    scores counted in category order (aces one by one, ♠ ♣ ♥ ♦) up to the first 21."""
    start = finished.scores
    late = [start[p] >= 18 for p in (0, 1)]
    points = [[0] * 6 for _ in (0, 1)]
    events: list[tuple[int, int]] = []  # (player, points), in counting order

    def give(player: int, category: int, amount: int) -> None:
        if amount and not (late[player] and category >= 3):
            points[player][category] += amount
            events.append((player, amount))

    taken = [Counter(finished.captured[p]) for p in (0, 1)]
    for p in (0, 1):
        give(p, 0, 3 if sum(taken[p].values()) > 26 else 0)
    for p in (0, 1):
        give(p, 1, 1 if sum(n for c, n in taken[p].items() if c.suit == "s") >= 7 else 0)
    for p in (0, 1):
        give(p, 2, 2 if taken[p][Card.parse("10d")] else 0)
    for p in (0, 1):
        give(p, 3, 1 if taken[p][Card.parse("2s")] else 0)
    for suit in "schd":
        for p in (0, 1):
            give(p, 4, 1 if taken[p][Card.parse("A" + suit)] else 0)
    difference = finished.limpias[0] - finished.limpias[1]
    give(0 if difference > 0 else 1, 5, abs(difference))

    scores = list(start)
    for player, amount in events:
        scores[player] += amount
        if scores[player] >= 21:
            return points, scores, player
    return points, scores, None


def test_there_are_fixed_deals() -> None:
    assert len(DEALS) >= 4


@pytest.mark.parametrize("path", DEALS, ids=[p.stem for p in DEALS])
def test_a_fixed_deal_replays_to_its_recorded_result(path: Path) -> None:
    deal = load(path)
    moves = [Move.from_json(m) for m in deal["moves"]]
    match = Match.new(deal["seed"])
    hands: list[dict[str, Any]] = []
    for move in moves:
        assert not match.finished
        match, step = match.play(move)
        if step.result is None:
            continue
        finished = step.position
        assert Counter(finished.all_cards()) == Counter(DECK)
        points, scores, winner = rescore(finished)
        assert step.result.to_json() == {"points": points, "scores": scores, "winner": winner}
        hands.append(step.result.to_json())
    assert match.finished
    assert hands == deal["hands"]
    assert {"scores": list(match.scores), "winner": match.winner} == deal["final"]
    assert Match.replay(deal["seed"], moves) == match
