"""Every citation of the rule book and the notation resolves in docs/RULES.md and
docs/NOTATION.md, so that a fresh clone can read the rules its code follows.

The rule book is cited by section number, the notation by section title. The forms read:

- ``RULES.md 4.4``, ``RULES.md section 6``, ``RULES.md sections 3-6`` (every section from 3
  to 6), ``RULES.md 3 and 8``, ``RULES.md 4.2, 4.3``; ``docs/RULES.md`` the same. In a file
  that names RULES.md, and in docs/RULES.md itself, ``section 4.3`` alone cites it too.
- ``NOTATION.md, Move`` and ``NOTATION: Move, Position`` (a capitalized title after the
  comma or colon), and "the rules oracle" in a file that names NOTATION.md.
- The ``rule`` field of every scenario in seeds/scenarios/*.yaml: RULES.md section numbers
  separated by commas (``"4, 4.2, 4.4"``), or ``NOTATION:`` and titles (``"NOTATION: Move,
  Position"``). Any other form fails.
- No file points at a rule book outside the repository (the team's shared folder), except
  the note at the top of each of the two docs that says where it comes from.

A title is a heading of docs/NOTATION.md without its parenthesis ("Position (JSON object)"
is cited as "Position"), compared without case.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
RULES = ROOT / "docs" / "RULES.md"
NOTATION = ROOT / "docs" / "NOTATION.md"
SCANNED = ["server", "client", "tests", "seeds", "docs", "benchmarks", "scripts", "migrations"]
SCANNED_FILES = ["README.md"]
SKIPPED_DIRS = {"vendor", "node_modules", "__pycache__", ".venv", ".mypy_cache", "mutants"}

NUM = r"\d+(?:\.\d+)*"
RANGE = rf"{NUM}(?:\s*[-–]\s*{NUM})?"
LIST = rf"{RANGE}(?:\s*(?:,|and|&)\s*{RANGE})*"
RULES_CITE = re.compile(rf"\bRULES\.md\s+(?:[Ss]ections?\s+)?(?P<list>{LIST})")
BARE_CITE = re.compile(rf"\b[Ss]ections?\s+(?P<list>{LIST})")
NOTATION_CITE = re.compile(r"\bNOTATION(?:\.md)?\s*[,:]\s*(?P<rest>[A-Z].*)")
ORACLE = re.compile(r"\brules oracle\b", re.IGNORECASE)
# the team's shared folder, outside the repository
OUTSIDE = re.compile(r"/work/shared|\.\./shared/")
RULE_FIELD_NUMBERS = re.compile(rf"^{NUM}(?:\s*,\s*{NUM})*$")
RULE_FIELD_NOTATION = re.compile(r"^NOTATION:\s*(?P<titles>\S.*)$")


@dataclass(frozen=True)
class Citation:
    where: str  # path:line
    text: str  # as written
    sections: tuple[str, ...] = ()  # RULES.md section numbers
    titles: tuple[str, ...] = ()  # NOTATION.md titles, lower case

    def __str__(self) -> str:
        return f"{self.where}: {self.text!r}"


def rules_sections() -> set[str]:
    """The section numbers of docs/RULES.md: ``## 1. Cards and values`` is "1"."""
    heading = re.compile(r"^#{2,6}\s+(\d+(?:\.\d+)*)\.?\s+\S")
    return {m[1] for line in lines(RULES) if (m := heading.match(line))}


def notation_titles() -> set[str]:
    """The section titles of docs/NOTATION.md, lower case, without a parenthesis."""
    heading = re.compile(r"^#{2,6}\s+(.+?)\s*(?:\([^)]*\))?\s*$")
    return {normal(m[1]) for line in lines(NOTATION) if (m := heading.match(line))}


def lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines()


def normal(title: str) -> str:
    return " ".join(title.lower().split())


