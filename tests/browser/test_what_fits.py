"""What fits on the screen (issue 20, items 5, 6 and 12), in Debian's chromium at 360×740,
740×360 and 1280×800 against the real server: the score sheet and the Menú without a
scroll inside, the table beside a build panel with several ideas, names not cut, what a
copy button did shown where it was pressed, the replay's sentence in sight, the connection
banner, the watcher's page held sideways and a link that does not break its code."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page

from tests.support.a11y import assert_no_violations
from tests.support.browserkit import LANDSCAPE, LAPTOP, PHONE, Player, assert_fits
from tests.support.srvkit import ServerProc
from tests.support.tablekit import (
    assert_all_on_screen,
    assert_on_screen,
    box,
    computer_room,
    event_of,
    hold_seat,
    play_by_socket,
)

pytestmark = pytest.mark.browser

MakePlayer = Callable[..., Player]
SIZES = pytest.mark.parametrize(
    "viewport", [PHONE, LANDSCAPE, LAPTOP], ids=["360x740", "740x360", "1280x800"]
)


def start_computer_game(player: Player) -> None:
    player.goto("/")
    player.page.click("button[data-level='facil']")
    player.page.wait_for_selector(".mesa[data-seq]")


def no_scroll_inside(page: Page, selector: str) -> None:
    sizes = page.evaluate(
        "(s) => { const e = document.querySelector(s); return [e.scrollHeight, e.clientHeight]; }",
        selector,
    )
    assert sizes[0] <= sizes[1] + 1, f"{selector} scrolls inside: {sizes[0]} in {sizes[1]}"


def lines_of(page: Page, selector: str) -> list[int]:
    """How many lines the text of each element takes."""
    counts: list[int] = page.evaluate(
        """(s) => [...document.querySelectorAll(s)].map(e => {
             const r = document.createRange(); r.selectNodeContents(e);
             return new Set([...r.getClientRects()].filter(x => x.width > 0)
                            .map(x => Math.round(x.top))).size; })""",
        selector,
    )
    return counts


def sheet_shown(player: Player, server: ServerProc, final: bool) -> dict[str, Any]:
    """A score sheet on this device: the end of a computer match's first hand, or of the
    match, played over a websocket and seen again at the table. Returns its result."""
    room = computer_room(server)
    end = play_by_socket(server, room["token"], event_of("match_end" if final else "hand_end"))
    hold_seat(player, room, since=end["seq"] - 1, active=True)
    player.goto("/")
    player.page.wait_for_selector("dialog.sheet.final[open]" if final else "dialog.sheet[open]")
    ends = player.events("hand_end")
    ends += [m["event"] for m in player.welcome()["events"] if m["event"]["kind"] == "hand_end"]
    assert ends
    return dict(ends[-1]["result"])


def check_sheet(page: Page, result: dict[str, Any], button: str) -> None:
    sheet = "dialog.sheet[open]"
    no_scroll_inside(page, sheet)
    assert_on_screen(page, f"{sheet} .match-total", f"{sheet} {button}", f"{sheet} .dialog-head h2")
    # the column headers are names on one line each ("Computadora" is not broken)
    assert lines_of(page, f"{sheet} thead th:not(:first-child)") == [1, 1]
    # nothing touches or leaves its cell; the running total reads "van 16", not "= 16"
    crowded = page.evaluate(
        """(s) => [...document.querySelectorAll(s + ' tbody td')].filter(td => {
             const c = td.getBoundingClientRect();
             if (td.scrollWidth > td.clientWidth + 1) return true;
             return [...td.querySelectorAll('.pts > span, .pts > s, .count')].some(x => {
               const r = x.getBoundingClientRect();
               return r.width > 0 && (r.left < c.left + 2 || r.right > c.right - 2); }); })
           .map(td => td.textContent)""",
        sheet,
    )
    assert crowded == [], crowded
    runs = page.locator(f"{sheet} tbody .run").all_inner_texts()
    assert runs and all(r.strip().startswith("van ") for r in runs), runs
    # "no cuenta" where the server says the category could not score for that seat
    for seat in (0, 1):
        blocked = page.locator(
            f"{sheet} tbody tr[data-category] td[data-seat='{seat}']"
        ).evaluate_all("els => els.map(e => !!e.querySelector('.blocked'))")
        assert blocked == [not ok for ok in result["eligible"][seat]], (seat, result)


@SIZES
def test_the_score_sheet_and_the_menu_fit(
    make_player: MakePlayer, web_server: ServerProc, viewport: dict[str, int]
) -> None:
    me = make_player(viewport=viewport)
    result = sheet_shown(me, web_server, final=False)
    page = me.page
    check_sheet(page, result, "button.next-hand")
    size = f"{viewport['width']}x{viewport['height']}"
    me.screenshot(f"hoja-{size}")
    page.click("dialog.sheet button.next-hand")
    page.wait_for_selector("dialog.sheet", state="detached")
    page.click(".menu-button")
    page.wait_for_selector("dialog.menu[open]")
    no_scroll_inside(page, "dialog.menu[open]")
    assert_all_on_screen(page, "dialog.menu[open] button")
    assert_no_violations(page, "the Menú")
    me.screenshot(f"menu-{size}")
    page.keyboard.press("Escape")

    final = make_player(viewport=viewport)
    result = sheet_shown(final, web_server, final=True)
    check_sheet(final.page, result, "button.rematch")
    assert_on_screen(final.page, "dialog.sheet .winner", "dialog.sheet button.replay")
    assert_no_violations(final.page, "the final sheet")
    final.screenshot(f"hoja-final-{size}")


# -- item 6: the table beside a build panel with several ideas -----------------------------


@pytest.mark.parametrize("viewport", [PHONE, LANDSCAPE], ids=["360x740", "740x360"])
def test_a_build_panel_with_ideas_leaves_the_table_whole(
    make_player: MakePlayer, viewport: dict[str, int]
) -> None:
    option = None
    for _ in range(6):
        # a new device each time: the last one would reopen its game at "/" (issue 20, item 9)
        me = make_player(viewport=viewport)
        start_computer_game(me)
        option = me.play_until(lambda o: len(o["builds"]) >= 2, turns=24)
        if option is not None:
            break
    assert option is not None, "no card with two build ideas in six games"
    page = me.page
    page.click(f".hand .card[data-code='{option['card']}']")
    page.click(".actions button.build")
    page.wait_for_selector(".build-panel .ideas button")
    assert page.locator(".build-panel .ideas button").count() >= 2
    hidden = page.evaluate(
        """() => { const area = document.querySelector('.table-area').getBoundingClientRect();
             return [...document.querySelectorAll('.table-area [data-id]')].filter(e => {
               const r = e.getBoundingClientRect();
               const top = Math.max(area.top, 0), bottom = Math.min(area.bottom, innerHeight);
               return r.top < top - 1 || r.bottom > bottom + 1
                 || r.left < area.left - 1 || r.right > area.right + 1; })
             .map(e => e.dataset.id); }"""
    )
    assert hidden == [], f"table items cut: {hidden}"
    assert_fits(page, ".build-panel .ideas button", ".build-panel .back")
    size = f"{viewport['width']}x{viewport['height']}"
    me.screenshot(f"ideas-{size}")
    page.locator(".build-panel .ideas button").nth(1).click()
    assert_on_screen(page, ".build-panel .build-confirm")


# -- item 12: the smaller rough edges -------------------------------------------------------


def test_the_computer_is_not_cut_in_the_top_bar(make_player: MakePlayer) -> None:
    me = make_player(viewport=PHONE)
    start_computer_game(me)
    who = me.page.locator(".score.them .who")
    assert who.inner_text() == "Computadora"
    width = who.evaluate("e => [e.scrollWidth, e.clientWidth]")
    assert width[0] <= width[1], f"cut: {width}"


def feedback_shown(page: Page, button: str, line: str) -> None:
    page.click(button)
    page.wait_for_function(
        "(s) => { const e = document.querySelector(s); return e && e.textContent.trim(); }",
        arg=line,
    )
    text = page.locator(line).inner_text()
    assert "copiado" in text.lower() or "no se pudo copiar" in text.lower(), text
    assert_on_screen(page, line)


@pytest.mark.parametrize("viewport", [PHONE, LANDSCAPE], ids=["360x740", "740x360"])
def test_copying_a_link_says_so_in_sight(make_player: MakePlayer, viewport: dict[str, int]) -> None:
    host = make_player(viewport=viewport)
    host.context.grant_permissions(["clipboard-read", "clipboard-write"])
    host.goto("/")
    host.page.click("button.friend")
    host.page.wait_for_selector("[data-invite-link]")
    feedback_shown(
        host.page, ".invite-card button >> text=Copiar enlace", ".invite-card .share-status"
    )
    assert_no_violations(host.page, "the invitation to send, copied")

    me = make_player(viewport=viewport)
    me.context.grant_permissions(["clipboard-read", "clipboard-write"])
    start_computer_game(me)
    page = me.page
    page.click(".menu-button")
    page.click("dialog.menu >> text=Seguir en otro dispositivo")
    page.wait_for_selector("dialog.move [data-rejoin-code]")
    feedback_shown(page, "dialog.move button >> text=Copiar enlace", "dialog.move .share-status")
    assert_no_violations(page, "Seguir en otro dispositivo")


def test_the_watch_link_keeps_its_code_whole(make_player: MakePlayer) -> None:
    me = make_player(viewport=PHONE)
    start_computer_game(me)
    page = me.page
    page.click(".menu-button")
    page.click("dialog.menu >> text=Invitar a mirar la partida")
    link = page.locator("dialog.watch-dialog [data-watch-link]")
    code = me.view()["watch_url"].rsplit("/", 1)[1]
    assert link.inner_text().replace("\n", "").endswith(code)
    assert lines_of(page, "dialog.watch-dialog [data-watch-link] .link-code") == [1]
    assert_no_violations(page, "Invitar a mirar")


def test_the_replay_sentence_is_not_under_its_controls(
    make_player: MakePlayer, web_server: ServerProc
) -> None:
    room = computer_room(web_server)
    play_by_socket(web_server, room["token"], event_of("match_end"))
    me = make_player(viewport=PHONE)
    hold_seat(me, room, since=None, active=False)
    me.goto("/")
    page = me.page
    page.click(".mis-partidas .g-replay")
    page.wait_for_selector(".replay[data-step='0']")
    for step in range(1, 4):
        page.click(".r-next")
        page.wait_for_selector(f".replay[data-step='{step}']")
        words, controls = box(page, ".r-words"), box(page, ".r-controls")
        assert words is not None and controls is not None
        assert_on_screen(page, ".r-words", ".r-controls")
        overlap = min(words["bottom"], controls["bottom"]) - max(words["top"], controls["top"])
        assert overlap <= 0, (words, controls)
    page.evaluate("() => window.scrollTo(0, document.body.scrollHeight)")
    assert_on_screen(page, ".r-words", ".r-controls")


def test_the_connection_banner_leaves_the_table_whole(
    make_player: MakePlayer, tmp_path: Path
) -> None:
    server = ServerProc(tmp_path, {}).start()
    try:
        me = make_player(viewport=PHONE, base=server.base)
        start_computer_game(me)
        me.wait_my_turn()
        server.stop()
        me.page.wait_for_selector("#banner:not([hidden])")
        assert_fits(me.page, "#banner")
        assert_no_violations(me.page, "la mesa with the connection banner")
    finally:
        server.stop()


def test_the_watch_page_uses_the_phone_held_sideways(make_player: MakePlayer) -> None:
    me = make_player(viewport=PHONE)
    start_computer_game(me)
    watcher = make_player(viewport=LANDSCAPE)
    watcher.goto(me.view()["watch_url"])
    page = watcher.page
    page.wait_for_selector(".mesa.watching[data-seq]")
    grid = box(page, ".watch-grid")
    table = box(page, ".watch-grid .table-area")
    assert grid is not None and table is not None
    spans = page.evaluate(
        """() => { const rs = [...document.querySelectorAll('.watch-grid > *')]
             .map(e => e.getBoundingClientRect()).filter(r => r.width > 0);
             return [Math.min(...rs.map(r => r.left)), Math.max(...rs.map(r => r.right))]; }"""
    )
    assert spans[1] - spans[0] >= 0.9 * LANDSCAPE["width"] - 20, spans
    assert table["width"] >= 0.5 * LANDSCAPE["width"], table
    assert page.evaluate("() => document.scrollingElement.scrollHeight <= innerHeight + 1")
    assert_no_violations(page, "the watcher's table, sideways")
    watcher.screenshot("mirar-740x360")
