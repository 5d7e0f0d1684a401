"""Computer players. Each one is a ``Player``: ``choose(view, legal_moves, rng) -> Move``.

A player is handed the seat's view, never the position, so it cannot see the opponent's
hand or the order of the deck.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from ..engine import EngineError, Move, Position, legal_moves, view_for
from .base import Player
from .dificil import Dificil
from .facil import Facil
from .inference import Seen
from .normal import Normal

LEVELS: dict[str, Player] = {"facil": Facil(), "normal": Normal(), "dificil": Dificil()}


class NoLegalMove(EngineError):
    """The seat to move has no legal move (a position the rules never reach: a pile owner
    without the card that takes it), so no player can choose one."""


def choose_for_position(
    level: str, position: Position, seed: int | str, seen: Sequence[Seen] = ()
) -> Move:
    """The move the ``level`` player makes for the seat to move, from that seat's view
    (and, for Difícil, the plays of this hand it saw: ``seen``). Raises NoLegalMove if
    that seat has no legal move."""
    player = LEVELS[level]
    view = view_for(position, position.turn)
    moves = legal_moves(view.as_position())
    if not moves:
        raise NoLegalMove("the seat to move has no legal move")
    rng = random.Random(f"{level}:{seed}")
    if isinstance(player, Dificil):
        return player.choose(view, moves, rng, seen)
    return player.choose(view, moves, rng)


__all__ = ["LEVELS", "NoLegalMove", "Player", "choose_for_position"]
