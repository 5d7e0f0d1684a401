"""The client's own looks and manners (issue 11): four distinct looks on the table, arrow
keys, focus after each move, "Te toca" in a hidden tab, axe on Inicio and the invitation,
the installable app (manifest, icons, service worker, offline page). Gzip and ETag:
tests/server/test_server_static.py."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.support.a11y import assert_no_violations
from tests.support.browserkit import (
    LANDSCAPE,
    LAPTOP,
    PHONE,
    Player,
    distinct_solo,
    without_the_offline_kit,
)
from tests.support.srvkit import ServerProc

pytestmark = pytest.mark.browser

MakePlayer = Callable[..., Player]


def start_computer_game(player: Player) -> None:
    player.goto("/")
    player.page.click("button[data-level='facil']")
    player.page.wait_for_selector(".mesa[data-seq]")


def style(player: Player, selector: str, prop: str) -> str:
    return str(player.page.locator(selector).first.evaluate(f"e => getComputedStyle(e).{prop}"))


def test_chosen_marked_preview_and_focus_each_look_different(make_player: MakePlayer) -> None:
    me = make_player(viewport=LAPTOP)
    start_computer_game(me)
    # a card whose Llevarte takes something, and a table item it would not take
    option = me.play_until(lambda o: bool(o["llevarte"]) and distinct_solo(o))
    if option is None:
        option = me.play_until(lambda o: bool(o["llevarte"]))
    assert option is not None, "no capture in two hands"
    me.choose(option)
    taken = option["llevarte"]["take"]
    hand_card = f".hand .card[data-code='{option['card']}']"
    preview = f".table-area [data-id='{taken[0]}']"
    # chosen: gold border, raised; the preview: a dashed outline, not raised, not marked
    assert style(me, hand_card, "borderTopColor") == "rgb(255, 224, 138)"
    assert (
        "translate" in style(me, hand_card, "transform")
        or style(me, hand_card, "transform") != "none"
    )
    assert style(me, preview, "outlineStyle") == "dashed"
    assert style(me, preview, "transform") == "none"
    assert me.page.locator(preview).get_attribute("aria-pressed") == "false"
    assert "te la llevarías" in (
        me.page.locator(preview).get_attribute("aria-label") or ""
    ) or "te lo llevarías" in (me.page.locator(preview).get_attribute("aria-label") or "")
    if distinct_solo(option):
        # "Llevarte solo" says what it takes
        solo = me.page.locator(".actions button.take-solo").inner_text()
        names = [
            me.page.locator(f".table-area [data-id='{i}']").get_attribute("aria-label") or ""
            for i in option["llevarte_solo"]["take"]
        ]
        assert solo.startswith("Llevarte solo ")
        for item, label in zip(option["llevarte_solo"]["take"], names, strict=True):
            shown = label.split(",")[0] if not item.startswith("p") else "montón de"
            assert shown in solo, (solo, label)
    # marked by the player: blue border and a check
    me.page.click(preview)
    assert style(me, preview, "borderTopColor") == "rgb(47, 125, 255)"
    assert me.page.locator(f"{preview} .mark-badge").count() == 1
    assert me.page.locator(".table-area .would-take").count() == 0
    # keyboard focus: a cyan ring, unlike the three others
    me.page.keyboard.press("Shift+Tab")
    me.page.keyboard.press("Tab")
    focused = me.page.evaluate(
        "() => { const e = document.activeElement; const s = getComputedStyle(e);"
        " return [e.matches(':focus-visible'), s.outlineColor, s.outlineStyle]; }"
    )
    assert focused == [True, "rgb(127, 219, 255)", "solid"]


def test_arrow_keys_move_along_the_hand_and_the_table(make_player: MakePlayer) -> None:
    me = make_player()
    start_computer_game(me)
    me.wait_my_turn()
    hand = me.hand()
    page = me.page
    page.wait_for_function("() => document.activeElement.matches('.hand .card')")
    page.focus(f".hand .card[data-code='{hand[0]}']")
    active = "() => document.activeElement.dataset.code || document.activeElement.dataset.id"
    page.keyboard.press("ArrowRight")
    assert page.evaluate(active) == hand[1]
    page.keyboard.press("End")
    assert page.evaluate(active) == hand[-1]
    page.keyboard.press("ArrowRight")  # stays at the end
    assert page.evaluate(active) == hand[-1]
    page.keyboard.press("Home")
    assert page.evaluate(active) == hand[0]
    items = page.locator(".table-area [data-id]").evaluate_all("els => els.map(e => e.dataset.id)")
    page.focus(f".table-area [data-id='{items[0]}']")
    page.keyboard.press("ArrowDown")
    assert page.evaluate(active) == items[1]
    page.keyboard.press("ArrowLeft")
    assert page.evaluate(active) == items[0]


HIDDEN_TAB = """
window.__hidden = false;
Object.defineProperty(Document.prototype, 'visibilityState',
  { configurable: true, get() { return window.__hidden ? 'hidden' : 'visible'; } });
Object.defineProperty(Document.prototype, 'hidden',
  { configurable: true, get() { return window.__hidden; } });
