"""The table of a frozen position is indexed once (issue 31: ``moves.table_of``): the same
object for every look at that position, no part of its value (equality, hash, text), and a
new position made from it by ``replace`` or by a move indexes its own."""

from __future__ import annotations

import pickle

from server.engine import Position, legal_moves, play
from server.engine.moves import Table, table_of

from .strategies import game_positions


def test_a_position_indexes_its_table_once() -> None:
    for position in game_positions()[::5]:
        check(position)


def check(position: Position) -> None:
    fresh = Table(position.cards, position.piles)
    table = table_of(position)
    assert table_of(position) is table
    assert table.items == fresh.items and table.sums == fresh.sums and table.multi == fresh.multi
    again = Position.parse(position.to_text())
    assert again == position and hash(again) == hash(position)  # the cache is no part of it
    assert again.table_cache is None
    assert position.replace(turn=position.turn).table_cache is None
    assert pickle.loads(pickle.dumps(position)) == position
    moves = legal_moves(position)
    if moves:
        after = play(position, moves[0])
        assert after.table_cache is None or after.table_cache is not table
