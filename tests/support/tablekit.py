"""Kit for the browser tests of issue 20 (the rough edges around the table): a computer
match played over a websocket up to a point, a device that holds a seat it did not open
itself, and whether something is wholly on screen."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import httpx
from playwright.sync_api import Page
from websockets.sync.client import connect as ws_connect

from tests.support.browserkit import Player
from tests.support.srvkit import ServerProc, apply_frame, my_turn, pick_move, split_frame

Message = dict[str, Any]


def computer_room(server: ServerProc, name: str = "Ana") -> dict[str, Any]:
    r = httpx.post(
        f"{server.base}/api/rooms",
        json={"mode": "computer", "level": "facil", "name": name},
        timeout=10,
    )
    assert r.status_code == 201, r.text
    return dict(r.json())


def play_by_socket(server: ServerProc, token: str, stop: Callable[[Message], bool]) -> Message:
    """Plays seat 0 of a computer room over a websocket (``pick_move``) until a message
    satisfies ``stop``; returns it (an ``event`` message carries its ``seq``)."""
    with ws_connect(server.ws_url, open_timeout=10) as ws:
        ws.send(json.dumps({"type": "hello", "version": 3, "token": token, "since": None}))
        played, n, held = -1, 0, None
        for _ in range(20000):
            frame = json.loads(ws.recv(timeout=10))
            held = apply_frame(held, frame)
            for msg in split_frame(frame, held):
                if stop(msg):
                    return msg
                view = msg.get("view")
                if view and my_turn(view) and view["seq"] != played:
                    played, n = view["seq"], n + 1
                    move = {"type": "move", "move": pick_move(view), "seq": view["seq"]}
                    ws.send(json.dumps({**move, "id": f"s{n}"}))
    raise AssertionError("the match did not get there")


def event_of(kind: str) -> Callable[[Message], bool]:
    return lambda m: m.get("type") == "event" and m["event"]["kind"] == kind


def hold_seat(player: Player, room: dict[str, Any], since: int | None, active: bool) -> None:
    """This device holds seat 0 of ``room``, last seen at ``since``; ``active``: it was
    being played when the page closed (so opening the site goes back to it). The device's
    storage is written from a page of the site that runs no app (``/healthz``), so that no
    work of an app already started (Mis partidas forgetting a token the server no longer
    knows) rewrites it meanwhile; the caller then opens the site (``player.goto("/")``)."""
    seat = {
        "room": room["room"],
        "seat": 0,
        "token": room["token"],
        "since": since,
        "mode": "computer",
        "active": active,
    }
    player.goto("/healthz")
    player.page.evaluate(
        """(s) => { localStorage.setItem('casino.asientos', JSON.stringify([s]));
                    localStorage.setItem('casino.session', JSON.stringify(s)); }""",
        seat,
    )


def box(page: Page, selector: str) -> dict[str, float] | None:
    found: dict[str, float] | None = page.evaluate(
        """(s) => { const e = document.querySelector(s); if (!e) return null;
             const r = e.getBoundingClientRect();
             return {top: r.top, bottom: r.bottom, left: r.left, right: r.right,
                     width: r.width, height: r.height}; }""",
        selector,
    )
    return found


def on_screen(page: Page, selector: str) -> bool:
    """The element is there and wholly inside the viewport."""
    found = box(page, selector)
    if found is None:
        return False
    width, height = page.evaluate("() => [innerWidth, innerHeight]")
    return bool(
        found["top"] >= -1
        and found["bottom"] <= height + 1
        and found["left"] >= -1
        and found["right"] <= width + 1
        and found["height"] > 0
    )


def assert_on_screen(page: Page, *selectors: str) -> None:
    width, height = page.evaluate("() => [innerWidth, innerHeight]")
    for selector in selectors:
        assert on_screen(page, selector), (
            f"{selector} not wholly on screen: {box(page, selector)} in {width}x{height}"
        )


def assert_all_on_screen(page: Page, selector: str) -> None:
    """Every element ``selector`` finds (at least one) is wholly inside the viewport."""
    off: list[str] = page.evaluate(
        """(s) => [...document.querySelectorAll(s)].filter(e => {
             const r = e.getBoundingClientRect();
             return !(r.top >= -1 && r.bottom <= innerHeight + 1 && r.left >= -1
                      && r.right <= innerWidth + 1 && r.height > 0); })
           .map(e => e.textContent.trim())""",
        selector,
    )
    assert page.locator(selector).count() > 0, selector
    assert off == [], f"off screen: {off}"
