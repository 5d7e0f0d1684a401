"""What a push says, in the seat's language: the catalogs' ``push.<kind>.title`` and
``push.<kind>.body`` (``server.i18n``, issue 28), worded by ``push_text``. Never a card:
whose game, and what happened."""

from __future__ import annotations

from typing import Literal

from ..i18n import DEFAULT, language, words

Kind = Literal["turn", "join", "rematch"]

__all__ = ["DEFAULT", "Kind", "language", "push_text"]


def push_text(
    kind: Kind, name: str | None, lang: str = DEFAULT, *, seat: int = 0, computer: bool = False
) -> tuple[str, str]:
    """The title and body of a push about ``kind`` in the game with ``name`` (the other
    player's name; None for seat ``seat`` that nobody named: "Jugador 2", "Player 2", or
    the computer's chair: "la computadora", "the computer")."""
    if name is None:
        name = (
            words("games.computer", lang)
            if computer
            else words("watch.player", lang, {"n": seat + 1})
        )
    args = {"name": name}
    return words(f"push.{kind}.title", lang, args), words(f"push.{kind}.body", lang, args)
