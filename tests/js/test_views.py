"""What the offline table will be drawn from, the same as what the server sends: the hints
of each hand card (server/engine/hints.py and server/rooms/facts.py ``options``: Llevarte,
Llevarte solo, the build ideas, the build take-sets, the trail flag), the seat's and the
watcher's views, and a whole match played through the worker (client/js/play/worker.js),
whose views and events must be the server's (docs/protocol.md, View V and Event E)."""

from __future__ import annotations

import random
from typing import Any

from hypothesis import given

from server.engine import Match, Move, Position, legal_moves, public_view, view_for
from server.rooms.facts import CATEGORIES_ES, MAX_BUILD_TAKES, options, step_events, tally
from tests.engine.oracles import Oracle
from tests.engine.strategies import deterministic, game_positions, small_positions

FAST = deterministic(max_examples=100)


def normalized(found: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``options`` with each card's build take-sets in one order: the server lists them in
    the order of a Python set (server/engine/moves.py ``build_masks``), the browser in the
    order of a JavaScript one; the order means nothing (the client looks a selection up)."""
    out = []
    for entry in found:
        takes = entry["build_takes"]
        assert len(takes) < MAX_BUILD_TAKES, (
            "a cut list: which entries are kept depends on the order"
        )
        out.append({**entry, "build_takes": sorted(takes, key=lambda t: t["take"])})
    return out


def check_options(js: Oracle, positions: list[Position]) -> None:
    requests = [{"op": "options", "position": p.to_json()} for p in positions]
    for position, answer in zip(positions, js.ask_many(requests), strict=True):
        assert normalized(answer["options"]) == normalized(options(position)), position


@FAST
@given(small_positions(max_loose=6, max_piles=3))
def test_the_hints_of_small_positions_are_the_servers(js: Oracle, position: Position) -> None:
    check_options(js, [position])


def test_the_hints_of_game_positions_are_the_servers(js: Oracle) -> None:
    check_options(js, game_positions()[::4])


def test_a_seats_view_and_a_watchers_are_the_servers(js: Oracle) -> None:
    positions = game_positions()[::17]
    pairs = [(p, s) for p in positions for s in (0, 1)]
    requests = [{"op": "view", "position": p.to_json(), "seat": s} for p, s in pairs]
    for (position, seat), answer in zip(pairs, js.ask_many(requests), strict=True):
        assert answer["view"] == view_for(position, seat).to_json()
        assert answer["public"] == public_view(position).to_json()


def server_view(match: Match, seat: int, last_move: dict[str, Any] | None) -> dict[str, Any]:
    """The rules part of the server's view V (server/rooms/views.py ``seat_view``)."""
    position = match.position
    status = "finished" if match.finished else "playing"
    my_turn = status == "playing" and position.turn == seat and not position.hand_over
    return {
        **view_for(position, seat).to_json(),
        "scores": list(match.scores),
        "hand_number": match.hand_number,
        "status": status,
        "winner": match.winner,
        "last_move": last_move,
        "tally": [tally(position.captured[0]), tally(position.captured[1])],
        "categories": CATEGORIES_ES,
        "options": options(position) if my_turn else [],
    }


def same_view(mine: dict[str, Any], theirs: dict[str, Any]) -> None:
    assert {**mine, "options": normalized(mine["options"])} == {
        **theirs,
        "options": normalized(theirs["options"]),
    }


def worker(js: Oracle, **request: Any) -> dict[str, Any]:
    posted = js.ask({"op": "worker", "data": {"id": 7, **request}})["posted"]
    assert len(posted) == 1 and posted[0]["id"] == 7
    return dict(posted[0])


def test_a_whole_match_against_normal_through_the_worker(js: Oracle) -> None:
    """Seat 0 plays random legal moves, seat 1 is the worker's Normal; after every move the
    worker's view of seat 0 and the move's events are what the server would send."""
    seed, rng = "worker-match", random.Random(3)
    moves: list[dict[str, Any]] = []
    match = Match.new(seed)
    last_move = None
    answer = worker(js, op="game", seed=seed, moves=[], seat=0)
    same_view(answer["view"], server_view(match, 0, None))
    while not match.finished:
        position = match.position
        if position.turn == 0:
            move = rng.choice(legal_moves(position)).to_json()
            answer = worker(js, op="game_play", seed=seed, moves=moves, move=move, seat=0)
            assert answer["moves"] == [*moves, move]
        else:
            move = worker(js, op="game_computer", seed=seed, moves=moves, level="normal")["move"]
            again = worker(js, op="game_computer", seed=seed, moves=moves, level="normal")
            assert again["move"] == move  # the same after a reload
            assert Move.from_json(move) in legal_moves(position)
            answer = worker(js, op="game", seed=seed, moves=[*moves, move], seat=0)
        moves.append(move)
        after, step = match.play(Move.from_json(move))
        events = step_events(step, position.turn, match, after)
        match, last_move = after, events[0]
        assert answer["events"] == events
        same_view(answer["view"], server_view(match, 0, last_move))
    assert answer["view"]["status"] == "finished" and answer["events"][-1]["kind"] == "match_end"
    assert len(moves) >= 96  # two hands at least


def test_the_worker_refuses_with_the_engines_reasons(js: Oracle) -> None:
    seed = "refusals"
    match = Match.new(seed)
    hand = match.position.hands[0]
    not_mine = next(c for c in match.position.hands[1])
    bad = worker(
        js,
        op="game_play",
        seed=seed,
        moves=[],
        move={"kind": "trail", "card": not_mine.code},
        seat=0,
    )
    assert bad == {
        "id": 7,
        "error": f"No tienes {short(not_mine.rank)} en la mano.",
        "code": "not_in_hand",
        "args": {"card": not_mine.code},
    }
    move = legal_moves(match.position)[0].to_json()
    assert (
        worker(js, op="game_play", seed=seed, moves=[], move=move, seat=1)["code"]
        == "not_your_turn"
    )
    assert worker(js, op="game", seed="", moves=[], seat=0)["code"] == "bad_request"
    assert worker(js, op="game", seed=seed, moves=[{"kind": "fly"}], seat=0) == {
        "id": 7,
        "error": "bad move kind 'fly'",
        "code": "bad_request",
    }
    assert (
        worker(js, op="game_computer", seed=seed, moves=[], level="dificil")["code"] == "bad_level"
    )
    # and the oracle's requests, answered as the oracle answers them
    position = match.position.to_json()
    assert worker(js, op="moves", position=position) == {
        "id": 7,
        "moves": [m.to_json() for m in legal_moves(match.position)],
    }
    assert hand


def short(rank: int) -> str:
    return {1: "el as", 11: "la jota", 12: "la reina", 13: "el rey"}.get(rank, f"el {rank}")
