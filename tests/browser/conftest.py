"""Fixtures of the browser tests: the real server (``python -m server`` on a free port, a
temporary SQLite file, COMPUTER_DELAY=0, a 3 s grace time) and Debian's chromium."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.support.browserkit import PHONE, Player
from tests.support.srvkit import ServerProc

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
GRACE_SECONDS = 3.0  # long enough to see the countdown tick


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    if Path(CHROMIUM).exists():
        return
    skip = pytest.mark.skip(reason=f"chromium not found at {CHROMIUM}")
    for item in items:
        if "browser" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(scope="session")
def web_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProc]:
    tmp = tmp_path_factory.mktemp("browser-srv")
    proc = ServerProc(
        tmp,
        {
            "GRACE_SECONDS": str(GRACE_SECONDS),
            "WS_RATE": "1000",
            "WS_BURST": "1000",
            "RATE_ROOMS_PER_MIN": "10000",
            "RATE_JOIN_PER_MIN": "10000",
        },
    ).start()
    yield proc
    proc.stop()


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    """Module scope, not session: Playwright's sync API keeps an event loop running while
    it is open, which would stop the asyncio tests collected after this directory."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture
def make_player(browser: object, web_server: ServerProc) -> Iterator[Callable[..., Player]]:
    """``make_player(viewport=PHONE, anim_ms=0)``: a fresh device (browser context) on the
    server's front page. ``anim_ms`` is how long the opponent's move stays on screen."""
    contexts = []
    players: list[Player] = []

    def make(
        viewport: dict[str, int] | None = None,
        anim_ms: int = 0,
        reduced_motion: str = "no-preference",
        base: str | None = None,
    ) -> Player:
        context = browser.new_context(  # type: ignore[attr-defined]
            viewport=viewport or PHONE,
            locale="es-DO",
            reduced_motion=reduced_motion,
        )
        context.add_init_script(f"localStorage.setItem('casino.animMs', '{anim_ms}')")
        contexts.append(context)
        player = Player(context, context.new_page(), base or web_server.base)
        player.attach()
        players.append(player)
        return player

    yield make
    for context in contexts:
        context.close()
    errors = [e for p in players for e in p.errors]
    assert not errors, f"JavaScript errors in the page: {errors}"
