"""Fixed deals (seeds/deals/*.json): whole matches as a seed and their moves. Replaying them
must give the recorded hands and final scores, and every hand is scored again here, apart
from the engine, straight from RULES.md 6."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from server.engine import DECK, Match, Move

from .reference import rescore

DEALS = sorted((Path(__file__).resolve().parents[2] / "seeds" / "deals").glob("*.json"))


def load(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def test_there_are_fixed_deals() -> None:
    assert len(DEALS) >= 4


@pytest.mark.parametrize("path", DEALS, ids=[p.stem for p in DEALS])
def test_a_fixed_deal_replays_to_its_recorded_result(path: Path) -> None:
    deal = load(path)
    moves = [Move.from_json(m) for m in deal["moves"]]
    seats = deal.get("seats", 2)
    match = Match.new(deal["seed"], seats)
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
    assert Match.replay(deal["seed"], moves, seats) == match
