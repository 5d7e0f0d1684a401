"""La mesa of four in Debian's chromium (issue 27): a game in pairs against three computers
with no network (Jugar sin conexión, "En parejas"), a whole hand played by clicks and keys at
360×740, the app closed and opened again offline at the same table; and the table of four
drawn at 740×360 and 1280×800, checked for fit and by axe. The partner sits across, the
rivals left and right with their card counts, the score boxes say "Nosotros" and "Ellos",
the sheet is by team, and the plays since the player's last one stay on screen."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
import pytest
from playwright.sync_api import Page

from tests.browser.test_offline import (
    READ_GAME,
    TURN_OR_SHEET,
    install,
    play_turn_by_clicks,
    table_state,
)
from tests.support.a11y import assert_no_violations
from tests.support.browserkit import (
    LANDSCAPE,
    LAPTOP,
    PHONE,
    Player,
    assert_fits,
    offered_actions,
)
from tests.support.srvkit import ServerProc
from tests.support.tablekit import play_by_socket

pytestmark = pytest.mark.browser

MakePlayer = Callable[..., Player]

PAIRS = ".sin-conexion button[data-offline-seats='4'][data-offline-level='{level}']"
AROUND = ".around .opponent"
LOCAL_ID = "() => JSON.parse(localStorage.getItem('casino.sinConexion')).id"


def around(page: Page) -> dict[str, Any]:
    """The three other seats as drawn: side, seat, name, card count, whether it plays now."""
    return dict(
        page.evaluate(
            """(sel) => Object.fromEntries([...document.querySelectorAll(sel)].map(e => [
          e.dataset.side, {seat: Number(e.dataset.seat), name: e.getAttribute('aria-label'),
            cards: Number(e.querySelector('[data-hand-size]').dataset.handSize),
            backs: e.querySelectorAll('.opp-cards .card-back, .opp-cards > *').length,
            moving: e.classList.contains("to-move"), text: e.textContent}]))""",
            AROUND,
        )
    )


def check_four_table(page: Page) -> None:
    """The table of four as this seat (0) sees it."""
    assert page.locator(".mesa.four[data-seats='4']").count() == 1
    seats = around(page)
    assert list(seats) == ["left", "partner", "right"]  # in that order, left to right
    assert {k: v["seat"] for k, v in seats.items()} == {"left": 3, "partner": 2, "right": 1}
    assert seats["partner"]["name"] == "Tu pareja"
    assert "tu equipo" in seats["partner"]["text"] and "el otro equipo" in seats["left"]["text"]
    for seat in seats.values():
        assert 0 <= seat["cards"] <= 4
        assert "Fácil" in seat["text"] or "Normal" in seat["text"]
    boxes = page.locator(".topbar .score .who").all_inner_texts()
    assert boxes == ["Nosotros", "Ellos"]
    turn = page.locator(".mesa .turn")
    turn_seat = int(turn.get_attribute("data-turn-seat") or "-1")
    if page.locator(".mesa").get_attribute("data-my-turn") == "true":
        assert turn_seat == 0 and "Te toca" in turn.inner_text()
        assert not any(s["moving"] for s in seats.values())
    else:
        moving = [k for k, s in seats.items() if s["moving"]]
        assert moving and seats[moving[0]]["seat"] == turn_seat


def choosing_fits(page: Page) -> None:
    """Each hand card chosen in turn, and the build panel where one offers it: still on
    screen, the table of four with them."""
    cards = page.locator(".hand .card")
    for i in range(cards.count()):
        cards.nth(i).click()
        page.wait_for_selector(".actions button.cancel")
        assert_fits(page, ".around", ".topbar")
        if "build" in offered_actions(page):
            page.click(".actions button.build")
            page.wait_for_selector(".mesa.building .build-panel")
            assert_fits(page, ".around", ".topbar", ".build-panel")
            page.click(".build-panel button.back")
    page.click(".actions button.cancel")


def play_hand_in_pairs(page: Page, shot: Callable[[str], object]) -> int:
    """Plays the player's cards to the end of the hand; between two of its turns the three
    other plays are told on screen and said. Returns how many turns it played."""
    turns = 0
    for turn in range(20):
        page.wait_for_function(TURN_OR_SHEET)
        if page.locator("dialog.sheet[open]").count():
            break
        check_four_table(page)
        plays = page.locator(".recent-plays li")
        if turns > 0:
            # the three plays since mine, the newest last, each a sentence with its player
            assert plays.count() == 3, page.locator(".recent-plays").inner_text()
            said = plays.all_inner_texts()
            starts = ("La computadora de la derecha", "Tu pareja", "La computadora de la izquierda")
            assert all(s.startswith(p) for s, p in zip(said, starts, strict=True)), said
            page.wait_for_function(
                "() => document.getElementById('announcer').textContent.includes('Te toca')"
            )
            announced = page.locator("#announcer").text_content() or ""
            assert "Tu pareja" in announced and "la derecha" in announced, announced
        if turn in (0, 1):  # the table as it starts, and with the three plays since mine
            assert_fits(page, ".around", ".topbar", ".status-lines")
            assert_no_violations(page, f"the offline table of four, turn {turn + 1}")
            shot(f"table-{turn + 1}")
        if turn == 2:
            choosing_fits(page)
        play_turn_by_clicks(page, keyboard=turn % 2 == 1)
        turns += 1
    else:
        raise AssertionError("the hand did not end")
    sheet = page.locator("dialog.sheet[open]")
    heads = sheet.locator("thead th").all_inner_texts()
    assert heads[1:] == ["Nosotros", "Ellos"], heads
    assert_no_violations(page, "the score sheet of four")
    shot("sheet")
    return turns


def test_a_hand_in_pairs_against_three_computers_with_no_network(make_player: MakePlayer) -> None:
    me = make_player(viewport=PHONE)
    install(me)
    page = me.page
    page.click("button.menu-button")  # back to Inicio, the online game kept
    page.click("dialog.menu >> text=Salir al inicio")
    page.wait_for_selector("main[data-screen='inicio']")
    me.context.set_offline(True)
    page.goto(me.base + "/")
    page.wait_for_selector("main[data-screen='inicio'] .sin-conexion")
    assert "En parejas" in page.locator(".sin-conexion").inner_text()
    assert_no_violations(page, "Inicio with no network, pairs offered")
    me.screenshot("parejas-inicio-360x740")
    page.click(PAIRS.format(level="facil"))
    page.wait_for_selector(".mesa.four[data-seq]")
    kept = page.evaluate(READ_GAME, page.evaluate(LOCAL_ID))
    assert kept["seats"] == 4 and kept["level"] == "facil"
    turns = play_hand_in_pairs(page, lambda name: me.screenshot(f"parejas-{name}-360x740"))
    assert turns == 12  # 52 = 4 + 3 deals × 16: twelve cards each
    kept = page.evaluate(READ_GAME, kept["id"])
    # the hand's 48 moves, and the next hand's first ones (seat 0 deals it: the three
    # computers lead) while the sheet is open
    assert 48 <= len(kept["moves"]) <= 51
    page.click("dialog.sheet button.next-hand")
    page.wait_for_function(TURN_OR_SHEET)

    # closed and opened again, still with no network: the same table of four
    before = table_state(page)
    plays = page.locator(".recent-plays li").all_inner_texts()
    assert len(plays) == 3, plays  # the three computers led the new hand
    page.close()
    me.new_page()
    page = me.page
    page.goto(me.base + "/")
    page.wait_for_selector(".mesa.four[data-seq]")
    page.wait_for_function(TURN_OR_SHEET)
    assert table_state(page) == before
    assert page.locator(".recent-plays li").all_inner_texts() == plays  # still told
    check_four_table(page)
    play_turn_by_clicks(page, keyboard=True)  # and it plays on
    page.wait_for_function(TURN_OR_SHEET)

    # Mis partidas lists it as a game in pairs
    page.click("button.menu-button")
    page.click("dialog.menu >> text=Salir al inicio")
    item = page.locator(".mis-partidas .game.local")
    item.wait_for()
    assert "En parejas" in item.inner_text() and "Nosotros" in item.inner_text()


@pytest.mark.parametrize("viewport", [LANDSCAPE, LAPTOP], ids=["740x360", "1280x800"])
def test_the_table_of_four_fits(make_player: MakePlayer, viewport: dict[str, int]) -> None:
    me = make_player(viewport=viewport)
    size = f"{viewport['width']}x{viewport['height']}"
    me.goto("/")
    page = me.page
    page.wait_for_selector("main[data-screen='inicio'] .sin-conexion")
    page.click(PAIRS.format(level="normal"))
    page.wait_for_selector(".mesa.four[data-seq]")
    page.wait_for_function(TURN_OR_SHEET)
    check_four_table(page)
    assert_fits(page, ".around", ".topbar", ".status-lines")
    assert_no_violations(page, f"the table of four at {size}")
    me.screenshot(f"parejas-table-{size}")
    choosing_fits(page)  # a card chosen, a pile being built: its actions on screen too
    play_turn_by_clicks(page, keyboard=False)
    page.wait_for_function(TURN_OR_SHEET)
    assert page.locator(".recent-plays li").count() == 3
    assert_fits(page, ".around", ".topbar", ".status-lines")
    assert_no_violations(page, f"the table of four after a round at {size}")
    me.screenshot(f"parejas-round-{size}")


def test_the_table_of_four_in_english(make_player: MakePlayer) -> None:
    me = make_player(viewport=PHONE, locale="en")
    me.goto("/")
    page = me.page
    page.wait_for_selector("main[data-screen='inicio'] .sin-conexion")
    assert "In pairs" in page.locator(".sin-conexion").inner_text()
    page.click(PAIRS.format(level="facil"))
    page.wait_for_selector(".mesa.four[data-seq]")
    page.wait_for_function(TURN_OR_SHEET)
    assert page.locator(".topbar .score .who").all_inner_texts() == ["Us", "Them"]
    seats = around(page)
    assert [s["name"] for s in seats.values()] == ["On your left", "Your partner", "On your right"]
    assert "other team" in seats["left"]["text"] and "your team" in seats["partner"]["text"]
    # every turn line drawn while the others play (each render, seen by an observer)
    page.evaluate(
        """() => { window.turnLines = [];
             new MutationObserver(() => {
               const line = document.querySelector('.mesa .turn')?.textContent;
               if (line && window.turnLines.at(-1) !== line) window.turnLines.push(line);
             }).observe(document.body, {childList: true, subtree: true, characterData: true}); }"""
    )
    play_turn_by_clicks(page, keyboard=False)
    page.wait_for_function(TURN_OR_SHEET)
    lines = page.evaluate("() => window.turnLines")
    others = [line for line in lines if line != "Your turn to play"]
    assert others and all(line.startswith("Now playing: ") for line in others), lines
    assert not any("'s turn" in line for line in lines), lines
    said = page.locator(".recent-plays li").all_inner_texts()
    assert [s.split(" played")[0].split(" trailed")[0] for s in said] == [
        "The computer on your right",
        "Your partner",
        "The computer on your left",
    ], said
    assert_fits(page, ".around", ".topbar", ".status-lines")
    assert_no_violations(page, "the table of four in English")


def four_computer_room(server: ServerProc) -> dict[str, Any]:
    """A table of four made by Ana with three computer chairs (docs/protocol.md)."""
    chairs = [{"kind": "computer", "level": "facil"}] * 3
    r = httpx.post(
        f"{server.base}/api/rooms",
        json={"seats": 4, "name": "Ana", "turns": False, "chairs": chairs},
        timeout=10,
    )
    assert r.status_code == 201, r.text
    return dict(r.json())


@pytest.mark.parametrize("viewport", [PHONE, LAPTOP], ids=["360x740", "1280x800"])
def test_a_watcher_sees_the_table_of_four(
    make_player: MakePlayer, web_server: ServerProc, viewport: dict[str, int]
) -> None:
    room = four_computer_room(web_server)
    # Ana plays until the three computers have played after her (seat 3 last)
    stop = play_by_socket(
        web_server,
        room["token"],
        lambda m: (
            m.get("type") == "event"
            and m["event"].get("kind") == "move"
            and m["event"]["seat"] == 3
        ),
    )
    watch = str(stop["view"]["watch_url"])
    me = make_player(viewport=viewport)
    me.goto(watch)
    page = me.page
    page.wait_for_selector(".mesa.watching.four[data-seq]")
    boxes = page.locator(".topbar .score .who").all_inner_texts()
    assert boxes == ["Ana y la computadora 3", "La computadora 2 y la computadora 4"], boxes
    panels = page.locator(".opp-area .opponent").evaluate_all(
        "els => els.map(e => [Number(e.dataset.seat), e.getAttribute('aria-label')])"
    )
    assert panels == [[3, "La computadora 4"], [2, "La computadora 3"], [1, "La computadora 2"]]
    assert page.locator(".near-area .opponent[data-seat='0']").count() == 1
    assert "Le toca a Ana" in page.locator(".mesa .turn").inner_text()
    assert "la computadora 4" in page.locator(".lastmove").inner_text().lower()
    no_sideways_scroll = page.evaluate(
        "() => document.scrollingElement.scrollWidth <= innerWidth + 1"
    )
    assert no_sideways_scroll
    assert_no_violations(page, "a watcher at a table of four")
    me.screenshot(f"parejas-watch-{viewport['width']}x{viewport['height']}")
