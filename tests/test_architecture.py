"""The house rules a newcomer can count on (docs/architecture.md): the server's layers hold
(import-linter's contracts in pyproject.toml, run here as the test command runs them), no
module of the server imports itself back through others (TYPE_CHECKING and lazy imports
included), and no module of the server or the client is longer than one sitting."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
import tokenize
from pathlib import Path

import grimp
import pytest

ROOT = Path(__file__).resolve().parents[1]
MAX_LINES = 700


def strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's components of more than one module, or of one that imports itself."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1 or node in graph.get(node, ()):
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_tarjan_finds_a_cycle_and_only_cycles() -> None:
    assert strongly_connected({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert strongly_connected({"a": {"b"}, "b": set()}) == []


def test_no_module_of_the_server_imports_itself_back() -> None:
    imports = grimp.build_graph("server")
    graph = {
        module: {
            other
            for other in imports.find_modules_directly_imported_by(module)
            # a module's own package is imported first by Python itself: not a dependency
            if not module.startswith(other + ".")
        }
        for module in imports.modules
    }
    assert strongly_connected(graph) == []


def test_the_layers_hold() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "importlinter.cli", "--config", str(ROOT / "pyproject.toml")],
        cwd=ROOT, capture_output=True, text=True, check=False,
    )  # fmt: skip
    if done.returncode != 0 and "No module named importlinter.cli" in done.stderr:
        pytest.skip("import-linter's module entry point moved")
    assert done.returncode == 0, done.stdout + done.stderr


def sources() -> list[Path]:
    found = [*ROOT.glob("server/**/*.py"), *ROOT.glob("client/**/*.js")]
    return sorted(p for p in found if "vendor" not in p.parts)


@pytest.mark.parametrize("path", sources(), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_module_is_longer_than_one_sitting(path: Path) -> None:
    lines = len(path.read_text(encoding="utf-8").splitlines())
    assert lines <= MAX_LINES, f"{path.relative_to(ROOT)}: {lines} lines"


# -- seats and teams: the seats modules alone do seat arithmetic ---------------------------

SEATS_MODULES = {ROOT / "server/engine/seats.py", ROOT / "client/js/engine/seats.js"}
# folders whose two-seat code is being taught four seats right now (issue 26 for the
# engines and the players): each leaves this list in the commit that clears it
PENDING: tuple[str, ...] = ("server/engine/", "server/ai/", "client/js/engine/", "client/js/ai/")
# `1 - seat` and its kin (an index into a pair by its complement), and a literal pair of
# seats or teams: `(0, 1)`, `[0, 1]`, `(1, 0)`, `range(2)`
TWO_SEATS = re.compile(
    r"(?<![\w.])1\s*-\s*(?!0\b|1\b)[A-Za-z_][\w.]*(?!\s*[(\[])"
    r"|[(\[]\s*0\s*,\s*1\s*[)\]]|[(\[]\s*1\s*,\s*0\s*[)\]]|\brange\(\s*2\s*\)"
)
OPERAND_BEFORE = re.compile(r"[\w.)\]]\s*[-+*/]\s*$|-\s*$")  # `n + 1 - x`, `-1 - x`: not a seat's


def two_seat_matches(code: str) -> list[str]:
    """What reads as seat arithmetic in ``code`` (a ``1 - x`` inside a longer sum is not)."""
    return [
        m.group(0)
        for m in TWO_SEATS.finditer(code)
        if not (m.group(0).startswith("1") and OPERAND_BEFORE.search(code[: m.start()][-40:]))
    ]


FSTRING_TEXT = getattr(tokenize, "FSTRING_MIDDLE", tokenize.STRING)  # Python 3.12 and later


def code_of_python(path: Path) -> str:
    """The code of a Python module without its comments and strings (docstrings too)."""
    out = []
    with path.open("rb") as f:
        for token in tokenize.tokenize(f.readline):
            if token.type in (tokenize.COMMENT, tokenize.STRING, tokenize.ENCODING, FSTRING_TEXT):
                out.append(" ")
            else:
                out.append(token.string)
    return " ".join(out)


def code_of_js(path: Path) -> str:
    """The code of a JavaScript module without its comments and strings: a template's text
    goes, its ``${…}`` stays (code, however deep the templates nest)."""
    return js_code(path.read_text(encoding="utf-8"))


def js_code(text: str) -> str:
    out: list[str] = []
    # one frame per open template: how many braces its current ${…} has open (-1: in text)
    templates: list[int] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if templates and templates[-1] < 0:  # a template's text
            if ch == "\\":
                i += 2
            elif ch == "`":
                templates.pop()
                i += 1
            elif text.startswith("${", i):
                templates[-1] = 0
                out.append(" ")
                i += 2
            else:
                i += 1
            continue
        if text.startswith("//", i):
            i = text.find("\n", i)
            i = n if i < 0 else i
        elif text.startswith("/*", i):
            i = text.find("*/", i + 2)
            i = n if i < 0 else i + 2
        elif ch in "'\"":
            i += 1
            while i < n and text[i] != ch and text[i] != "\n":
                i += 2 if text[i] == "\\" else 1
            i += 1
            out.append(" ")
        elif ch == "`":
            templates.append(-1)
            out.append(" ")
            i += 1
        else:
            if templates and ch == "{":
                templates[-1] += 1
            elif templates and ch == "}":
                if templates[-1] == 0:  # the end of a ${…}: back to the template's text
                    templates[-1] = -1
                    out.append(" ")
                    i += 1
                    continue
                templates[-1] -= 1
            out.append(ch)
            i += 1
    return "".join(out)


def two_seat_sites() -> list[str]:
    found: list[str] = []
    files = [*sorted((ROOT / "server").rglob("*.py")), *sorted((ROOT / "client/js").rglob("*.js"))]
    for path in files:
        relative = path.relative_to(ROOT).as_posix()
        if path in SEATS_MODULES or "vendor" in path.parts or relative.startswith(PENDING):
            continue
        code = code_of_python(path) if path.suffix == ".py" else code_of_js(path)
        found.extend(f"{relative}: {text!r}" for text in two_seat_matches(code))
    return found


def test_a_templates_code_is_read_and_its_text_is_not() -> None:
    code = js_code("const a = `x ${s[1 - w]} ${`in ${1 - me}`} y`; // 1 - seat\nf('1 - t');")
    assert two_seat_matches(code) == ["1 - w", "1 - me"]
    assert two_seat_matches(js_code('`1 - seat` + "1 - seat" /* [0, 1] */')) == []


def test_the_pattern_finds_two_seat_arithmetic_and_nothing_else() -> None:
    hits = ["1 - seat", "1 - view.seat", "(0, 1)", "[0, 1]", "range(2)", "for p in (1, 0)"]
    misses = ["x + 1 - y(2)", "n - 1 - seat", "range(20)", "(0, 10)", "1 - 0", "-1 - trailed"]
    assert all(two_seat_matches(text) for text in hits)
    assert not [text for text in misses if two_seat_matches(text)]


def test_only_the_seats_modules_do_seat_arithmetic() -> None:
    """Outside server/engine/seats.py and client/js/engine/seats.js nothing counts on two
    seats: no `1 - seat`, no literal pair of seats or teams (ask the seats module)."""
    assert two_seat_sites() == []


# -- the room's state: changed by its own methods -------------------------------------------

ROOM_PARTS = {"actor.py", "live.py", "sockets.py", "timers.py"}  # the room and its parts


def room_assignments(path: Path) -> list[str]:
    """Assignments (and deletions) of a room's attributes, or of its parts' (``room.x = ``,
    ``room.sockets.y[k] = ``, ``room.x += ``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: list[str] = []

    def rooted_at_room(node: ast.expr) -> bool:
        while isinstance(node, ast.Attribute | ast.Subscript):
            node = node.value
        return isinstance(node, ast.Name) and node.id == "room"

    for node in ast.walk(tree):
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = list(node.targets)
        elif isinstance(node, ast.AugAssign | ast.AnnAssign):
            targets = [node.target]
        elif isinstance(node, ast.Delete):
            targets = list(node.targets)
        for target in targets:
            if isinstance(target, ast.Attribute | ast.Subscript) and rooted_at_room(target):
                found.append(f"{path.name}:{target.lineno}: {ast.unparse(target)}")
    return found


def test_no_job_module_assigns_a_rooms_state() -> None:
    """A room's state is changed through the actor's own methods (docs/architecture.md,
    "The room"): no module of server/rooms/ but the room and its parts assigns one."""
    modules = sorted((ROOT / "server/rooms").glob("*.py"))
    assert {p.name for p in modules} >= ROOM_PARTS
    found = [
        hit for path in modules if path.name not in ROOM_PARTS for hit in room_assignments(path)
    ]
    assert found == []


def test_the_check_sees_an_assignment_of_a_rooms_part(tmp_path: Path) -> None:
    module = tmp_path / "job.py"
    module.write_text("def f(room):\n    room.live.match = 1\n    room.timers.idle += 1\n")
    assert len(room_assignments(module)) == 2
