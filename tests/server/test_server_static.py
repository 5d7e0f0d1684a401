"""The client's files over HTTP (server/web/static.py): gzip for answers of 500 bytes or more,
ETag revalidation with Cache-Control on /static/, and the service worker at /sw.js with
the whole site as its scope and a cache name that changes with the client's files."""

from __future__ import annotations

import gzip
import os
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.support.srvkit import ServerProc

BIG_JS = "// " + "la mesa del casino " * 400 + "\n"
SW = 'const VERSION = "casino-dev";\nself.addEventListener("fetch", () => {});\n'


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[ServerProc, Path]]:
    tmp = tmp_path_factory.mktemp("static")
    client = tmp / "client"
    (client / "js").mkdir(parents=True)
    (client / "index.html").write_text("<!doctype html><title>prueba</title>")
    (client / "js" / "big.js").write_text(BIG_JS)
    (client / "small.txt").write_text("hola")
    (client / "sw.js").write_text(SW)
    proc = ServerProc(tmp, {"CLIENT_DIR": str(client)}).start()
    yield proc, client
    proc.stop()


def test_big_files_are_gzipped_small_ones_are_not(site: tuple[ServerProc, Path]) -> None:
    server, _ = site
    with httpx.stream(
        "GET", f"{server.base}/static/js/big.js", headers={"Accept-Encoding": "gzip"}, timeout=10
    ) as answer:
        wire = b"".join(answer.iter_raw())
        assert answer.headers["content-encoding"] == "gzip"
        assert "accept-encoding" in answer.headers["vary"].lower()
    assert gzip.decompress(wire) == BIG_JS.encode() and len(wire) < len(BIG_JS) / 10
    plain = httpx.get(
        f"{server.base}/static/js/big.js", headers={"Accept-Encoding": "identity"}, timeout=10
    )
    assert "content-encoding" not in plain.headers and plain.text == BIG_JS
    small = httpx.get(
        f"{server.base}/static/small.txt", headers={"Accept-Encoding": "gzip"}, timeout=10
    )
    assert "content-encoding" not in small.headers and small.text == "hola"


def test_static_files_are_revalidated_with_their_etag(site: tuple[ServerProc, Path]) -> None:
    server, _ = site
    first = server.get("/static/js/big.js")
    assert first.headers["cache-control"] == "no-cache"
    etag = first.headers["etag"]
    again = server.get("/static/js/big.js", headers={"If-None-Match": etag})
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
    version = answer.text.split('"')[1]
    assert version.startswith("casino-") and len(version) == len("casino-") + 12
    # a changed client file gives a new cache name (so the new client installs afresh)
    path = client / "js" / "big.js"
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))
    assert server.get("/sw.js").text.split('"')[1] != version
