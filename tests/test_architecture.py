"""The house rules a newcomer can count on (docs/architecture.md): the server's layers hold
(import-linter's contracts in pyproject.toml, run here as the test command runs them), no
module of the server imports itself back through others (TYPE_CHECKING and lazy imports
included), and no module of the server or the client is longer than one sitting."""

from __future__ import annotations

import subprocess
import sys
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
