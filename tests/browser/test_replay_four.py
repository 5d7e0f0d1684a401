"""The replay of a match of four (issue 27) in chromium, against the real server: Ana and
three computers play a match to its end over a websocket, its replay link is asked for and
opened: all four hands face up, the team score boxes named by their players, the steps
stepped through, the end told of the team that won; axe clean and no sideways scroll at
360×740, and drawn at 1280×800."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
import pytest

from tests.browser.test_english import assert_only
from tests.browser.test_four_at_the_table import four_computer_room
from tests.browser.test_replay import hand_shown, wait_step
from tests.support.a11y import assert_no_violations
from tests.support.browserkit import LANDSCAPE, LAPTOP, PHONE, Player
from tests.support.srvkit import ServerProc
from tests.support.tablekit import event_of, play_by_socket

pytestmark = pytest.mark.browser

MakePlayer = Callable[..., Player]

TEAMS = ["Ana y la computadora 3", "La computadora 2 y la computadora 4"]
SAID = ["Ana y la computadora 3", "la computadora 2 y la computadora 4"]  # inside a sentence


def finished_four_match(server: ServerProc) -> dict[str, Any]:
    """A replay of a table of four (Ana and three computers) played to its end."""
    room = four_computer_room(server)
    play_by_socket(server, room["token"], event_of("match_end"))
    r = httpx.post(
        f"{server.base}/api/replays", json={"token": room["token"], "match": 1}, timeout=10
    )
    assert r.status_code == 201, r.text
    data = httpx.get(f"{server.base}/api/replays/{r.json()['code']}", timeout=10).json()
    assert len(data["names"]) == 4 and data["levels"] == [None, "facil", "facil", "facil"]
    return {**r.json(), "data": data}


def check_step(me: Player, steps: list[dict[str, Any]], i: int) -> None:
    wait_step(me, i)
    p = steps[i]["position"]
    for seat in range(4):  # every hand, face up
        assert hand_shown(me, seat) == p["hands"][seat], (i, seat)
    boxes = me.page.locator(".r-scores .score .pts").evaluate_all(
        "els => els.map(e => Number(e.firstChild.textContent))"
    )
    assert boxes == p["scores"], (i, boxes)
    turn = me.page.locator(".r-seat.to-move").evaluate_all("els => els.map(e => e.dataset.seat)")
    assert turn == ([str(p["turn"])] if i < len(steps) - 1 else []), (i, turn)


@pytest.mark.parametrize("viewport", [PHONE, LAPTOP], ids=["360x740", "1280x800"])
def test_the_replay_of_a_match_of_four(
    make_player: MakePlayer, web_server: ServerProc, viewport: dict[str, int]
) -> None:
    made = finished_four_match(web_server)
    steps = made["data"]["steps"]
    me = make_player(viewport=viewport)
    me.goto(made["url"])
    wait_step(me, 0)
    page = me.page
    assert page.locator(".r-board.four[data-seats='4']").count() == 1
    assert page.locator("#replay-title").inner_text() == f"{TEAMS[0]} contra {SAID[1]}"
    assert page.locator(".r-scores .score .who").all_inner_texts() == TEAMS
    names = page.locator(".r-seat").evaluate_all(
        "els => els.map(e => [e.dataset.seat, e.getAttribute('aria-label')])"
    )
    assert sorted(names) == [
        ["0", "Ana"],
        ["1", "Computadora 2 (Fácil)"],
        ["2", "Computadora 3 (Fácil)"],
        ["3", "Computadora 4 (Fácil)"],
    ]
    # seat 0 at the foot, its partner across, seat 3 on the left and seat 1 on the right
    x: dict[int, Any] = {
        seat: page.locator(f".r-seat[data-seat='{seat}']").bounding_box() for seat in range(4)
    }
    assert x[2]["y"] < x[3]["y"] + 1 and x[3]["y"] < x[0]["y"] and x[1]["y"] < x[0]["y"]
    assert x[3]["x"] < x[1]["x"]
    check_step(me, steps, 0)
    assert "El reparto" in page.locator(".r-words").inner_text()
    page.click(".r-next")
    check_step(me, steps, 1)
    me.screenshot(f"repeticion-cuatro-jugada-{viewport['width']}x{viewport['height']}")
    assert page.locator(".r-words").inner_text().startswith("Ana ")
    page.keyboard.press("ArrowRight")
    check_step(me, steps, 2)
    assert page.locator(".r-words").inner_text().startswith("La computadora 2 ")
    page.click(".r-prev")
    check_step(me, steps, 1)
    # to the first hand's end: its result, by team
    end = next(i for i, s in enumerate(steps) if any(e["kind"] == "hand_end" for e in s["events"]))
    page.locator(".r-slider").fill(str(end))
    check_step(me, steps, end)
    assert "sumaron" in page.locator(".r-words").inner_text()
    heads = page.locator(".r-result .score-sheet thead th").all_inner_texts()
    assert heads[1:] == TEAMS, heads  # the sheet's columns: team 0's, then team 1's
    result = next(e for e in steps[end]["events"] if e["kind"] == "hand_end")["result"]
    sheet = page.locator(".r-result .score-sheet")
    for team in (0, 1):
        total = sheet.locator(f"tfoot td[data-seat='{team}']").inner_text()
        assert int(total) == result["scores"][team]
    assert_no_violations(page, "the replay of four, a hand's end")
    page.keyboard.press("End")
    check_step(me, steps, len(steps) - 1)
    winner = made["data"]["winner"]
    team = TEAMS[winner]
    said = page.locator(".r-words").inner_text()
    assert f"¡{team} ganaron la partida" in said, said
    assert page.locator(".r-final strong").inner_text().startswith(f"Ganaron {SAID[winner]}")
    assert "de los cuatro" in page.locator(".r-share-row").inner_text()
    me.screenshot(f"repeticion-cuatro-{viewport['width']}x{viewport['height']}")
    assert_no_violations(page, "the replay of four, the end")
    width = page.evaluate("() => [document.scrollingElement.scrollWidth, innerWidth]")
    assert width[0] <= width[1], width
    page_scroll = page.evaluate("() => [document.scrollingElement.scrollHeight, innerHeight]")
    assert page_scroll[0] <= page_scroll[1] + 1, page_scroll
    # no hand spills out of its seat, sideways
    spill = page.evaluate(
        """() => [...document.querySelectorAll('.r-seat')].filter(s => {
             const r = s.getBoundingClientRect();
             return [...s.querySelectorAll('.card')].some(c => {
               const b = c.getBoundingClientRect();
               return b.left < r.left - 1 || b.right > r.right + 1; }); })
           .map(s => s.dataset.seat)"""
    )
    assert spill == [], spill


def test_the_replay_of_four_in_english_held_sideways(
    make_player: MakePlayer, web_server: ServerProc
) -> None:
    """A cousin whose phone is in English opens the replay at 740×360: not a Spanish word at
    the deal, at a hand's end or at the end; the four seats fit; axe finds nothing."""
    made = finished_four_match(web_server)
    steps = made["data"]["steps"]
    me = make_player(viewport=LANDSCAPE, locale="en-US")
    me.goto(made["url"])
    wait_step(me, 0)
    page = me.page
    check_step(me, steps, 0)
    assert page.locator("#replay-title").inner_text().endswith("computer 4")
    assert " against " in page.locator("#replay-title").inner_text()
    assert_only(me, "en")
    end = next(i for i, s in enumerate(steps) if any(e["kind"] == "hand_end" for e in s["events"]))
    page.locator(".r-slider").fill(str(end))
    check_step(me, steps, end)
    assert_only(me, "en")
    assert_no_violations(page, "the replay of four in English, a hand's end")
    page.keyboard.press("End")
    check_step(me, steps, len(steps) - 1)
    assert_only(me, "en")
    final = page.locator(".r-final strong").inner_text()
    assert final[0].isupper() and " won, " in final, final  # a sentence starts with a capital
    me.screenshot("replay-four-en-740x360")
    assert_no_violations(page, "the replay of four in English, the end")
    width = page.evaluate("() => [document.scrollingElement.scrollWidth, innerWidth]")
    assert width[0] <= width[1], width
