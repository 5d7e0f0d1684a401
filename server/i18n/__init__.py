"""The player's words (issue 28): one catalog per language, shared with the browser.

The catalogs are the client's own files, ``client/i18n/<tag>.json`` (``es-DO``, the default
and the voice of the game, and ``en``): the server words its error messages, pages and
pushes from the same file the browser words its screens from, so a code (``not_your_turn``,
a refusal's reason) is worded once per language whether the server or the offline game in
the browser refuses, and a third language is one more file. Error codes stay the contract;
the text follows the language the client says it speaks (``Accept-Language``, the
websocket's ``hello``).

A text is a string with ``{name}`` placeholders, or an object of plural categories
(``one``, ``other``...) chosen by the number ``{n}``; keys starting with ``@`` are notes
for the translator.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import Any

from ..engine import Card, NotationError

CATALOGS = Path(__file__).resolve().parents[2] / "client" / "i18n"
DEFAULT = "es-DO"

Args = Mapping[str, object]


def languages() -> tuple[str, ...]:
    """The languages there is a catalog of, the default first."""
    found = sorted(p.stem for p in CATALOGS.glob("*.json"))
    return (DEFAULT, *(tag for tag in found if tag != DEFAULT))


@cache
def catalog(lang: str) -> dict[str, Any]:
    """The catalog of ``lang`` (a tag of ``languages()``)."""
    with (CATALOGS / f"{lang}.json").open(encoding="utf-8") as file:
        data: dict[str, Any] = json.load(file)
    return data


def _base(tag: str) -> str:
    return tag.strip().lower().split("-")[0]


def language(tag: object) -> str:
    """The language of ``tag`` (``en-US``, ``es``, ``es-DO``...) there is a catalog of: the
    same tag, else the same base language; else the default."""
    if not isinstance(tag, str) or not tag.strip():
        return DEFAULT
    known = languages()
    lowered = tag.strip().lower()
    for lang in known:
        if lang.lower() == lowered:
            return lang
    for lang in known:
        if _base(lang) == _base(lowered):
            return lang
    return DEFAULT


def negotiate(header: str | None) -> str:
    """The language to answer an ``Accept-Language`` header in: its most wanted language
    there is a catalog of (a base language counts: ``en-GB`` is ``en``); else the default."""
    if not header:
        return DEFAULT
    wanted: list[tuple[float, int, str]] = []
    for index, part in enumerate(header.split(",")[:20]):
        tag, _, params = part.strip().partition(";")
        quality = 1.0
        if params.strip().startswith("q="):
            try:
                quality = float(params.strip()[2:])
            except ValueError:
                quality = 0.0
        if tag and tag != "*" and quality > 0:
            wanted.append((-quality, index, tag))
    bases = {_base(lang) for lang in languages()}
    for _, _, tag in sorted(wanted):
        if _base(tag) in bases:
            return language(tag)
    return DEFAULT


def plural_category(lang: str, n: int) -> str:
    """``one`` or ``other``: the integer rule (CLDR) of the languages the catalogs have;
    a catalog's other categories fall back to ``other``."""
    return "one" if n == 1 else "other"


def has(key: str, lang: str = DEFAULT) -> bool:
    return key in catalog(language(lang)) or key in catalog(DEFAULT)


def words(key: str, lang: str = DEFAULT, args: Args | None = None) -> str:
    """The text ``key`` in ``lang`` (the default language's where ``lang``'s catalog lacks
    it), its placeholders filled with ``args``."""
    lang = language(lang)
    text = catalog(lang).get(key)
    if text is None:
        text = catalog(DEFAULT)[key]
    values = dict(args or {})
    if isinstance(text, dict):
        n = values.get("n")
        count = n if isinstance(n, int) else 0
        text = text.get(plural_category(lang, count), text["other"])
    assert isinstance(text, str)
    return text.format_map(_Values(values))


class _Values(dict[str, object]):
    """Placeholders with no value stay as they are (a catalog's typo shows, never crashes)."""

    def __missing__(self, key: str) -> str:
        return "{" + key + "}"


# -- a refused move's reason (the engines' IllegalMove: a code and its arguments) -----------


def card_name(code: str, lang: str = DEFAULT) -> str:
    """A card inside a sentence, with its article, as the screen reader says it: "el diez
    de diamantes", "la reina de picas", "the ten of diamonds" (card.name, card.the)."""
    card = Card.parse(code)
    name = words(
        "card.name",
        lang,
        {
            "rank": words(f"card.rank.{card.rank}", lang),
            "suit": words(f"card.suit.{card.suit}", lang),
        },
    )
    the = f"card.the.{card.rank}" if has(f"card.the.{card.rank}", lang) else "card.the"
    return words(the, lang, {"card": name})


def list_text(items: Sequence[str], lang: str = DEFAULT) -> str:
    """Items joined as the language joins a list ("a, b y c", "a, b, and c"): the catalog's
    list.* patterns, as CLDR's (the browser asks Intl.ListFormat)."""
    if len(items) < 2:
        return "".join(items)
    text = words(
        "list.pair" if len(items) == 2 else "list.end",
        lang,
        {"first": items[-2], "second": items[-1]},
    )
    for item in reversed(items[:-2]):
        text = words("list.start", lang, {"first": item, "rest": text})
    return text


def _said(value: object, lang: str) -> object:
    """An argument of a refusal as a sentence says it: a card's code by the card's name, a
    number as it is, a list of table items (a card's code, a pile's value) as a list."""
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        try:
            return card_name(value, lang)
        except NotationError:
            return value  # a table item's id that is no card (a pile's, not on the table)
    if isinstance(value, list):
        return list_text(
            [
                words("reason.pile", lang, {"value": v})
                if isinstance(v, int)
                else str(_said(v, lang))
                for v in value
            ],
            lang,
        )
    return value


def reason_key(code: str, args: Args | None = None) -> str:
    """The catalog's text of a refusal: ``reason.<code>``, or ``reason.<code>.<value>``
    where the value has words of its own (a pile of 14 is an ace's)."""
    value = (args or {}).get("value")
    if isinstance(value, int) and has(f"reason.{code}.{value}"):
        return f"reason.{code}.{value}"
    return f"reason.{code}"


def reason_text(code: str, lang: str = DEFAULT, args: Args | None = None) -> str:
    """A refused move's reason in ``lang``, from its code and its arguments (the engine's:
    ``{"card": "10d"}``, ``{"items": ["5h", 5]}``, ``{"value": 14}``)."""
    values = {name: _said(value, lang) for name, value in (args or {}).items()}
    return words(reason_key(code, args), lang, values)
