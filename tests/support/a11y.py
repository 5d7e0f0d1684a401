"""axe-core (vendored, pinned) run inside a page: every rule of WCAG 2.x A/AA, the best
practices, and the experimental label-content-name-mismatch (voice control), with the
violations returned as readable lines."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from playwright.sync_api import Page

AXE = Path(__file__).resolve().parents[1] / "browser" / "vendor" / "axe-core" / "axe.min.js"
AXE_SHA256 = "e9e5863c33a874f09bc01acd9234b7e3c871479f5eef8802fa582544465e6d01"

RUN = """async () => {
  const result = await axe.run(document, {
    runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa",
                                     "best-practice"] },
    rules: { "label-content-name-mismatch": { enabled: true } },
    resultTypes: ["violations"],
  });
  return result.violations.map(v => ({ id: v.id, help: v.help,
    nodes: v.nodes.map(n => n.target.join(" ") + " :: " + n.failureSummary) }));
}"""


def axe_source() -> str:
    data = AXE.read_bytes()
    assert hashlib.sha256(data).hexdigest() == AXE_SHA256, "vendored axe-core changed"
    return data.decode()


def violations(page: Page) -> list[dict[str, Any]]:
    if not page.evaluate("() => typeof window.axe === 'object'"):
        # evaluated through the DevTools protocol: an inline <script> tag would be refused
        # by the server's Content-Security-Policy (script-src 'self'), as it should be
        page.evaluate("(source) => { (0, eval)(source); }", axe_source())
    found: list[dict[str, Any]] = page.evaluate(RUN)
    return found


def assert_no_violations(page: Page, where: str) -> None:
    found = violations(page)
    lines = [f"{v['id']} ({v['help']}): {node}" for v in found for node in v["nodes"]]
    assert not found, f"axe on {where}:\n" + "\n".join(lines)
