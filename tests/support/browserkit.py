"""Kit for the browser tests: a page that records every websocket message the server sends
to it, and helpers that play by clicking (deciding with the options the server sent)."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from playwright.sync_api import BrowserContext, ConsoleMessage, Page, WebSocket

from tests.support.srvkit import apply_frame, split_frame

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "artifacts"
TIMEOUT_MS = 15_000

# the screen sizes of the tests: a phone, the same phone held sideways, a laptop
PHONE = {"width": 360, "height": 740}
LANDSCAPE = {"width": 740, "height": 360}
LAPTOP = {"width": 1280, "height": 800}

MY_TURN_OR_SHEET = """() => {
  if (document.querySelector('dialog.sheet[open]')) return true;
  const mesa = document.querySelector('.mesa');
  return !!mesa && mesa.dataset.myTurn === 'true' && mesa.dataset.busy === 'false';
}"""


def without_the_offline_kit(page: Page) -> None:
    """This device keeps no offline kit, as one closed before its first visit went idle: the
    kit the app fetched once Inicio was up is waited for (none is then on its way) and let
    go (its last file, the page "/", says it is whole: client/sw.js)."""
    # the kit is some forty files: on a loaded machine (load 14) it took over 30 s
    page.wait_for_selector("html[data-sin-conexion='lista']", state="attached", timeout=90_000)
    page.evaluate(
        "async () => { for (const key of await caches.keys())"
        " await (await caches.open(key)).delete('/'); }"
    )


@dataclass
class Player:
    """One browser page (one device) and the messages its websocket received."""

    context: BrowserContext
    page: Page
    base: str
    frames: list[dict[str, Any]] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    last_options: list[dict[str, Any]] = field(default_factory=list)
    console: list[str] = field(default_factory=list)  # the page's console, kept on failure

    def attach(self) -> None:
        self.page.on("websocket", self._on_ws)
        self.page.on("pageerror", lambda error: self.errors.append(str(error)))
        self.page.on("console", self._on_console)
        self.page.set_default_timeout(TIMEOUT_MS)

    def _on_console(self, msg: ConsoleMessage) -> None:
        """Every line is kept (shown when a test fails); the server's Content-Security-Policy
        refusing something the client does is an error of the page."""
        self.console.append(f"{msg.type}: {msg.text}")
        if "Content Security Policy" in msg.text:
            self.errors.append(msg.text)

    def _on_ws(self, ws: WebSocket) -> None:
        held: list[dict[str, Any] | None] = [None]  # this socket's whole view (apply_frame)

        def received(payload: str | bytes) -> None:
            if isinstance(payload, bytes):
                payload = payload.decode()
            with contextlib.suppress(ValueError):
                frame = json.loads(payload)
                held[0] = apply_frame(held[0], frame)
                self.frames.extend(split_frame(frame, held[0]))

        ws.on("framereceived", received)

    def new_page(self) -> None:
        """Another tab of the same device (same localStorage), replacing the current one."""
        self.page = self.context.new_page()
        self.attach()

    # -- reading -----------------------------------------------------------------------

    def goto(self, path: str = "/") -> None:
        self.page.goto(self.base + path)

    def seq(self) -> int:
        return int(self.page.locator(".mesa").get_attribute("data-seq") or "-1")

    def view(self) -> dict[str, Any]:
        """The view the page is showing: the last message received with that seq."""
        seq = self.seq()
        for message in reversed(self.frames):
            view = message.get("view")
            if view is not None and view.get("seq") == seq:
                return dict(view)
        raise AssertionError(f"no view with seq {seq} among {len(self.frames)} messages")

    def hand(self) -> list[str]:
        codes = self.page.locator(".hand .card").evaluate_all("els => els.map(e => e.dataset.code)")
        return list(codes)

    def events(self, kind: str) -> list[dict[str, Any]]:
        """The events of that kind received, from "event" frames (one each) or "events"
        frames (all the events of a move in one)."""
        found = []
        for m in self.frames:
            if m.get("type") == "event":
                found.append(m["event"])
            elif m.get("type") == "events":
                found.extend(m.get("events", []))
        return [e for e in found if e.get("kind") == kind]

    def welcome(self) -> dict[str, Any]:
        return next(m for m in reversed(self.frames) if m.get("type") == "welcome")

    def storage_session(self) -> dict[str, Any]:
        text = self.page.evaluate("() => localStorage.getItem('casino.session')")
        return dict(json.loads(text)) if text else {}

    # -- waiting -----------------------------------------------------------------------

    def wait_turn_or_sheet(self, timeout: int = TIMEOUT_MS) -> str:
        self.page.wait_for_function(MY_TURN_OR_SHEET, timeout=timeout)
        return "sheet" if self.sheet_open() else "turn"

    def sheet_open(self) -> bool:
        return bool(self.page.locator("dialog.sheet[open]").count())

    def wait_my_turn(self) -> None:
        self.page.wait_for_selector(".mesa[data-my-turn='true'][data-busy='false']")

    # -- playing -----------------------------------------------------------------------

    def play_until(
        self, wanted: Callable[[dict[str, Any]], bool], turns: int = 48
    ) -> dict[str, Any] | None:
        """Plays turns (and closes score sheets) until one of my hand cards' options is
        `wanted`; returns that option, on my turn, or None after `turns` tries."""
        for _ in range(turns):
            if self.wait_turn_or_sheet() == "sheet":
                self.page.click("dialog.sheet button.next-hand")
                continue
            option: dict[str, Any] | None = next(
                (o for o in self.view()["options"] if wanted(o)), None
            )
            if option is not None:
                return option
            self.play_turn()
        return None

    def choose(self, option: dict[str, Any], fits: bool = False) -> None:
        """Clicks a hand card; the buttons offered are exactly what its options allow
        (and, with ``fits``, table, hand and actions are all on screen at once)."""
        self.page.click(f".hand .card[data-code='{option['card']}']")
        assert offered_actions(self.page) == expected_actions(option), option
        if fits:
            assert_fits(self.page)

    def play_turn(
        self,
        prefer_build: bool = False,
        shot: str | None = None,
        prefer_solo: bool = False,
        fits: bool = False,
    ) -> str:
        """Plays one turn by clicking: Llevarte when some card can capture (Llevarte solo
        when asked and it differs), else a build idea (when asked or when nothing else is
        possible), else Echar. Returns the kind played ("capture-solo" for Llevarte solo).
        Each card clicked offers exactly the actions its options allow."""
        view = self.view()
        options = view["options"]
        assert options, view
        self.last_options = options
        page = self.page
        solo = next((o for o in options if distinct_solo(o)), None)
        capture = (solo if prefer_solo and solo else None) or next(
            (o for o in options if o["llevarte"]), None
        )
        trail = next((o for o in options if o["trail"]), None)
        build = next((o for o in options if o["builds"]), None)
        before = self.seq()
        if build is not None and (prefer_build or (capture is None and trail is None)):
            kind = "build"
            self.choose(build, fits)
            page.click(".actions button.build")
            page.locator(".build-panel .ideas button").first.click()
            idea = build["builds"][0]
            for item in idea["move"]["take"]:
                assert (
                    page.locator(f".table-area [data-id='{item}']").get_attribute("aria-pressed")
                    == "true"
                )
            confirm = page.locator(f".build-panel .build-confirm[data-value='{idea['value']}']")
            if fits:
                assert_fits(page, ".build-panel .build-confirm")
            if shot:
                self.screenshot(shot)
            confirm.click()
        elif capture is not None:
            kind = "capture"
            self.choose(capture, fits)
            if prefer_solo and capture is solo:
                kind = "capture-solo"
                page.click(".actions button.take-solo")
            else:
                page.click(".actions button.take")
        else:
            assert trail is not None, options
            kind = "trail"
            self.choose(trail, fits)
            page.click(".actions button.trail")
        page.wait_for_function(
            "(before) => { const m = document.querySelector('.mesa');"
            " return document.querySelector('dialog.sheet[open]') ||"
            " (m && Number(m.dataset.seq) > before); }",
            arg=before,
        )
        return kind

    def screenshot(self, name: str) -> Path:
        ARTIFACTS.mkdir(exist_ok=True)
        path = ARTIFACTS / f"{name}.png"
        self.page.screenshot(path=str(path))
        return path


ACTION_CLASSES = ("take", "take-solo", "build", "trail")


def expected_actions(option: dict[str, Any]) -> set[str]:
    """The buttons a card with these options must offer (and no others)."""
    wanted = set()
    if option["llevarte"]:
        wanted.add("take")
    if distinct_solo(option):
        wanted.add("take-solo")
    if option["build_takes"]:
        wanted.add("build")
    if option["trail"]:
        wanted.add("trail")
    return wanted


def offered_actions(page: Page) -> set[str]:
    classes = page.locator(".actions .button-row button").evaluate_all(
        "els => els.map(e => [...e.classList])"
    )
    return {c for names in classes for c in names if c in ACTION_CLASSES}


def assert_fits(page: Page, *extra: str) -> None:
    """Table, hand and actions (and ``extra`` selectors) are wholly inside the viewport
    and the page itself does not scroll."""
    boxes = page.evaluate(
        """(sels) => sels.map(s => { const e = document.querySelector(s);
             if (!e) return [s, null];
             const r = e.getBoundingClientRect();
             return [s, [r.top, r.bottom, r.left, r.right]]; })""",
        [".table-area", ".hand", ".actions", *extra],
    )
    height, width, scroll = page.evaluate(
        "() => [innerHeight, innerWidth, document.scrollingElement.scrollHeight]"
    )
    assert scroll <= height + 1, f"the page scrolls: {scroll} > {height}"
    for selector, box in boxes:
        assert box is not None, selector
        top, bottom, left, right = box
        assert top >= -1 and bottom <= height + 1 and left >= -1 and right <= width + 1, (
            f"{selector} off screen: {box} in {width}x{height}"
        )


def distinct_solo(option: dict[str, Any]) -> bool:
    """Whether a card's "Llevarte solo" takes less than its "Llevarte"."""
    most, solo = option["llevarte"], option["llevarte_solo"]
    return bool(most and solo and sorted(most["take"]) != sorted(solo["take"]))


def sheet_numbers(page: Page) -> dict[str, Any]:
    """The score sheet as numbers: per seat and category the points, the points counted
    and the running total; the match score at the hand's start and at its end."""
    sheet = page.locator("dialog.sheet[open]")
    out: dict[str, Any] = {
        "points": {},
        "counted": {},
        "running": {},
        "before": {},
        "scores": {},
        "late_marks": {},
    }
    for seat in (0, 1):
        cells = sheet.locator(f"tbody tr[data-category] td[data-seat='{seat}']")
        data = cells.evaluate_all(
            "els => els.map(e => [e.dataset.points, e.dataset.counted, e.dataset.total,"
            " e.querySelectorAll('s.late').length])"
        )
        out["points"][seat] = [int(d[0]) for d in data]
        out["counted"][seat] = [int(d[1]) for d in data]
        out["running"][seat] = [int(d[2]) for d in data]
        out["late_marks"][seat] = [int(d[3]) for d in data]
        start = sheet.locator(f".start-total td[data-seat='{seat}']")
        out["before"][seat] = int(start.inner_text())
        out["scores"][seat] = int(
            sheet.locator(f"tfoot .match-total td[data-seat='{seat}']").inner_text()
        )
    return out
