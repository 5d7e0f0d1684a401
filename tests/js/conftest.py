"""Fixtures of the browser engine's tests: both oracles and the harness, each one process
for the whole session (every test talks to the same three)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.engine.oracles import NODE, Oracle, harness, oracle

if NODE is None:  # pragma: no cover - Node.js 20 is part of the machine
    pytest.skip("the browser engine's tests need Node.js (node)", allow_module_level=True)


def _running(make: Oracle) -> Iterator[Oracle]:
    yield make
    code, rest = make.close()
    assert code == 0 and rest == "", f"{make.name} ended with {code}: {rest[:2000]}"


@pytest.fixture(scope="session")
def py_oracle() -> Iterator[Oracle]:
    yield from _running(oracle("python"))


@pytest.fixture(scope="session")
def js_oracle() -> Iterator[Oracle]:
    yield from _running(oracle("js"))


@pytest.fixture(scope="session")
def js() -> Iterator[Oracle]:
    """The harness: the browser engine's parts the oracle does not show."""
    yield from _running(harness())
