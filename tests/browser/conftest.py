"""Fixtures of the browser tests: the real server (``python -m server`` on a free port, a
temporary SQLite file, COMPUTER_DELAY=0, a 3 s grace time) and Debian's chromium."""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.support.browserkit import ARTIFACTS, PHONE, Player
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


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> object:
    """Keeps each phase's report on the test, for ``make_player`` to know it failed."""
    report = yield
    setattr(item, f"report_{call.when}", report)
    return report


def keep_failed_pages(name: str, players: list[Player]) -> None:
    """What each page of a failed test showed (``artifacts/failed-*``: a screenshot, its
    HTML and the console), for a failure on CI to be read afterwards."""
    for i, player in enumerate(players):
        stem = ARTIFACTS / f"failed-{name}-{i}"
        with contextlib.suppress(Exception):
            ARTIFACTS.mkdir(exist_ok=True)
            player.page.screenshot(path=f"{stem}.png")
            stem.with_suffix(".html").write_text(player.page.content())
            stem.with_suffix(".log").write_text("\n".join(player.console))
            print(f"failed page kept: {stem}.png, .html, .log; console tail:")
            print("\n".join(player.console[-15:]))


@pytest.fixture
def make_player(
    request: pytest.FixtureRequest, browser: object, web_server: ServerProc
) -> Iterator[Callable[..., Player]]:
    """``make_player(viewport=PHONE, anim_ms=0)``: a fresh device (browser context) on the
    server's front page. ``anim_ms`` is how long the opponent's move stays on screen;
    ``service_workers="block"``: a browser that runs none (a private window, say);
    ``locale``: the device's language (``navigator.languages``, ``Accept-Language``)."""
    contexts = []
    players: list[Player] = []

    def make(
        viewport: dict[str, int] | None = None,
        anim_ms: int = 0,
        reduced_motion: str = "no-preference",
        base: str | None = None,
        service_workers: str = "allow",
        locale: str = "es-DO",
    ) -> Player:
        context = browser.new_context(  # type: ignore[attr-defined]
            viewport=viewport or PHONE,
            locale=locale,
            reduced_motion=reduced_motion,
            service_workers=service_workers,
        )
        context.add_init_script(f"localStorage.setItem('casino.animMs', '{anim_ms}')")
        contexts.append(context)
        player = Player(context, context.new_page(), base or web_server.base)
        player.attach()
        players.append(player)
        return player

    yield make
    report = getattr(request.node, "report_call", None)
    if report is not None and report.failed:
        keep_failed_pages(re.sub(r"\W+", "-", request.node.name), players)
    for context in contexts:
        context.close()
    errors = [e for p in players for e in p.errors]
    assert not errors, f"JavaScript errors in the page: {errors}"
