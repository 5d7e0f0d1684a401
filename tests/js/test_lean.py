"""The client's modules as the server serves them (server/web/lean.py): the same program as
written, without its comments. TypeScript's parser reads each module and its lean form, and
the two syntax trees must be the same: every name, string, template, regular expression and
number kept, and no statement joined to the next where a newline ended it."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from server.web.lean import lean_source
from tests.engine.oracles import NODE, ROOT

CLIENT = ROOT / "client"
SAME_SYNTAX = Path(__file__).with_name("same_syntax.cjs")


def different(pairs: list[tuple[str, str, str]]) -> list[str]:
    """The names of the pairs whose two texts are not the same program."""
    assert NODE is not None
    done = subprocess.run(
        [NODE, str(SAME_SYNTAX)],
        input=json.dumps(pairs),
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    answer = json.loads(done.stdout)
    assert answer["compared"] == len(pairs)
    names: list[str] = answer["different"]
    return names


def test_every_module_served_lean_is_the_same_program() -> None:
    modules = sorted(CLIENT.rglob("*.js"))
    assert len(modules) > 40  # the whole client, the service worker included
    pairs = []
    for path in modules:
        text = path.read_text(encoding="utf-8")
        lean = lean_source(text)
        assert len(lean) < len(text)
        pairs.append((str(path.relative_to(ROOT)), text, lean))
    assert different(pairs) == []


def test_the_check_sees_a_changed_program() -> None:
    """The comparison above can fail: a changed string, a statement joined to the next by a
    lost newline (``b\\n(c)`` is a call), a syntax error."""
    pairs = [
        ("same.js", "let a = b; // c\n(c)", "let a=b;(c)"),
        ("string.js", 'const s = "casino";', 'const s="casin0";'),
        ("newline.js", "let a = b\n;(c)", "let a=b\n(c)"),
        ("template.js", "const t = `${a} /* b */`;", "const t=`${a} `;"),
        ("regex.js", "const r = /a\\/b/g;", "const r=/a/g;"),
        ("broken.js", "let a = 1;", "let a = ;"),
    ]
    assert different(pairs) == [name for name, _, _ in pairs[1:]]