def scanned_files() -> Iterator[Path]:
    """The files read, this one aside: its wrong citations are there on purpose."""
    for name in SCANNED:
        for path in sorted((ROOT / name).rglob("*")):
            parts = set(path.relative_to(ROOT).parts)
            if path.is_file() and not parts & SKIPPED_DIRS and path != Path(__file__).resolve():
                yield path
    for name in SCANNED_FILES:
        yield ROOT / name


def text_of(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        return None  # an image, a font: no citations


def expand(cited: str) -> tuple[str, ...]:
    """``"3-6"`` is 3, 4, 5 and 6; ``"3 and 8"`` is 3 and 8; ``"4.2, 4.3"`` is both."""
    sections: list[str] = []
    for part in re.split(r"\s*(?:,|and|&)\s*", cited.strip()):
        ends = re.split(r"\s*[-–]\s*", part)
        if len(ends) == 2 and ends[0].isdigit() and ends[1].isdigit():
            sections.extend(str(n) for n in range(int(ends[0]), int(ends[1]) + 1))
        else:
            sections.extend(ends)
    return tuple(sections)


def notation_titles_at(rest: str, titles: set[str]) -> tuple[tuple[str, ...], int]:
    """The titles cited at the start of ``rest`` ("Move, Position): ...") and how many
    characters they take: each the longest known title it starts with, else its first words
    (which then do not resolve)."""
    cited: list[str] = []
    at = 0
    while at < len(rest) and rest[at].isupper():
        known = [t for t in titles if re.match(re.escape(t) + r"\b", rest[at:], re.IGNORECASE)]
        if known:
            title = max(known, key=len)
        else:
            words = re.match(r"[\w'-]*(?: [a-z][\w'-]*)?", rest[at:])
            title = normal(words[0] if words and words[0] else rest[at])
        cited.append(title)
        at += len(title)
        comma = re.match(r"\s*,\s*", rest[at:])
        if not comma:
            break
        at += comma.end()
    return tuple(cited), at


def line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def citations() -> list[Citation]:
    """Every citation in the scanned files, outside the scenarios' ``rule`` fields."""
    titles = notation_titles()
    found: list[Citation] = []
    for path in scanned_files():
        text = text_of(path)
        if text is None:
            continue
        rel = path.relative_to(ROOT).as_posix()
        names_rules = "RULES.md" in text or path == RULES
        names_notation = "NOTATION.md" in text or path == NOTATION
        for m in RULES_CITE.finditer(text):
            where = f"{rel}:{line_of(text, m.start())}"
            found.append(Citation(where, m[0], sections=expand(m["list"])))
        if names_rules:
            for m in BARE_CITE.finditer(text):
                if text[: m.start()].endswith("RULES.md "):
                    continue  # read above
                where = f"{rel}:{line_of(text, m.start())}"
                found.append(Citation(where, m[0], sections=expand(m["list"])))
        for m in NOTATION_CITE.finditer(text):
            if rel.startswith("seeds/scenarios/") and text[: m.start()].endswith('rule: "'):
                continue  # a rule field: read by test_rule_fields_resolve
            where = f"{rel}:{line_of(text, m.start())}"
            cited, length = notation_titles_at(m["rest"].split("\n", 1)[0], titles)
            written = m[0][: m.start("rest") - m.start() + length]
            found.append(Citation(where, written, titles=cited))
        if names_notation:
            for m in ORACLE.finditer(text):
                where = f"{rel}:{line_of(text, m.start())}"
                found.append(Citation(where, m[0], titles=("the rules oracle",)))
    return found


def rule_fields() -> list[tuple[str, str]]:
    """Each scenario's ``rule`` field, with where it is (file:scenario name)."""
    fields = []
    for path in sorted((ROOT / "seeds" / "scenarios").glob("*.yaml")):
        for scenario in yaml.safe_load(path.read_text(encoding="utf-8")):
            fields.append((f"{path.name}:{scenario['name']}", str(scenario["rule"])))
    return fields


def unresolved(citation: Citation, sections: set[str], titles: set[str]) -> list[str]:
    missing = [f"RULES.md {s}" for s in citation.sections if s not in sections]
    missing += [f"NOTATION.md, {t}" for t in citation.titles if t not in titles]
    return missing


def test_the_rule_book_and_the_notation_have_their_sections() -> None:
    # what the citations are checked against: if these were empty, everything would fail
    assert {"1", "2", "3", "4", "4.1", "4.2", "4.3", "4.4", "5", "6", "7", "8"} <= (
        rules_sections()
    )
    assert {"cards", "position", "move", "the rules oracle"} <= notation_titles()


def test_every_citation_in_the_code_tests_and_docs_resolves() -> None:
    sections, titles = rules_sections(), notation_titles()
    found = citations()
    # the forms above are still read: a pattern that stopped matching would pass vacuously
    assert sum(1 for c in found if c.sections) >= 30, [str(c) for c in found]
    assert sum(1 for c in found if c.titles) >= 5, [str(c) for c in found]
    broken = [f"{c} -> no {', '.join(m)}" for c in found if (m := unresolved(c, sections, titles))]
    assert not broken, "citations with no such section:\n" + "\n".join(broken)


def test_rule_fields_resolve() -> None:
    sections, titles = rules_sections(), notation_titles()
    fields = rule_fields()
    assert len(fields) >= 100
    broken = []
    for where, rule in fields:
        if RULE_FIELD_NUMBERS.match(rule):
            cited = Citation(where, rule, sections=expand(rule))
        elif m := RULE_FIELD_NOTATION.match(rule):
            parts = re.split(r"\s*,\s*", m["titles"].strip())
            cited = Citation(where, rule, titles=tuple(normal(t) for t in parts))
        else:
            broken.append(f"{where}: {rule!r} is neither section numbers nor NOTATION: titles")
            continue
        if missing := unresolved(cited, sections, titles):
            broken.append(f"{cited} -> no {', '.join(missing)}")
    assert not broken, "scenarios citing no such section:\n" + "\n".join(broken)


def test_nothing_points_at_a_rule_book_outside_the_repository() -> None:
    outside = []
    for path in scanned_files():
        text = text_of(path)
        if text is None:
            continue
        for number, line in enumerate(text.splitlines(), start=1):
            if not OUTSIDE.search(line):
                continue
            # the two docs say where they come from, in the note under their title
            if path in (RULES, NOTATION) and line.startswith("> "):
                continue
            outside.append(f"{path.relative_to(ROOT).as_posix()}:{number}: {line.strip()}")
    assert not outside, "references outside the repository:\n" + "\n".join(outside)


@pytest.mark.parametrize(
    ("cited", "sections"),
    [
        ("6", ("6",)),
        ("3-6", ("3", "4", "5", "6")),
        ("3 and 8", ("3", "8")),
        ("4, 4.2, 4.4", ("4", "4.2", "4.4")),
        ("4.1-4.3", ("4.1", "4.3")),
    ],
)
def test_expand_reads_lists_and_ranges(cited: str, sections: tuple[str, ...]) -> None:
    assert expand(cited) == sections


def test_a_wrong_citation_is_caught() -> None:
    # the readers above on text of their own, beside the repository's files
    titles = notation_titles()
    assert notation_titles_at("Move, Position): x", titles) == (("move", "position"), 14)
    assert notation_titles_at("The rules oracle of x", titles) == (("the rules oracle",), 16)
    assert notation_titles_at("Moves: x", titles) == (("moves",), 5)  # no such title
    m = RULES_CITE.search("see RULES.md sections 3-5 and 9, Difícil")
    assert m is not None and expand(m["list"]) == ("3", "4", "5", "9")
    assert unresolved(Citation("x:1", "", ("10",), ("moves",)), rules_sections(), titles) == [
        "RULES.md 10",
        "NOTATION.md, moves",
    ]
