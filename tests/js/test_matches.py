"""Whole matches in the browser's engine: the deck of a seed (the same SHA-256 shuffle as
the server's), the fixed deals of seeds/deals/ replayed to their recorded results, and every
event of every move (docs/protocol.md, "Event E") the same as the server's."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from server.engine import Match, Move, shuffled_deck
from server.rooms.facts import step_events
from tests.engine.oracles import Oracle

DEALS = sorted((Path(__file__).resolve().parents[2] / "seeds" / "deals").glob("*.json"))
SEEDS = ["golden", "a", "", "deal-one", "ñandú", "😀 emoji", "x" * 200, "42", "seed:with:colons"]


def test_a_seed_deals_the_same_decks_in_both_engines(js: Oracle) -> None:
    pairs = [(s, h) for s in SEEDS for h in (0, 1, 2, 17)]
    requests = [{"op": "deck", "seed": s, "hand": h} for s, h in pairs]
    for (seed, hand), answer in zip(pairs, js.ask_many(requests), strict=True):
        assert answer["deck"] == [c.code for c in shuffled_deck(seed, hand)], (seed, hand)


def server_replay(seed: str, moves: list[Move], seats: int = 2) -> list[list[dict[str, Any]]]:
    """The events of each move, as the server sends them."""
    match = Match.new(seed, seats)
    events = []
    for move in moves:
        seat = match.position.turn
        after, step = match.play(move)
        events.append(step_events(step, seat, match, after))
        match = after
    return events


def test_there_are_fixed_deals() -> None:
    assert len(DEALS) >= 4


@pytest.mark.parametrize("path", DEALS, ids=[p.stem for p in DEALS])
def test_a_fixed_deal_replays_to_its_recorded_result_in_the_browser(js: Oracle, path: Path) -> None:
    deal = json.loads(path.read_text(encoding="utf-8"))
    seats = deal.get("seats", 2)
    request = {"op": "match", "seed": deal["seed"], "moves": deal["moves"], "seats": seats}
    answer = js.ask(request)
    assert answer["results"] == deal["hands"]
    assert {"scores": answer["scores"], "winner": answer["winner"]} == deal["final"]
    moves = [Move.from_json(m) for m in deal["moves"]]
    expected = server_replay(deal["seed"], moves, seats)
    assert [step["events"] for step in answer["steps"]] == expected
    live = Match.replay(deal["seed"], moves, seats)
    assert answer["position"] == live.position.to_json()
    assert answer["hand_number"] == live.hand_number and answer["move_count"] == len(moves)


def test_random_matches_give_the_servers_events(js: Oracle) -> None:
    """Matches of uniformly random legal moves (tests/engine/strategies.py): the browser's
    engine replays each to the same events, hand ends and match end included."""
    from tests.engine.strategies import MATCH_SEEDS, random_match

    for seed in MATCH_SEEDS[:6]:
        live, moves, _ = random_match(seed)
        answer = js.ask({"op": "match", "seed": seed, "moves": [m.to_json() for m in moves]})
        assert [step["events"] for step in answer["steps"]] == server_replay(seed, moves)
        assert answer["winner"] == live.winner and answer["scores"] == list(live.scores)
