"""Replays in the browser (issue 12), against the real server: a match played to its end
over a websocket, then stepped through from Mis partidas and from the table, both hands
shown, and opened by its shared link on another device."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import httpx
import pytest
from websockets.sync.client import connect as ws_connect

from tests.support.a11y import assert_no_violations
from tests.support.browserkit import LAPTOP, PHONE, Player
from tests.support.srvkit import ServerProc, apply_frame, my_turn, pick_move, split_frame
from tests.support.tablekit import hold_seat

pytestmark = pytest.mark.browser

MakePlayer = Callable[..., Player]


def finished_computer_match(server: ServerProc) -> dict[str, Any]:
    """A room whose first match was played to its end by a websocket client."""
    room = httpx.post(
        f"{server.base}/api/rooms", json={"mode": "computer", "level": "facil", "name": "Ana"}
    ).json()
    with ws_connect(server.ws_url, open_timeout=10) as ws:
        ws.send(json.dumps({"type": "hello", "version": 3, "token": room["token"], "since": None}))
        played, n, held = -1, 0, None
        for _ in range(20000):
            frame = json.loads(ws.recv(timeout=10))
            held = apply_frame(held, frame)
            for msg in split_frame(frame, held):
                if msg.get("type") == "event" and msg["event"]["kind"] == "match_end":
                    return {**room, "end_seq": msg["seq"]}
                view = msg.get("view")
                if view and my_turn(view) and view["seq"] != played:
                    played, n = view["seq"], n + 1
                    ws.send(
                        json.dumps(
                            {
                                "type": "move",
                                "move": pick_move(view),
                                "seq": view["seq"],
                                "id": f"m{n}",
                            }
                        )
                    )
    raise AssertionError("the match did not end")


def step_shown(player: Player) -> int:
    return int(player.page.locator(".replay").get_attribute("data-step") or "-1")


def hand_shown(player: Player, seat: int) -> list[str]:
    codes: list[str] = player.page.locator(f".r-hand[data-seat='{seat}'] .card").evaluate_all(
        "els => els.map(e => e.dataset.code)"
    )
    return codes


def wait_step(player: Player, step: int) -> None:
    player.page.wait_for_selector(f".replay[data-step='{step}']")


@pytest.mark.parametrize("viewport", [PHONE, LAPTOP], ids=["360x740", "1280x800"])
def test_step_through_a_replay(
    make_player: MakePlayer, web_server: ServerProc, viewport: dict[str, int]
) -> None:
    room = finished_computer_match(web_server)
    me = make_player(viewport=viewport)
    hold_seat(me, room, since=None, active=False)
    me.goto("/")
    me.page.wait_for_selector(".mis-partidas .game[data-status='finished'] .g-turn")
    assert me.page.locator(".mis-partidas .g-turn").inner_text().startswith("Terminó")
    me.page.click(".mis-partidas .g-replay")
    me.page.wait_for_selector(".replay[data-step='0']")
    path = me.page.evaluate("() => location.pathname")
    assert path.startswith("/p/") and room["room"] not in path
    data = httpx.get(f"{web_server.base}/api{path.replace('/p/', '/replays/')}").json()
    steps = data["steps"]
    assert int(me.page.locator(".replay").get_attribute("data-steps") or 0) == len(steps)

    def check(i: int) -> None:
        wait_step(me, i)
        for seat in (0, 1):  # both hands, face up
            assert hand_shown(me, seat) == steps[i]["position"]["hands"][seat]
        table = me.page.locator(".r-table [data-id]").evaluate_all(
            "els => els.map(e => e.dataset.id)"
        )
        p = steps[i]["position"]
        assert table == p["table"]["cards"] + [pile["id"] for pile in p["table"]["piles"]]

    check(0)
    assert "El reparto" in me.page.locator(".r-words").inner_text()
    me.page.click(".r-next")
    check(1)
    move = steps[1]["events"][0]
    assert move["kind"] == "move" and move["seat"] == 0
    assert me.page.locator(".r-words").inner_text().startswith("Ana ")
    me.page.keyboard.press("ArrowRight")
    check(2)
    me.page.keyboard.press("ArrowLeft")
    check(1)
    me.page.click(".r-prev")
    check(0)
    assert me.page.locator(".r-prev").get_attribute("aria-disabled") == "true"
    # the slider: to the first hand's end, where the hand's result is shown
    end = next(i for i, s in enumerate(steps) if any(e["kind"] == "hand_end" for e in s["events"]))
    me.page.locator(".r-slider").fill(str(end))
    check(end)
    sheet = me.page.locator(".r-result .score-sheet")
    result = next(e for e in steps[end]["events"] if e["kind"] == "hand_end")["result"]
    for seat in (0, 1):
        assert (
            int(sheet.locator(f"tfoot td[data-seat='{seat}']").inner_text())
            == result["scores"][seat]
        )
    me.screenshot(f"repeticion-{viewport['width']}x{viewport['height']}")
    me.page.keyboard.press("End")
    check(len(steps) - 1)
    assert "ganó la partida" in me.page.locator(".r-words").inner_text()
    assert me.page.locator(".r-next").get_attribute("aria-disabled") == "true"
    assert_no_violations(me.page, "la repetición")
    if viewport == PHONE:
        width = me.page.evaluate("() => [document.scrollingElement.scrollWidth, innerWidth]")
        assert width[0] <= width[1], width

    # the link opens the same replay on a device that holds no seat
    link = me.page.locator("[data-replay-link]").get_attribute("href") or ""
    other = make_player(viewport=viewport)
    other.page.goto(link)
    other.page.wait_for_selector(".replay[data-step='0']")
    assert hand_shown(other, 1) == steps[0]["position"]["hands"][1]

    # back on Inicio, the finished game can be taken off the list
    me.page.click(".r-back")
    me.page.wait_for_selector(".mis-partidas .g-forget")
    me.page.click(".mis-partidas .g-forget")
    me.page.wait_for_selector(".mis-partidas", state="hidden")
    assert me.page.evaluate("() => JSON.parse(localStorage.getItem('casino.asientos'))") == []


def test_the_replay_from_the_finished_table(
    make_player: MakePlayer, web_server: ServerProc
) -> None:
    room = finished_computer_match(web_server)
    me = make_player(viewport=PHONE)
    hold_seat(me, room, since=None, active=False)
    me.goto("/")
    me.page.click(".mis-partidas .game-open")
    me.page.wait_for_selector(".mesa .actions button.replay")
    me.page.click(".mesa .actions button.replay")
    me.page.wait_for_selector(".replay[data-step='0']")
    me.page.go_back()  # the browser's back button leaves the replay
    me.page.wait_for_selector("main[data-screen='inicio']")


def test_the_replay_from_fin_de_partida(make_player: MakePlayer, web_server: ServerProc) -> None:
    """The device was away for the last move: coming back, the final sheet opens (its
    events since then), and its "Ver la repetición" opens the replay."""
    room = finished_computer_match(web_server)
    me = make_player(viewport=LAPTOP)
    hold_seat(me, room, since=room["end_seq"] - 1, active=True)  # it was at the table
    me.goto("/")
    me.page.wait_for_selector("dialog.sheet.final[open]")
    me.page.click("dialog.sheet button.replay")
    me.page.wait_for_selector(".replay[data-step='0']")
    assert me.page.locator("dialog[open]").count() == 0
    steps = int(me.page.locator(".replay").get_attribute("data-steps") or 0)
    assert steps == room["end_seq"] + 1


def test_an_unknown_replay_link_says_so(make_player: MakePlayer) -> None:
    me = make_player(viewport=PHONE)
    me.goto("/p/nohaytalcosa")
    me.page.wait_for_selector("main[data-screen='repeticion'] .error-line")
    assert "No encontramos esa repetición" in me.page.locator(".error-line").inner_text()
