"""How many bytes the browser fetches on a first visit, in the order a new player meets
them: Inicio up, then (nothing tapped, the page idle) the offline game's kit, then "Fácil"
and la mesa with my turn on; and on a second visit (HTTP only; the websocket's frames are
not counted).

    .venv/bin/python benchmarks/client_bytes.py            # needs /usr/bin/chromium

Prints, for each step, the bytes on the wire the page fetched (headers included, compressed
as sent) and the bytes of those files once decoded (what the wire would carry without gzip).
Then the offline game's kit (sw.js `KIT`: the engine and the players, fetched by the service
worker, whose requests the page does not see: counted in the server's access log): how many
of its files the server was asked for before Inicio was up (none expected), how many once
Inicio was up and idle, how long after Inicio was up the page knew it was kept, and its bytes
as the server sends them (gzip bodies, without headers)."""

from __future__ import annotations

import os
import re
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run as a script: the repository root for tests.support

import httpx  # noqa: E402
from playwright.sync_api import sync_playwright  # noqa: E402

from tests.support.srvkit import ServerProc  # noqa: E402

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
TIMEOUT_MS = 180_000  # a loaded machine (load 10 and more) takes more than Playwright's 30 s


def kit_urls() -> list[str]:
    text = (ROOT / "client" / "sw.js").read_text(encoding="utf-8")
    block = re.search(r"const KIT = \[(.*?)\];", text, re.S)
    assert block is not None
    return re.findall(r"\"(/static/[^\"]+)\"", block.group(1))


def kit_requests(log: str, kit: list[str]) -> int:
    """How many GETs of the kit's files the server's access log holds."""
    return sum(1 for line in log.splitlines() for url in kit if f'"GET {url} ' in line)


class Meter:
    """The page's own network traffic (Chrome DevTools Protocol), read at each step."""

    def __init__(self, page: Any) -> None:
        self.wire = self.decoded = self.requests = 0
        self.cdp = page.context.new_cdp_session(page)
        self.cdp.send("Network.enable")
        self.cdp.send("Network.setCacheDisabled", {"cacheDisabled": False})
        self.cdp.on("Network.loadingFinished", self._finished)
        self.cdp.on("Network.dataReceived", self._data)

    def _finished(self, event: dict[str, Any]) -> None:
        self.wire += int(event["encodedDataLength"])
        self.requests += 1

    def _data(self, event: dict[str, Any]) -> None:
        self.decoded += int(event["dataLength"])

    def read(self) -> tuple[int, int, int]:
        return self.wire, self.decoded, self.requests

    def close(self) -> None:
        self.cdp.detach()


def since(now: tuple[int, int, int], before: tuple[int, int, int]) -> tuple[int, int, int]:
    wire, decoded, requests = (a - b for a, b in zip(now, before, strict=True))
    return wire, decoded, requests


def playable(page: Any) -> None:
    page.wait_for_selector(".mesa[data-my-turn='true'][data-busy='false']")
    page.wait_for_load_state("networkidle")


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        server = ServerProc(Path(tmp), {"ACCESS_LOG": "1", "LOG_LEVEL": "info"}).start()
        kit = kit_urls()
        try:
            with sync_playwright() as pw:
                browser = pw.chromium.launch(
                    executable_path=CHROMIUM, headless=True, args=["--no-sandbox", "--disable-gpu"]
                )
                context = browser.new_context(viewport={"width": 360, "height": 740})
                context.set_default_timeout(TIMEOUT_MS)
                page = context.new_page()
                meter = Meter(page)
                page.goto(server.base + "/")
                page.wait_for_selector("main[data-screen='inicio']")
                up = time.monotonic()
                before_inicio = kit_requests(server.read_log(), kit)
                inicio = meter.read()
                # nothing tapped: the page goes idle and its service worker keeps the kit
                page.wait_for_selector("html[data-sin-conexion='lista']", state="attached")
                kept_after = time.monotonic() - up
                idle_kit = kit_requests(server.read_log(), kit) - before_inicio
                page.wait_for_load_state("networkidle")
                idle = meter.read()
                page.click("button[data-level='facil']")
                playable(page)
                table = since(meter.read(), idle)
                meter.close()
                after_table = kit_requests(server.read_log(), kit) - before_inicio - idle_kit
                page.close()
                again_page = context.new_page()
                meter = Meter(again_page)
                again_page.goto(server.base + "/")
                playable(again_page)  # the same table, opened again
                again = meter.read()
                meter.close()
                browser.close()
            kit_bytes = sum(
                httpx.get(
                    server.base + url, headers={"Accept-Encoding": "gzip"}
                ).num_bytes_downloaded
                for url in kit
            )
        finally:
            server.stop()
    steps = (
        ("first visit, Inicio up", inicio),
        ("then the page idle", since(idle, inicio)),
        ("then Fácil, my turn", table),
        ("second visit, my turn", again),
    )
    for name, (wire, decoded, requests) in steps:
        print(
            f"{name:22}: {wire / 1024:6.1f} KB on the wire, {decoded / 1024:6.1f} KB decoded, "
            f"{requests} requests (the page's own)"
        )
    print(
        f"offline kit ({len(kit)} files, fetched by the service worker): {before_inicio} of them "
        f"asked for before Inicio was up, {idle_kit} once Inicio was up and idle (kept "
        f"{kept_after:.1f} s after Inicio was up), {after_table} after the first table; "
        f"{kit_bytes / 1024:.1f} KB as the server sends them (gzip bodies)"
    )


if __name__ == "__main__":
    main()
