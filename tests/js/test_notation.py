"""The text forms of the browser's engine (NOTATION.md): a position's and a move's compact
text is the server's, character for character, and reads back to the same value; moves are
listed in the server's order; what is not JSON text is refused as the server refuses it."""

from __future__ import annotations

from server.engine import Move, Position, legal_moves
from tests.engine.oracles import Oracle
from tests.engine.strategies import game_positions


def test_positions_and_moves_print_as_the_servers_and_read_back(js: Oracle) -> None:
    positions = game_positions()[::11]
    requests = [{"op": "position", "position": p.to_json()} for p in positions]
    moves = [m for p in positions for m in legal_moves(p)[:12]]
    # a take in any order reads as the same move
    requests += [
        {"op": "move", "move": {**m.to_json(), "take": sorted(m.take, reverse=True)}}
        if m.take
        else {"op": "move", "move": m.to_json()}
        for m in moves
    ]
    answers = js.ask_many(requests)
    for position, answer in zip(positions, answers[: len(positions)], strict=True):
        assert answer == {"position": position.to_json(), "text": position.to_text(), "again": True}
    for move, answer in zip(moves, answers[len(positions) :], strict=True):
        assert answer == {"move": move.to_json(), "text": move.to_text(), "again": True}
    unicode = Position.from_json(
        {
            "hands": [["8s"], []],
            "table": {"piles": [{"id": "montón-ñ", "cards": ["5d", "3c"], "value": 8, "owner": 0}]},
            "turn": 0,
        }
    )
    answer = js.ask({"op": "position", "position": unicode.to_json()})
    assert answer["text"] == unicode.to_text() and "\\u00f1" in answer["text"]


def test_moves_sort_as_the_servers(js: Oracle) -> None:
    """Kind, rank, suit, take, value (server/engine/moves.py ``Move.sort_key``): the order
    of legal_moves, which seeds the players."""
    moves = [m for p in game_positions()[::29] for m in legal_moves(p)]
    moves += [
        Move.capture("2c", "2d"),
        Move.capture("2h", "2d"),
        Move.build("2c", "2d", value=2),
        Move.build("2c", "2d", value=4),
        Move.build("2c", "2d", "3s", value=7),
        Move.trail("Ah"),
        Move.trail("4s"),
        Move.capture("9s", "p10", "p9", "10d", "9d"),
        Move.capture("9s", "p1", "p2"),
    ]
    shuffled = list(reversed(moves))
    answer = js.ask({"op": "sorted", "moves": [m.to_json() for m in shuffled]})
    assert answer["moves"] == [m.to_json() for m in sorted(shuffled, key=Move.sort_key)]


def test_text_that_is_not_json_is_refused_as_the_server_does(js: Oracle) -> None:
    for bad in (None, 5, ["kind"], "capture 9s 9d"):
        answer = js.ask({"op": "move", "text": bad})
        assert answer == {"error": f"move is not JSON: {bad!r}", "type": "InvalidMove"}
    answer = js.ask({"op": "position", "text": "{hands: oops"})
    assert answer == {"error": "position is not JSON: '{hands: oops'", "type": "NotationError"}