window.__shown = [];
class FakeNotification {
  constructor(title, options) { window.__shown.push([title, options && options.body]); }
  static requestPermission() {
    FakeNotification.permission = 'granted';
    return Promise.resolve('granted');
  }
}
FakeNotification.permission = 'default';
window.Notification = FakeNotification;
"""


def test_te_toca_in_a_hidden_tab(make_player: MakePlayer) -> None:
    """Title and favicon say it; with permission given in the Menú, one system
    notification per turn (the browser's Notification API is stubbed: no real desktop)."""
    me = make_player()
    me.context.add_init_script(HIDDEN_TAB)
    start_computer_game(me)
    me.wait_my_turn()
    page = me.page
    assert page.title() == "Casino dominicano"
    page.click(".menu-button")
    page.click("dialog.menu button.alerts")
    page.wait_for_selector("dialog.menu button.alerts[aria-checked='true']")
    page.keyboard.press("Escape")
    hide = "(h) => { window.__hidden = h; document.dispatchEvent(new Event('visibilitychange')); }"
    page.evaluate(hide, True)
    assert page.title() == "¡Te toca! · Casino dominicano"
    assert page.locator("link[rel=icon]").get_attribute("href") == "/static/icon-turn.svg"
    assert page.evaluate("() => window.__shown.length") == 1
    # a move while away; the computer answers: a new turn, a new notification
    me.play_turn()
    me.wait_turn_or_sheet()
    page.wait_for_function("() => window.__shown.length === 2")
    shown = page.evaluate("() => window.__shown")
    assert shown[1][0] == "Te toca" and "computadora" in shown[1][1]
    page.evaluate(hide, False)
    assert page.title() == "Casino dominicano"
    assert page.locator("link[rel=icon]").get_attribute("href") == "/static/icon.svg"


def test_inicio_and_the_invitation_pass_axe(make_player: MakePlayer) -> None:
    host = make_player()
    host.goto("/")
    host.page.wait_for_selector("main[data-screen='inicio']")
    assert host.page.locator("h1").count() == 1
    assert_no_violations(host.page, "Inicio")
    host.page.fill("#nombre", "Ana")
    host.page.click("button.friend")
    link = host.page.locator("[data-invite-link]")
    link.wait_for()
    assert host.page.locator("h1").count() == 1
    assert_no_violations(host.page, "waiting for the friend")
    host.screenshot("invitacion-360x740")
    guest = make_player(viewport=LANDSCAPE)
    guest.page.goto(link.get_attribute("href") or "")
    guest.page.wait_for_selector("main[data-screen='unirse']")
    assert guest.page.locator("h1").all_inner_texts() == ["¡Ana te invitó a jugar casino!"]
    assert_no_violations(guest.page, "the invitation")
    guest.screenshot("invitado-740x360")


def test_installable_and_an_offline_page(make_player: MakePlayer, tmp_path: Path) -> None:
    server = ServerProc(tmp_path, {}).start()
    try:
        me = make_player(base=server.base)
        me.goto("/")
        page = me.page
        manifest_href = page.locator("link[rel=manifest]").get_attribute("href") or ""
        manifest = server.get(manifest_href)
        assert manifest.status_code == 200
        data = json.loads(manifest.text)
        assert data["lang"] == "es-DO" and data["start_url"] == "/"
        assert data["display"] == "standalone"
        sizes = {icon["sizes"] for icon in data["icons"]}
        assert {"192x192", "512x512"} <= sizes
        assert any(icon.get("purpose") == "maskable" for icon in data["icons"])
        for icon in data["icons"]:
            answer = server.get(icon["src"])
            assert answer.status_code == 200 and answer.headers["content-type"] == icon["type"]
        touch = page.locator("link[rel=apple-touch-icon]").get_attribute("href") or ""
        assert server.get(touch).headers["content-type"] == "image/png"
        # the service worker controls the whole site once it is active
        scope = page.evaluate("async () => (await navigator.serviceWorker.ready).scope")
        assert scope == server.base + "/"
        page.reload()
        page.wait_for_function("() => navigator.serviceWorker.controller !== null")
        page.wait_for_selector("main[data-screen='inicio']")
        # the offline page is for a device that does not keep the offline game yet (one
        # that does opens the app itself: test_offline.py)
        without_the_offline_kit(page)
        server.stop()
        page.goto(server.base + "/")
        page.wait_for_selector("h1 >> text=No hay conexión")
        assert page.locator("html").get_attribute("lang") == "es-DO"
        assert "Tu partida no se pierde" in page.locator("main").inner_text()
        assert page.get_by_role("button", name="Probar otra vez").count() == 1
        me.screenshot("sin-conexion-360x740")
    finally:
        server.stop()


def test_focus_goes_to_the_hand_after_each_own_move(make_player: MakePlayer) -> None:
    """Keyboard only: arrows to a card, Enter, its action, Enter; then the focus is on the
    hand again (not at the top of the page)."""
    me = make_player(viewport=PHONE)
    start_computer_game(me)
    page = me.page
    for _ in range(3):
        if me.wait_turn_or_sheet() == "sheet":
            break
        page.wait_for_function("() => document.activeElement.matches('.hand .card')")
        options = me.view()["options"]
        option = next(o for o in options if o["llevarte"] or o["trail"])
        page.keyboard.press("Home")
        for _ in range(me.hand().index(option["card"])):
            page.keyboard.press("ArrowRight")
        page.keyboard.press("Enter")
        page.wait_for_function("() => document.activeElement.matches('.actions button')")
        page.focus(".actions button.take" if option["llevarte"] else ".actions button.trail")
        before = me.seq()
        page.keyboard.press("Enter")
        page.wait_for_function(
            "(s) => Number(document.querySelector('.mesa').dataset.seq) > s", arg=before
        )
