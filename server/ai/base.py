"""The one interface every computer player implements."""

from __future__ import annotations

import random
from typing import Protocol

from ..engine import Move, View


class Player(Protocol):
    name: str

    def choose(self, view: View, legal_moves: list[Move], rng: random.Random) -> Move:
        """Picks one of ``legal_moves`` (never empty) for the seat ``view.seat``."""
        ...
