"""The engine's typed errors."""

from __future__ import annotations


class EngineError(ValueError):
    """Base of every error the engine raises on bad input."""


class NotationError(EngineError):
    """Text or JSON that is not a card, position or move of NOTATION.md."""


class InvalidMove(NotationError):
    """A malformed move: it cannot be read as a move at all."""


# a refusal's arguments: JSON values (a card as its NOTATION code, a value, a list of table
# items: a card as its code, a pile as its value)
ReasonArgs = dict[str, object]


class IllegalMove(EngineError):
    """A well-formed move that the rules do not allow in this position.

    ``code`` is a stable machine-readable reason and ``reason_args`` its arguments
    (``{"card": "10d"}``, ``{"value": 8}``, ``{"items": ["5h", 5]}``; an exception's own
    ``args`` is Python's tuple, hence the name; the browser's is ``args``): the catalogs
    word a refusal from the two (``reason.<code>``), in the player's language; the
    browser's engine gives the same code and arguments for the same refusal. ``message``
    is a short Spanish explanation for developers (the rules oracle's answer, NOTATION.md).
    """

    def __init__(self, code: str, message: str, args: ReasonArgs | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.reason_args: ReasonArgs = dict(args or {})

    def __repr__(self) -> str:
        return f"IllegalMove({self.code!r}, {self.message!r}, {self.reason_args!r})"
