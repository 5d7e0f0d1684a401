"""What a test needs around it: the services it may skip without (``skip_unless_there``:
``SKIP_POSTGRES`` / ``SKIP_REDIS``, set by scripts/test.sh when the service is missing and
cannot be installed; never in CI, ``CI=true``, where a missing service fails the test), and
a client folder of a test's own (``client_dir``)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

INDEX_HTML = "<!doctype html><title>prueba</title><p>cliente de prueba</p>"


def client_dir(tmp: Path) -> Path:
    client = tmp / "client"
    client.mkdir()
    (client / "index.html").write_text(INDEX_HTML)
    (client / "app.js").write_text("console.log('hola');")
    return client


def skip_unless_there(service: str) -> None:
    reason = os.environ.get(f"SKIP_{service.upper()}")
    if reason and os.environ.get("CI") != "true":
        pytest.skip(reason if reason != "1" else f"SKIP_{service.upper()} is set")
