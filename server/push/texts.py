"""What a push says, in the seat's language: the catalogs' ``push.<kind>.title`` and
``push.<kind>.body`` (``server.i18n``, issue 28), worded by ``push_text``. Never a card:
whose game, and what happened."""

from __future__ import annotations

from typing import Literal

from ..i18n import DEFAULT, language, words

Kind = Literal["turn", "join", "rematch"]

__all__ = ["DEFAULT", "Kind", "language", "push_text"]


def push_text(kind: Kind, name: str, lang: str = DEFAULT) -> tuple[str, str]:
    """The title and body of a push about ``kind`` in the game with ``name`` (the other
    player's name)."""
    args = {"name": name}
    return words(f"push.{kind}.title", lang, args), words(f"push.{kind}.body", lang, args)
