"""What of a catalog the browser fetches (issue 28's bytes goal, server/i18n/browser.py):
the screens' texts of the language in use before the first screen, never the other
language's; the reading pages' texts only when one opens; and, once the offline kit is kept,
the reading pages open with no network too."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from playwright.sync_api import Route

from tests.browser.test_english import assert_only
from tests.browser.test_offline import KIT_SAID
from tests.support.browserkit import Player

pytestmark = pytest.mark.browser

MakePlayer = Callable[..., Player]


def test_the_reading_words_come_when_a_reading_page_opens(make_player: MakePlayer) -> None:
    cousin = make_player(locale="en-US")
    page = cousin.page
    asked: list[str] = []
    page.on("request", lambda r: asked.append(r.url.removeprefix(cousin.base)))
    cousin.goto("/")
    page.wait_for_selector("main[data-screen='inicio'] nav.links")
    page.wait_for_load_state("networkidle")
    words = [url for url in asked if url.startswith("/static/i18n/")]
    assert words == ["/static/i18n/en.json"], words
    assert_only(cousin, "en")
    page.click("nav.links button:text('How to play')")
    page.wait_for_selector(".page.reading h1:text('How to play')")
    assert "/static/i18n/reading/en.json" in asked
    assert "sweep" in page.locator(".page.reading").inner_text().lower()
    assert_only(cousin, "en")


def test_the_reading_pages_open_offline_once_the_kit_is_kept(make_player: MakePlayer) -> None:
    """The service worker keeps the reading pages' words with the offline kit (Inicio up and
    idle), before any reading page was opened: with no network, they open in the language."""
    cousin = make_player(locale="en-US")
    page = cousin.page
    cousin.goto("/")
    page.wait_for_selector(KIT_SAID, state="attached")
    page.wait_for_function("() => navigator.serviceWorker.controller !== null")
    cousin.context.set_offline(True)
    page.goto(cousin.base + "/")
    page.wait_for_selector("main[data-screen='inicio'] nav.links")
    page.click("nav.links button:text('About casino')")
    page.wait_for_selector(".page.reading h1:text('About casino')")
    assert len(page.locator(".page.reading").inner_text()) > 500
    assert_only(cousin, "en")


def test_words_that_come_after_the_page_loaded_still_keep_the_offline_kit(
    make_player: MakePlayer,
) -> None:
    """The app's modules wait for the words (lib/i18n.js): a catalog slower than the page's
    own load (a busy phone) must not leave the service worker unregistered and the offline
    kit never asked for (a "load" listener added after the load never runs)."""
    slow = make_player()
    page = slow.page
    held: list[Route] = []
    page.route("**/static/i18n/es-DO.json", lambda route: held.append(route))  # answered below
    slow.goto("/")  # returns once the page has loaded: the words are still on their way
    assert page.evaluate("document.readyState") == "complete"
    assert page.locator("main[data-screen='inicio']").count() == 0
    assert len(held) == 1
    held[0].continue_()
    page.wait_for_selector("main[data-screen='inicio']")
    page.wait_for_selector(KIT_SAID, state="attached", timeout=60_000)
    assert page.evaluate("async () => Boolean(await navigator.serviceWorker.getRegistration())")
