"""The engine's typed errors."""

from __future__ import annotations


class EngineError(ValueError):
    """Base of every error the engine raises on bad input."""


class NotationError(EngineError):
    """Text or JSON that is not a card, position or move of NOTATION.md."""


class InvalidMove(NotationError):
    """A malformed move: it cannot be read as a move at all."""


class IllegalMove(EngineError):
    """A well-formed move that the rules do not allow in this position.

    ``code`` is a stable machine-readable reason; ``message`` is a short Spanish
    explanation a player can read.
    """

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message

    def __repr__(self) -> str:
        return f"IllegalMove({self.code!r}, {self.message!r})"
