"""Player names: what a person may call themselves at the table.

A name is 1-20 characters after its spaces are collapsed, shows at least one visible letter
or digit, holds no control, format (bidi, zero-width), private-use or unassigned character
nor any of the blank "letters" Unicode has (Hangul fillers, the blank Braille pattern, ...),
stacks at most a few combining marks on one letter, and does not read as one of the names
the game itself uses ("Computadora", "Computadora (Fácil)", ...), however it is spelled:
accents, case, width, look-alike Cyrillic or Greek letters, digits for letters and
punctuation are all ignored in that comparison.
"""

from __future__ import annotations

import unicodedata

from .errors import ApiError

MAX_NAME = 20
MAX_MARKS = 4  # combining marks on one base character (more is "Zalgo" text)

# Characters that draw nothing yet are letters or symbols to Unicode, so that a category
# test lets them through.
INVISIBLE = frozenset(
    "\u115f\u1160\u3164\uffa0"  # Hangul fillers
    "\u2800"  # Braille pattern blank
    "\u034f"  # combining grapheme joiner
    "\u17b4\u17b5"  # Khmer inherent vowels
    "\u180b\u180c\u180d\u180e\u180f"  # Mongolian variation selectors, vowel separator
    "\u3000"  # ideographic space (turned into a space anyway)
)

# Look-alikes of Latin letters, and digits written for letters, for the comparison only.
CONFUSABLES = str.maketrans(
    {
        "а": "a",
        "в": "b",
        "е": "e",
        "к": "k",
        "м": "m",
        "н": "h",
        "о": "o",
        "р": "p",
        "с": "c",
        "т": "t",
        "у": "y",
        "х": "x",
        "і": "i",
        "ј": "j",
        "ԁ": "d",
        "ս": "u",
        "α": "a",
        "β": "b",
        "ε": "e",
        "ι": "i",
        "κ": "k",
        "ν": "v",
        "ο": "o",
        "ρ": "p",
        "τ": "t",
        "υ": "u",
        "χ": "x",
        "μ": "u",
        "ɑ": "a",
        "ı": "i",
        "0": "o",
        "1": "l",
        "3": "e",
        "4": "a",
        "5": "s",
        "7": "t",
        "8": "b",
        "@": "a",
    }
)

# Skeletons (see ``skeleton``) a person's name must not contain or be.
RESERVED_PARTS = ("computador", "computer")
RESERVED_NAMES = frozenset(
    {
        "compu",
        "casino",
        "servidor",
        "sistema",
        "admin",
        "administrador",
        "moderador",
        "maquina",
        "bot",
    }
)


# The names a room stores for a seat nobody named: the wire carries them as they are (older
# clients show them), with ``named: false`` beside them, so that a client words the seat from
# its catalog in its own language ("Player 2", "Computer"; docs/protocol.md, View V) and the
# server's pushes do the same (``push_text``). They are stored values, not texts for players.
COMPUTER_NAME = "Computadora"  # the computer's own chair; no person may take the name


def default_name(seat: int) -> str:
    """The name stored for a seat whose person gave none: "Jugador 1", "Jugador 2", ..."""
    return f"Jugador {seat + 1}"


def is_given(name: str | None, seat: int) -> bool:
    """Whether ``name`` (seat ``seat``'s stored name) is one a person gave: not the seat's
    default name, not the computer's, not a chair nobody sat in (None)."""
    return name is not None and name not in (default_name(seat), COMPUTER_NAME)


def bad_name(key: str) -> ApiError:
    return ApiError("bad_name", key)


def skeleton(name: str) -> str:
    """What a name reads as: compatibility-folded, lower case, without accents, look-alikes
    mapped to Latin letters, only letters kept (so "C0mpu-tadora (fácil)" is
    "computadorafacil")."""
    text = unicodedata.normalize("NFKD", unicodedata.normalize("NFKC", name).casefold())
    text = "".join(ch for ch in text if not unicodedata.combining(ch))
    text = text.translate(CONFUSABLES)
    text = text.replace("l", "i")  # "1" and "l" and "I" all read as one stroke
    return "".join(ch for ch in text if ch.isalpha())


def reads_as_ours(name: str) -> bool:
    skel = skeleton(name)
    return skel in RESERVED_NAMES or any(part.replace("l", "i") in skel for part in RESERVED_PARTS)


def _refused_character(ch: str) -> bool:
    category = unicodedata.category(ch)
    return ch in INVISIBLE or category[0] == "C" or category in ("Zl", "Zp")


def _visible_letter_or_digit(ch: str) -> bool:
    return ch not in INVISIBLE and unicodedata.category(ch)[0] in ("L", "N")


def person_name(raw: object) -> str | None:
    """The name a person gave, as stored, or None when they gave none (the seat's default
    name, ``default_name``, is the room's to give); else ``ApiError("bad_name")`` saying
    why not."""
    if raw is None or (isinstance(raw, str) and not raw.strip()):
        return None
    if not isinstance(raw, str):
        raise bad_name("error.bad_name")
    name = unicodedata.normalize("NFC", " ".join(raw.split()))
    if len(name) > MAX_NAME:
        raise bad_name("error.bad_name")
    if any(_refused_character(ch) for ch in name):
        raise bad_name("error.bad_name.invisible")
    marks = 0
    for ch in name:
        marks = marks + 1 if unicodedata.category(ch) in ("Mn", "Me") else 0
        if marks > MAX_MARKS:
            raise bad_name("error.bad_name.marks")
    if not any(_visible_letter_or_digit(ch) for ch in name):
        raise bad_name("error.bad_name.no_letter")
    if reads_as_ours(name):
        raise bad_name("error.bad_name.taken")
    return name
