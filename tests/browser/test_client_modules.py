"""The browser client's modules as files (no browser needed): every import resolves to a
module that exports what is imported, no import cycle, each folder imports only its own
layer and those below (lib → ui → screens → app.js), no module over 700 lines (vendored
files aside), the service worker keeps every module the app loads, and each file parses
(`node --check`, when node is on the machine)."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

CLIENT = Path(__file__).resolve().parents[2] / "client"
JS = CLIENT / "js"
ENTRY = JS / "app.js"
MAX_LINES = 700
# what a module of each folder may import (its own folder and those below); the folders of
# the rules engine, the computer players and the worker that runs them (client/js/engine/,
# ai/, play/) import none of the page's
LAYERS = {
    "engine": {"engine"},  # the rules: nothing of the client's
    "ai": {"engine", "ai"},  # the computer players: the rules alone
    "lib": {"lib"},
    "ui": {"lib", "ui"},
    # the rules and the players put together (the oracle's requests, a game on the device,
    # the Web Worker), as server/engine/__main__.py does on the server: the page loads none
    # of it, only starts the worker by its address
    "play": {"engine", "ai", "play"},
    "screens": {"lib", "ui", "screens", "engine", "ai"},
    "app.js": {"lib", "ui", "screens", "engine", "ai"},
}
# seat arithmetic (how many seats, the next one, a seat's team) is written once, beside the
# engine, and imports nothing: any layer may import it (docs/architecture.md)
SEATS = JS / "engine" / "seats.js"
CLASSIC_SCRIPTS = {CLIENT / "sw.js", JS / "offline.js", JS / "early.js"}  # not ES modules

BLOCK_COMMENT = re.compile(r"/\*.*?\*/", re.S)
IMPORT = re.compile(
    r"^\s*(?:import|export)\s+(?:([\w$*{},\s]+?)\s+from\s+)?[\"']([^\"']+)[\"']", re.M
)
DYNAMIC_IMPORT = re.compile(r"\bimport\(\s*[\"']([^\"']+)[\"']")
EXPORT_DECL = re.compile(
    r"^export\s+(?:async\s+)?(?:function\*?|class|const|let|var)\s+([A-Za-z_$][\w$]*)", re.M
)
EXPORT_LIST = re.compile(r"^export\s*\{([^}]*)\}", re.M)


def modules() -> list[Path]:
    return sorted(p for p in JS.rglob("*.js") if "vendor" not in p.parts)


def code_of(path: Path) -> str:
    return BLOCK_COMMENT.sub("", path.read_text(encoding="utf-8"))


def imports(path: Path) -> list[tuple[Path, set[str]]]:
    """(module imported, the names it is asked for) for each import of `path`."""
    text = code_of(path)
    found: list[tuple[Path, set[str]]] = []
    for clause, spec in IMPORT.findall(text):
        names: set[str] = set()
        braces = re.search(r"\{([^}]*)\}", clause or "")
        if braces:
            for item in braces.group(1).split(","):
                if item.strip():
                    names.add(item.split(" as ")[0].strip())
        found.append((resolve(path, spec), names))
    found.extend((resolve(path, spec), set()) for spec in DYNAMIC_IMPORT.findall(text))
    return found


def resolve(importer: Path, spec: str) -> Path:
    assert spec.startswith("."), f"{importer}: {spec!r} is not a relative import (no bare modules)"
    return (importer.parent / spec).resolve()


def exported(path: Path) -> set[str]:
    text = code_of(path)
    names = set(EXPORT_DECL.findall(text))
    for group in EXPORT_LIST.findall(text):
        names |= {item.split(" as ")[-1].strip() for item in group.split(",") if item.strip()}
    return names


def layer(path: Path) -> str:
    rel = path.relative_to(JS)
    return rel.parts[0] if len(rel.parts) > 1 else rel.name


def graph() -> dict[Path, list[Path]]:
    return {m.resolve(): [target for target, _ in imports(m)] for m in modules()}


def test_every_import_resolves_to_a_module_that_exports_it() -> None:
    problems = []
    for module in modules():
        for target, names in imports(module):
            if not target.is_file():
                problems.append(f"{module.relative_to(CLIENT)}: no file {target}")
                continue
            missing = names - exported(target)
            if missing:
                problems.append(
                    f"{module.relative_to(CLIENT)}: {target.relative_to(CLIENT)} does not "
                    f"export {sorted(missing)}"
                )
    assert not problems, "\n".join(problems)


def test_no_import_cycle() -> None:
    edges = graph()
    state: dict[Path, str] = {}
    cycles: list[list[Path]] = []

    def visit(node: Path, path: list[Path]) -> None:
        state[node] = "open"
        for nxt in edges.get(node, []):
            if state.get(nxt) == "open":
                cycles.append([*path[path.index(nxt) :], nxt])
            elif nxt not in state:
                visit(nxt, [*path, nxt])
        state[node] = "done"

    for node in edges:
        if node not in state:
            visit(node, [node])
    shown = [" → ".join(str(p.relative_to(JS)) for p in cycle) for cycle in cycles]
    assert not cycles, "import cycles:\n" + "\n".join(shown)


def test_each_folder_imports_only_its_layer_and_those_below() -> None:
    problems = []
    for module in modules():
        allowed = LAYERS.get(layer(module))
        if allowed is None:  # offline.js, early.js: nothing of the client's layers
            allowed = {layer(module)}
        for target, _ in imports(module):
            if target.is_file() and layer(target) not in allowed and target != SEATS:
                problems.append(f"{module.relative_to(JS)} imports {target.relative_to(JS)}")
    assert not problems, "\n".join(problems)


def test_the_seats_module_imports_nothing() -> None:
    assert imports(SEATS) == []


def test_no_module_over_700_lines() -> None:
    long = {
        str(m.relative_to(CLIENT)): n
        for m in [*modules(), CLIENT / "sw.js"]
        if (n := len(m.read_text(encoding="utf-8").splitlines())) > MAX_LINES
    }
    assert not long, long


def test_the_service_worker_keeps_every_module_the_app_loads() -> None:
    sw = (CLIENT / "sw.js").read_text(encoding="utf-8")
    shell = re.search(r"const SHELL = \[(.*?)\];", sw, re.S)
    assert shell is not None
    kept = set(re.findall(r"\"(/static/[^\"]+)\"", shell.group(1)))
    for path in kept:
        assert (CLIENT / path.removeprefix("/static/")).is_file(), f"sw.js keeps {path}: no file"
    edges = graph()
    loaded, todo = set(), [ENTRY.resolve()]
    while todo:
        module = todo.pop()
        if module not in loaded:
            loaded.add(module)
            todo.extend(edges.get(module, []))
    paths = {"/static/" + str(m.relative_to(CLIENT)) for m in loaded}
    missing = sorted(paths - kept)
    assert not missing, f"sw.js does not keep {missing}"


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not on this machine")
@pytest.mark.parametrize(
    "path", [*modules(), CLIENT / "sw.js"], ids=lambda p: str(p.relative_to(CLIENT))
)
def test_node_parses_it(path: Path) -> None:
    # through stdin with --input-type: `node --check file.js` does not report some syntax
    # errors of a file it guesses is a module (Node 20)
    kind = "commonjs" if path in CLASSIC_SCRIPTS else "module"
    answer = subprocess.run(
        ["node", f"--input-type={kind}", "--check"],
        input=path.read_bytes(),
        capture_output=True,
        timeout=30,
        check=False,
    )
    assert answer.returncode == 0, answer.stderr.decode()


def test_the_offline_kit_is_every_module_the_engine_worker_loads() -> None:
    """sw.js `KIT` (fetched after the first online table) is exactly the worker's graph but
    what `SHELL` keeps already (fetched at install, before any table: engine/seats.js, which
    the page imports too), and none of it is in `SHELL`."""
    sw = (CLIENT / "sw.js").read_text(encoding="utf-8")
    kit = re.search(r"const KIT = \[(.*?)\];", sw, re.S)
    shell = re.search(r"const SHELL = \[(.*?)\];", sw, re.S)
    assert kit is not None and shell is not None
    kept = set(re.findall(r"\"(/static/[^\"]+)\"", kit.group(1)))
    edges = graph()
    loaded, todo = set(), [(JS / "play" / "worker.js").resolve()]
    while todo:
        module = todo.pop()
        if module not in loaded:
            loaded.add(module)
            todo.extend(edges.get(module, []))
    in_shell = set(re.findall(r"\"(/static/[^\"]+)\"", shell.group(1)))
    assert kept == {"/static/" + str(m.relative_to(CLIENT)) for m in loaded} - in_shell
    assert not kept & in_shell
