"""Prints the mutation score per file of the last mutmut run (scripts/mutate.sh).

Reads mutmut's own result files (``mutants/**/*.py.meta``): per mutant, the exit code of
its test run. Killed: a test failed (or timed out); survived: every test passed; no tests:
no in-process test reaches the mutated function. The score is killed / (killed + survived
+ no tests), a timeout counting as killed; mutants not run yet are counted apart.
``--survivors`` lists the mutants not killed; ``--to-run PATTERN`` prints, one a line, the
names matching PATTERN (fnmatch) that are not killed yet or not run, for ``mutmut run``.
"""

from __future__ import annotations

import fnmatch
import json
import sys
from collections import Counter
from pathlib import Path

KILLED = {1, 3}  # a failing test, pytest's internal error
TIMEOUT = {24, -24, 152, 255, 36}  # stopped for taking too long: counted as killed
SURVIVED = {0}
NO_TESTS = {5, 33}
ROOT = Path(__file__).resolve().parents[1]


def verdict(code: int | None) -> str:
    if code is None:
        return "not run"
    if code in KILLED:
        return "killed"
    if code in TIMEOUT:
        return "timeout"
    if code in SURVIVED:
        return "survived"
    if code in NO_TESTS:
        return "no tests"
    return "other"


def main(argv: list[str]) -> int:
    metas = sorted((ROOT / "mutants").rglob("*.py.meta"))
    if not metas:
        print("no mutation results: run bash scripts/mutate.sh first")
        return 1
    if argv[:1] == ["--to-run"]:
        for meta in metas:
            codes = json.loads(meta.read_text(encoding="utf-8"))["exit_code_by_key"]
            for name, code in sorted(codes.items()):
                if verdict(code) not in ("killed", "timeout") and any(
                    fnmatch.fnmatch(name, pattern) for pattern in argv[1:] or ["*"]
                ):
                    print(name)
        return 0
    print(
        f"{'file':32} {'killed':>6} {'timeout':>7} {'survived':>8} {'no tests':>8}"
        f" {'other':>5} {'not run':>7} {'score':>7}"
    )
    totals: Counter[str] = Counter()
    survivors: list[str] = []
    for meta in metas:
        codes = json.loads(meta.read_text(encoding="utf-8"))["exit_code_by_key"]
        counts = Counter(verdict(code) for code in codes.values())
        survivors += sorted(
            k for k, code in codes.items() if verdict(code) not in ("killed", "timeout", "not run")
        )
        totals.update(counts)
        print(row(str(meta.relative_to(ROOT / "mutants"))[: -len(".meta")], counts))
    print(row("all", totals))
    if "--survivors" in argv:
        print("\nnot killed:")
        for name in survivors:
            print("  ", name)
    return 0


def row(name: str, counts: Counter[str]) -> str:
    killed = counts["killed"] + counts["timeout"]
    judged = killed + counts["survived"] + counts["no tests"] + counts["other"]
    score = f"{100 * killed / judged:6.1f}%" if judged else "      -"
    return (
        f"{name:32} {counts['killed']:6} {counts['timeout']:7} {counts['survived']:8}"
        f" {counts['no tests']:8} {counts['other']:5} {counts['not run']:7} {score}"
    )


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
