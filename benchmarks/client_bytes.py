"""How many bytes the browser fetches before the first playable table: Inicio, "Fácil",
and la mesa with my turn on (HTTP only; the websocket's frames are not counted).

    .venv/bin/python benchmarks/client_bytes.py            # needs /usr/bin/chromium

Prints, for a first visit (empty cache) and a second one (the service worker's cache):
the bytes on the wire (headers included, compressed as sent) and the bytes of the files
once decoded (what the wire would carry without gzip). Then the offline game's kit (sw.js
`KIT`: the engine and the players): how many of its files the server was asked for before
the first table (Inicio open, nothing clicked: none expected) and after it (the service
worker fetching them once the table is up), and its bytes as the server sends them
(gzip bodies, without headers)."""

from __future__ import annotations

import os
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run as a script: the repository root for tests.support

import httpx  # noqa: E402
from playwright.sync_api import sync_playwright  # noqa: E402

from tests.support.srvkit import ServerProc  # noqa: E402

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")


def kit_urls() -> list[str]:
    text = (ROOT / "client" / "sw.js").read_text(encoding="utf-8")
    block = re.search(r"const KIT = \[(.*?)\];", text, re.S)
    assert block is not None
    return re.findall(r"\"(/static/[^\"]+)\"", block.group(1))


def kit_requests(log: str, kit: list[str]) -> int:
    """How many GETs of the kit's files the server's access log holds."""
    return sum(1 for line in log.splitlines() for url in kit if f'"GET {url} ' in line)


def visit(page: Any, base: str, played: bool, before_click: Any = None) -> tuple[int, int, int]:
    """Bytes on the wire, bytes decoded, requests, until the table is playable."""
    wire = decoded = requests = 0
    cdp = page.context.new_cdp_session(page)
    cdp.send("Network.enable")
    cdp.send("Network.setCacheDisabled", {"cacheDisabled": False})

    def finished(event: dict[str, Any]) -> None:
        nonlocal wire, requests
        wire += int(event["encodedDataLength"])
        requests += 1

    def data(event: dict[str, Any]) -> None:
        nonlocal decoded
        decoded += int(event["dataLength"])

    cdp.on("Network.loadingFinished", finished)
    cdp.on("Network.dataReceived", data)
    page.goto(base + "/")
    if not played:
        page.wait_for_selector("main[data-screen='inicio']")
        page.wait_for_load_state("networkidle")
        if before_click is not None:
            before_click()
        page.click("button[data-level='facil']")
    page.wait_for_selector(".mesa[data-my-turn='true'][data-busy='false']")
    page.wait_for_load_state("networkidle")
    cdp.detach()
    return wire, decoded, requests


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        server = ServerProc(Path(tmp), {"ACCESS_LOG": "1", "LOG_LEVEL": "info"}).start()
        kit = kit_urls()
        seen: dict[str, int] = {}
        try:
            with sync_playwright() as pw:
                browser = pw.chromium.launch(
                    executable_path=CHROMIUM, headless=True, args=["--no-sandbox", "--disable-gpu"]
                )
                context = browser.new_context(viewport={"width": 360, "height": 740})
                page = context.new_page()
                first = visit(
                    page,
                    server.base,
                    played=False,
                    before_click=lambda: seen.update(before=kit_requests(server.read_log(), kit)),
                )
                page.wait_for_selector("html[data-sin-conexion='lista']", state="attached")
                seen["after"] = kit_requests(server.read_log(), kit) - seen["before"]
                page.wait_for_function(
                    "() => navigator.serviceWorker.controller !== null"
                    " || navigator.serviceWorker.ready"
                )
                page.close()
                again = visit(context.new_page(), server.base, played=True)
                browser.close()
            kit_bytes = sum(
                httpx.get(
                    server.base + url, headers={"Accept-Encoding": "gzip"}
                ).num_bytes_downloaded
                for url in kit
            )
        finally:
            server.stop()
    for name, (wire, decoded, requests) in (("first visit", first), ("second visit", again)):
        print(
            f"{name:13}: {wire / 1024:6.1f} KB on the wire, {decoded / 1024:6.1f} KB decoded, "
            f"{requests} requests"
        )

    print(
        f"offline kit ({len(kit)} files): {seen['before']} of them asked for before the first "
        f"table, {seen['after']} after it; {kit_bytes / 1024:.1f} KB as the server sends them "
        "(gzip bodies)"
    )


if __name__ == "__main__":
    main()
