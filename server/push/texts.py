"""What a push says, in the seat's language: every player-visible text of the server's
pushes in one place (``PUSH_TEXTS``, one dict per language; Spanish until the game speaks
English too, issue 28), worded by ``push_text``. Never a card: whose game, and what
happened."""

from __future__ import annotations

from typing import Literal

Kind = Literal["turn", "join", "rematch"]

# language -> kind -> (title, body); ``{name}``: the other player's name
PUSH_TEXTS: dict[str, dict[str, tuple[str, str]]] = {
    "es": {
        "turn": ("¡Te toca!", "Te toca en tu partida con {name}."),
        "join": ("¡{name} llegó a la mesa!", "{name} aceptó tu invitación. Te toca empezar."),
        "rematch": ("{name} quiere la revancha", "{name} quiere jugar otra partida contigo."),
    },
}
DEFAULT_LANG = "es"


def language(tag: object) -> str:
    """The language of ``tag`` (``es-DO``, ``es``…) that pushes can be worded in; else the
    default."""
    if isinstance(tag, str):
        base = tag.strip().lower().split("-")[0]
        if base in PUSH_TEXTS:
            return base
    return DEFAULT_LANG


def push_text(kind: Kind, name: str, lang: str = DEFAULT_LANG) -> tuple[str, str]:
    """The title and body of a push about ``kind`` in the game with ``name``."""
    title, body = PUSH_TEXTS.get(lang, PUSH_TEXTS[DEFAULT_LANG])[kind]
    return title.format(name=name), body.format(name=name)
