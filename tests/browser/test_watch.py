"""Watching a table (/v/<code>) and quick reactions, in Debian's chromium against the real
server, on a phone (360×740) and a laptop (1280×800)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.support.a11y import assert_no_violations
from tests.support.browserkit import LAPTOP, PHONE, Player, assert_fits

pytestmark = pytest.mark.browser

MakePlayer = Callable[..., Player]
SIZES = pytest.mark.parametrize("viewport", [PHONE, LAPTOP], ids=["phone", "laptop"])


def start_computer_game(player: Player, name: str = "Ana") -> None:
    player.goto("/")
    player.page.fill("#nombre", name)
    player.page.click("button[data-level='facil']")
    player.page.wait_for_selector(".mesa[data-seq]")


def start_friend_game(a: Player, b: Player) -> None:
    a.goto("/")
    a.page.fill("#nombre", "Ana")
    a.page.click("button.friend")
    href = a.page.locator("[data-invite-link]").get_attribute("href") or ""
    b.page.goto(href)
    b.page.fill("#nombre-invitado", "Beto")
    b.page.click("button[type=submit]")
    for p in (a, b):
        p.page.wait_for_selector(".mesa[data-seq]")
    a.page.wait_for_selector(".opp-name .conn-dot:not(.off)")


def watch_path(player: Player) -> str:
    path = str(player.welcome()["view"]["watch_url"])
    assert path.startswith("/v/") and len(path) == 15, path
    return path


def no_horizontal_scroll(player: Player) -> None:
    width, scroll = player.page.evaluate(
        "() => [innerWidth, document.scrollingElement.scrollWidth]"
    )
    assert scroll <= width + 1, f"the page scrolls sideways: {scroll} > {width}"


def announced(player: Player, text: str) -> None:
    player.page.wait_for_function(
        "(t) => document.getElementById('announcer').textContent.includes(t)", arg=text
    )


@SIZES
def test_a_watcher_opens_the_link_and_sees_the_moves_happen(
    make_player: MakePlayer,
    viewport: dict[str, int],
) -> None:
    me = make_player(viewport)
    start_computer_game(me)
    path = watch_path(me)
    # the player can hand out the link from the Menú
    me.page.click(".menu-button")
    me.page.click("button.watch-invite")
    link = me.page.locator("[data-watch-link]")
    assert (link.get_attribute("href") or "").endswith(path)
    me.page.keyboard.press("Escape")

    watcher = make_player(viewport)
    watcher.goto(path)
    page = watcher.page
    page.wait_for_selector(".mesa.watching[data-seq]")
    assert page.locator("h1").inner_text() == "Estás mirando"
    page.wait_for_selector(".watchers-count[data-watchers='1']")
    assert "1 persona mirando" in page.locator(".watchers-count").inner_text()
    # read only: no hand, no move buttons, no card to press; both hands as backs
    assert page.locator(".hand, .actions, .reaction-panel, .react-button").count() == 0
    assert page.locator(".table-area button").count() == 0
    assert page.locator(".player[data-seat='0'] .card.back").count() == 4
    assert page.locator(".player[data-seat='1'] .card.back").count() == 4
    assert "Ana" in page.locator(".score[data-score-seat='0'] .who").inner_text()
    # the player sees that somebody is watching
    me.page.wait_for_selector(".watchers-count[data-watchers='1']")
    if viewport == PHONE:
        assert_fits(me.page)
    no_horizontal_scroll(watcher)
    assert_no_violations(page, "the watcher's table")

    # moves happen: the player's and the computer's, each shown to the watcher
    for _ in range(3):
        me.wait_my_turn()
        before = int(page.locator(".mesa").get_attribute("data-seq") or "0")
        me.play_turn()
        page.wait_for_function(
            "(b) => Number(document.querySelector('.mesa').dataset.seq) >= b + 2", arg=before
        )
    me.wait_my_turn()
    seq = me.seq()
    page.wait_for_selector(f".mesa[data-seq='{seq}']")
    shown = page.locator(".table-area .card").evaluate_all("els => els.map(e => e.dataset.code)")
    assert sorted(shown) == sorted(me.view()["table"]["cards"])
    assert page.locator(".lastmove").inner_text().startswith("La computadora")
    # what the watcher's page received never held a hand
    views = [m["view"] for m in watcher.frames if "view" in m]
    assert views and all("hand" not in v and "options" not in v for v in views)
    assert watcher.frames[0]["type"] == "watching"
    watcher.screenshot(f"watch-{viewport['width']}")
    # the watcher leaves: the count goes back
    watcher.page.goto(watcher.base + "/")
    me.page.wait_for_selector(".watchers-count", state="detached")


def test_a_watch_link_that_does_not_exist(make_player: MakePlayer) -> None:
    watcher = make_player(PHONE)
    watcher.goto("/v/ZZZZZZZZZZZZ")
    watcher.page.wait_for_selector("text=No se puede mirar esa mesa")
    assert "Revisa el enlace" in watcher.page.locator("main").inner_text()
    watcher.page.click("text=Ir al inicio")
    watcher.page.wait_for_selector("button.friend")


@SIZES
def test_a_reaction_reaches_the_other_player_and_the_watchers_and_can_be_muted(
    make_player: MakePlayer,
    viewport: dict[str, int],
) -> None:
    a, b = make_player(viewport), make_player(viewport)
    start_friend_game(a, b)
    watcher = make_player(viewport)
    watcher.goto(watch_path(a))
    watcher.page.wait_for_selector(".mesa.watching[data-seq]")

    # Ana opens the picker by keyboard, moves to "¡Ay, no!" with an arrow and sends it
    a.page.focus(".react-button")
    a.page.keyboard.press("Enter")
    a.page.wait_for_selector(".reaction-panel")
    assert a.page.locator(".react-button").get_attribute("aria-expanded") == "true"
    a.page.wait_for_function(
        "() => document.activeElement.matches('.reaction-panel button[data-reaction=buena]')"
    )
    assert_no_violations(a.page, "the reaction picker")
    a.screenshot(f"react-picker-{viewport['width']}")
    if viewport == PHONE:  # the picker is inside the screen
        box = a.page.locator(".reaction-panel").bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"]
    a.page.keyboard.press("ArrowRight")
    a.page.keyboard.press("Enter")
    a.page.wait_for_selector(".reaction-panel", state="detached")
    a.page.wait_for_function("() => document.activeElement.matches('.react-button')")
    a.page.wait_for_selector(".score.me .reaction-bubble[data-reaction='ay_no']")

    # Beto sees it near Ana's name, and hears it politely
    b.page.wait_for_selector(".opponent .reaction-bubble[data-reaction='ay_no']")
    assert b.page.locator(".opponent .reaction-bubble").inner_text() == "¡Ay, no!"
    announced(b, "Ana dice: ¡Ay, no!")
    b.screenshot(f"react-bubble-{viewport['width']}")
    # so does the watcher, near Ana's side
    watcher.page.wait_for_selector(".player[data-seat='0'] .reaction-bubble[data-reaction='ay_no']")
    if viewport == PHONE:
        assert_fits(b.page)
    # a few seconds later the bubble is gone
    b.page.wait_for_selector(".opponent .reaction-bubble", state="detached", timeout=10_000)

    # Escape closes the picker and gives the focus back to its button
    a.page.click(".react-button")
    a.page.wait_for_selector(".reaction-panel")
    a.page.keyboard.press("Escape")
    a.page.wait_for_selector(".reaction-panel", state="detached")
    a.page.wait_for_function("() => document.activeElement.matches('.react-button')")

    # Beto mutes reactions in the Menú: Ana's next one arrives but is not shown nor said
    b.page.click(".menu-button")
    switch = b.page.locator("dialog .mute-reactions")
    switch.click()
    assert switch.get_attribute("aria-checked") == "true"
    b.page.keyboard.press("Escape")
    a.page.click(".react-button")
    a.page.click(".reaction-panel button[data-reaction='aplausos']")
    watcher.page.wait_for_selector(".reaction-bubble[data-reaction='aplausos']")
    # Ana then plays: frames to one socket arrive in order, so once Beto's page shows the
    # move, it has had the reaction too
    before = b.seq()
    a.wait_my_turn()
    a.play_turn()
    b.page.wait_for_function(
        "(s) => Number(document.querySelector('.mesa').dataset.seq) > s", arg=before
    )
    assert [m["reaction"] for m in b.frames if m.get("type") == "reaction"] == ["ay_no", "aplausos"]
    assert b.page.locator(".reaction-bubble").count() == 0
    assert "aplaude" not in b.page.locator("#announcer").inner_text()
    # remembered on this device
    b.page.reload()
    b.page.wait_for_selector(".mesa[data-seq]")
    assert b.page.evaluate("() => localStorage.getItem('casino.silenciarReacciones')") == "si"
    b.page.click(".react-button")
    assert b.page.locator(".reaction-panel .mute-reactions").get_attribute("aria-checked") == "true"
