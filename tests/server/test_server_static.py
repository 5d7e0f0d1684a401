"""The client's files over HTTP (server/web/static.py): gzip for answers of 500 bytes or more,
ETag revalidation with Cache-Control on /static/, the modules without their comments
(server/web/lean.py; CLIENT_JS=source: as written), and the service worker at /sw.js with
the whole site as its scope and a cache name that changes with the client's files."""

from __future__ import annotations

import gzip
import os
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.support.srvkit import ServerProc

BIG_TEXT = "la mesa del casino " * 400 + "\n"
MODULE = (
    "/**\n * The deal: who gets which cards (RULES.md 2).\n * @param {number} n\n */\n"
    "export function deal(n) {\n"
    "  // four to each, then four to the table\n"
    "  const note = `/* ${n} */ // kept: a template, not a comment`;\n"
    "  return n / 2 /* half */ + note.length;\n"
    "}\n"
)
SW = (
    '// the offline kit\nconst VERSION = "casino-dev";\nself.addEventListener("fetch", () => {});\n'
)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[ServerProc, Path]]:
    tmp = tmp_path_factory.mktemp("static")
    client = tmp / "client"
    (client / "js").mkdir(parents=True)
    (client / "index.html").write_text("<!doctype html><title>prueba</title>")
    (client / "big.txt").write_text(BIG_TEXT)
    (client / "js" / "deal.js").write_text(MODULE)
    (client / "small.txt").write_text("hola")
    (client / "sw.js").write_text(SW)
    proc = ServerProc(tmp, {"CLIENT_DIR": str(client)}).start()
    yield proc, client
    proc.stop()


def test_big_files_are_gzipped_small_ones_are_not(site: tuple[ServerProc, Path]) -> None:
    server, _ = site
    with httpx.stream(
        "GET", f"{server.base}/static/big.txt", headers={"Accept-Encoding": "gzip"}, timeout=10
    ) as answer:
        wire = b"".join(answer.iter_raw())
        assert answer.headers["content-encoding"] == "gzip"
        assert "accept-encoding" in answer.headers["vary"].lower()
    assert gzip.decompress(wire) == BIG_TEXT.encode() and len(wire) < len(BIG_TEXT) / 10
    plain = httpx.get(
        f"{server.base}/static/big.txt", headers={"Accept-Encoding": "identity"}, timeout=10
    )
    assert "content-encoding" not in plain.headers and plain.text == BIG_TEXT
    small = httpx.get(
        f"{server.base}/static/small.txt", headers={"Accept-Encoding": "gzip"}, timeout=10
    )
    assert "content-encoding" not in small.headers and small.text == "hola"


def test_static_files_are_revalidated_with_their_etag(site: tuple[ServerProc, Path]) -> None:
    server, _ = site
    first = server.get("/static/big.txt")
    assert first.headers["cache-control"] == "no-cache"
    etag = first.headers["etag"]
    again = server.get("/static/big.txt", headers={"If-None-Match": etag})
    assert again.status_code == 304 and again.content == b""
    assert again.headers["etag"] == etag


def test_the_service_worker_is_served_for_the_whole_site(site: tuple[ServerProc, Path]) -> None:
    server, client = site
    answer = server.get("/sw.js")
    assert answer.status_code == 200
    assert answer.headers["content-type"].startswith("text/javascript")
    assert answer.headers["service-worker-allowed"] == "/"
    assert answer.headers["cache-control"] == "no-cache"
    assert "casino-dev" not in answer.text
    assert "offline kit" not in answer.text  # lean, as the modules are
    version = answer.text.split('"')[1]
    assert version.startswith("casino-") and len(version) == len("casino-") + 12
    # a changed client file gives a new cache name (so the new client installs afresh)
    path = client / "big.txt"
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))
    assert server.get("/sw.js").text.split('"')[1] != version


def test_modules_are_served_without_their_comments(site: tuple[ServerProc, Path]) -> None:
    """What the phone downloads of a module: the code, every string and template as written,
    no comment and no indentation; revalidated by its own ETag."""
    server, client = site
    answer = server.get("/static/js/deal.js")
    assert answer.status_code == 200
    assert answer.headers["content-type"].startswith("text/javascript")
    assert answer.headers["cache-control"] == "no-cache"
    body = answer.text
    for comment in ("RULES.md 2", "@param", "four to each", "half"):
        assert comment not in body
    assert "export function deal(n){" in body
    assert "`/* ${n} */ // kept: a template, not a comment`" in body
    assert "return n/2+note.length;" in body
    assert len(body) < len(MODULE) / 2
    etag = answer.headers["etag"]
    again = server.get("/static/js/deal.js", headers={"If-None-Match": etag})
    assert again.status_code == 304 and again.content == b""
    # a new version of the file is a new lean form with a new ETag
    path = client / "js" / "deal.js"
    path.write_text(MODULE.replace("n / 2", "n / 3"))
    changed = server.get("/static/js/deal.js", headers={"If-None-Match": etag})
    assert changed.status_code == 200 and "return n/3+note.length;" in changed.text
    assert changed.headers["etag"] != etag
    path.write_text(MODULE)


def test_client_js_source_serves_the_modules_as_written(tmp_path: Path) -> None:
    client = tmp_path / "client"
    (client / "js").mkdir(parents=True)
    (client / "js" / "deal.js").write_text(MODULE)
    (client / "sw.js").write_text(SW)
    server = ServerProc(tmp_path, {"CLIENT_DIR": str(client), "CLIENT_JS": "source"}).start()
    try:
        assert server.get("/static/js/deal.js").text == MODULE
        assert "// the offline kit" in server.get("/sw.js").text
    finally:
        server.stop()
