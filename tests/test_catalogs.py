"""The catalogs of the player's words (issue 28), read as files: every key of each catalog is
in the other with the same placeholders, no key is left unused, and no text a player reads
is left written in the client's modules instead of a catalog (a check that fails on a
Spanish sentence put back into a screen)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from server.i18n.browser import browser_parts

ROOT = Path(__file__).resolve().parents[1]
CATALOGS = ROOT / "client" / "i18n"
JS = ROOT / "client" / "js"
# the rules and the computer players (the offline game's Web Worker) word no screen: the
# engine's refusals are a code and arguments the catalogs word (ui/reasons.js); its Spanish
# sentences are for developers (the rules oracle's answers)
NOT_SCREENS = ("engine", "ai", "play")
PLACEHOLDER = re.compile(r"\{(\w+)\}")
LITERAL = re.compile(r'"((?:[^"\\\n]|\\.)*)"|`((?:[^`\\]|\\.)*)`|\'((?:[^\'\\\n]|\\.)*)\'')
TEMPLATE_PREFIX = re.compile(r"`([a-z_]+(?:\.[a-z_]+)*\.?)\$\{")
PY_PREFIX = re.compile(r"f\"([a-z_]+(?:\.[a-z_]+)*\.)\{")
# what only a sentence for people has: accents, Spanish punctuation, or a capitalized word
# followed by more words
SPANISH_MARKS = re.compile(r"[áéíóúñ¿¡]")
SENTENCE = re.compile(r"^[A-ZÁÉÍÓÚ][a-záéíóúñ]+(?: [a-záéíóúñ]+){2,}")
# a few words in lower case with a Spanish little word among them ("· le toca", "de la mesa")
PHRASE = re.compile(
    r"(?:^|[\s·(])(?:le|la|el|los|las|de|del|tu|te|que|con|por|para|una|sin|mi)"
    r" [a-záéíóúñ]{2,}"
)


def catalog(name: str) -> dict[str, object]:
    data: dict[str, object] = json.loads((CATALOGS / name).read_text(encoding="utf-8"))
    return data


def keys(data: dict[str, object]) -> set[str]:
    return {k for k in data if not k.startswith("@")}


def placeholders(value: object) -> set[str]:
    texts = list(value.values()) if isinstance(value, dict) else [value]
    return {name for text in texts for name in PLACEHOLDER.findall(str(text))}


def sources() -> list[Path]:
    found = [*JS.rglob("*.js"), *(ROOT / "server").rglob("*.py"), *(ROOT / "client").glob("*.html")]
    return sorted(p for p in found if "vendor" not in p.parts)


def screens() -> list[Path]:
    return sorted(p for p in JS.rglob("*.js") if p.relative_to(JS).parts[0] not in NOT_SCREENS)


def code_of(path: Path) -> str:
    """The module without its comments (so that a comment quoting a text is no use)."""
    text = path.read_text(encoding="utf-8")
    text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)
    comment = r"(^|\s)#.*$" if path.suffix == ".py" else r"(^|[\s;,)])//.*$"
    return "\n".join(re.sub(comment, "", line) for line in text.splitlines())


@pytest.mark.parametrize("name", ["en.json"])
def test_each_catalog_has_the_same_keys_and_placeholders_as_spanish(name: str) -> None:
    spanish, other = catalog("es-DO.json"), catalog(name)
    assert keys(spanish) == keys(other), keys(spanish) ^ keys(other)
    for key in keys(spanish):
        assert placeholders(spanish[key]) == placeholders(other[key]), key
        for value in (spanish[key], other[key]):
            assert isinstance(value, str) or (isinstance(value, dict) and "other" in value), key


def test_no_key_is_left_unused() -> None:
    used: set[str] = set()
    prefixes: set[str] = set()
    for path in sources():
        text = code_of(path)
        for match in LITERAL.finditer(text):
            used.add(next(g for g in match.groups() if g is not None))
        prefixes.update(TEMPLATE_PREFIX.findall(text))
        prefixes.update(PY_PREFIX.findall(text))
    prefixes.discard("")
    unused = sorted(
        key
        for key in keys(catalog("es-DO.json"))
        if key not in used and not any(key.startswith(p) for p in prefixes)
    )
    assert unused == []


def test_no_text_for_players_is_left_in_the_client_modules() -> None:
    left = []
    for path in screens():
        code = code_of(path)
        for match in LITERAL.finditer(code):
            text = next(g for g in match.groups() if g is not None)
            if text.startswith(("/", ".", "#", "[")):
                continue
            if SPANISH_MARKS.search(text) or SENTENCE.search(text) or PHRASE.search(text):
                n = code.count("\n", 0, match.start()) + 1
                left.append(f"{path.relative_to(JS)}:{n}: {text[:80]}")
    assert left == []


def test_a_spanish_sentence_in_a_module_would_be_found() -> None:
    """The check above can fail: the pattern catches a sentence as it used to be written."""
    line = 'bar.append(line("Toca una carta de tu mano para jugarla."));'
    text = next(g for g in next(LITERAL.finditer(line)).groups() if g is not None)
    assert SENTENCE.search(text)
    assert SPANISH_MARKS.search("¿Por qué no?")
    assert PHRASE.search(" · le toca") and PHRASE.search("carta de la mesa")
    assert not PHRASE.search("opponent player") and not PHRASE.search("turn-mark")


def client_names() -> tuple[set[str], set[str]]:
    """The strings and the key prefixes (`` `card.rank.${rank}` ``) the client's code names:
    its modules, its pages (``data-i18n``) and the service worker."""
    used: set[str] = set()
    prefixes: set[str] = set()
    for path in [*JS.rglob("*.js"), *(ROOT / "client").glob("*.html"), ROOT / "client" / "sw.js"]:
        text = code_of(path)
        for match in LITERAL.finditer(text):
            used.add(next(g for g in match.groups() if g is not None))
        prefixes.update(p for p in TEMPLATE_PREFIX.findall(text) if "." in p)
    return used, prefixes


def named_by_the_client(key: str, names: tuple[set[str], set[str]]) -> bool:
    used, prefixes = names
    return key in used or any(key.startswith(p) for p in prefixes)


@pytest.mark.parametrize("name", ["es-DO.json", "en.json"])
def test_the_browser_is_sent_every_key_the_client_names_and_no_other(name: str) -> None:
    """The catalog as the browser fetches it (server/i18n/browser.py): the screens' part
    holds every text a client module or page names, but the reading pages' (their own part,
    named by ui/texts.js alone); and no text only the server says (a key sent that no client
    code names is bytes for nothing, or a key the server lists as its own that the client
    needs)."""
    parts = browser_parts(catalog(name))
    screens, reading = parts["screens"], parts["reading"]
    names = client_names()
    named = {k for k in keys(catalog(name)) if named_by_the_client(k, names)}
    assert sorted(named - set(screens) - set(reading)) == []
    assert sorted(set(screens) - named) == []
    assert reading and set(reading) <= named
    texts_js = code_of(JS / "ui" / "texts.js")
    for key in reading:
        users = [p for p in JS.rglob("*.js") if f'"{key}"' in code_of(p)]
        assert users == [JS / "ui" / "texts.js"], key
        assert f'"{key}"' in texts_js


def test_a_key_the_client_names_that_the_browser_is_not_sent_would_be_found() -> None:
    """The check above can fail: a module that words a server-only error itself."""
    names = client_names()
    assert not named_by_the_client("error.bad_name", names)
    names[0].add("error.bad_name")
    assert named_by_the_client("error.bad_name", names)
    assert "error.bad_name" not in browser_parts(catalog("es-DO.json"))["screens"]
