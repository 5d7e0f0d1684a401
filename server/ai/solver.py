"""An exact solver for a hand whose deck is empty (RULES.md 7, Difícil).

Once the deck is empty, every card a seat has not seen is in the opponent's hand: the
rest of the hand is a game of perfect information of at most 8 plays. ``solve`` searches
it whole (alpha-beta with a transposition table), valuing each end by the chance of
winning the match (``odds.result_chance``). Positions are played with the engine's own
``legal_moves`` and ``play_step``: no rule is written twice.

The search counts its nodes and gives up past a fixed budget (never a clock), so a seed
gives the same move on any machine.
"""

from __future__ import annotations

from collections.abc import Hashable

from ..engine import Move, Position, legal_moves, play_step
from .odds import result_chance

EXACT, LOWER, UPPER = 0, 1, 2


class OutOfBudget(Exception):
    """The search needed more nodes than its budget."""


def move_order(move: Move) -> tuple[int, int]:
    """Captures first (the most items first), then builds, then trails: good moves early
    make alpha-beta cut more."""
    if move.kind == "capture":
        return 0, -len(move.take)
    if move.kind == "build":
        return 1, -len(move.take)
    return 2, move.card.value


class Solver:
    """Values of a perfect-information position for ``seat``: its chance to win the match."""

    def __init__(self, seat: int, budget: int) -> None:
        self.seat = seat
        self.budget = budget
        self.nodes = 0
        self.table: dict[Hashable, tuple[float, int]] = {}

    def after(self, position: Position, move: Move, alpha: float = 0.0, beta: float = 1.0) -> float:
        """The value of playing ``move`` in ``position``."""
        step = play_step(position, move)
        if step.result is not None:
            return result_chance(step.result, self.seat)
        return self.value(step.position, alpha, beta)

    def value(self, position: Position, alpha: float, beta: float) -> float:
        self.nodes += 1
        if self.nodes > self.budget:
            raise OutOfBudget
        key = _key(position)
        entry = self.table.get(key)
        if entry is not None:
            found, flag = entry
            if (
                flag == EXACT
                or (flag == LOWER and found >= beta)
                or (flag == UPPER and found <= alpha)
            ):
                return found
        start_alpha, start_beta = alpha, beta
        mine = position.turn == self.seat
        best = -1.0 if mine else 2.0
        for move in sorted(legal_moves(position), key=move_order):
            v = self.after(position, move, alpha, beta)
            if mine:
                if v > best:
                    best = v
                    alpha = max(alpha, v)
            elif v < best:
                best = v
                beta = min(beta, v)
            if alpha >= beta:
                break
        if best <= start_alpha:
            flag = UPPER
        elif best >= start_beta:
            flag = LOWER
        else:
            flag = EXACT
        self.table[key] = (best, flag)
        return best


def solve(position: Position, moves: list[Move], seat: int, budget: int) -> Move | None:
    """The best of ``moves`` for ``seat`` (to move) in a position whose hands are both
    known; ties go to the earlier move. None if the search needs more than ``budget``
    nodes."""
    solver = Solver(seat, budget)
    best_move: Move | None = None
    best = -1.0
    try:
        for move in moves:
            # a move only matters if it beats the best so far: search it with that bound
            v = solver.after(position, move, best, 1.0)
            if v > best + 1e-12:
                best, best_move = v, move
    except OutOfBudget:
        return None
    return best_move


def _key(position: Position) -> Hashable:
    """The position without what cannot matter to the rest of the hand: the order of
    cards anywhere and the pile ids. The second player's captured cards are all the
    cards not elsewhere, so they are left out."""
    return (
        position.turn,
        frozenset(position.hands[0]),
        frozenset(position.hands[1]),
        frozenset(position.cards),
        frozenset((p.value, p.owner, p.double, frozenset(p.cards)) for p in position.piles),
        frozenset(position.captured[0]),
        position.deck,
        position.limpias,
        position.last_capturer,
    )
