"""Fácil (RULES.md 7): captures whenever it can, taking the most it can; otherwise trails
its lowest card it may legally trail; never builds or raises."""

from __future__ import annotations

import random

from ..engine import Move, View
from ..engine.hints import take_rank
from ..engine.moves import Table


class Facil:
    name = "facil"

    def choose(self, view: View, legal_moves: list[Move], rng: random.Random) -> Move:
        captures = [m for m in legal_moves if m.kind == "capture"]
        if captures:
            table = Table(view.cards, view.piles)

            def rank(move: Move) -> tuple[tuple[int, ...], int, tuple[str, ...]]:
                mask = table.mask_of(move.take) or 0
                # most cards (tie-breaks of RULES.md 3), then the lowest card, then a fixed order
                return take_rank(table, move.card, mask), -move.card.rank, tuple(sorted(move.take))

            return max(captures, key=rank)
        trails = [m for m in legal_moves if m.kind == "trail"]
        if trails:
            return min(trails, key=lambda m: (m.card.value, m.card.suit))
        # Only when Fácil took over a seat that owns a pile and cannot capture it: impossible
        # by the rules (the owner holds the taking card), but never crash.
        return rng.choice(legal_moves)
