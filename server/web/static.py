"""The client's files over HTTP: gzip for every answer big enough to gain from it,
revalidation (Cache-Control + the ETag Starlette's StaticFiles already sends) for the files
under ``/static/``, and the service worker at ``/sw.js`` so that it may control the whole
site. Its cache name carries a digest of the client's files, so each new client version
installs afresh (see client/sw.js)."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Awaitable, Callable
from pathlib import Path

from starlette.applications import Starlette
from starlette.middleware.gzip import GZipMiddleware
from starlette.requests import Request
from starlette.responses import Response
from starlette.staticfiles import StaticFiles
from starlette.types import Scope

# Revalidate every time: a 304 costs a few bytes and nobody plays with yesterday's code;
# the service worker is what makes the page open at once.
STATIC_CACHE = "no-cache"
GZIP_MIN_BYTES = 500
GZIP_LEVEL = 6  # level 9 costs far more CPU for about 1% fewer bytes on these files
SW_VERSION_MARK = "casino-dev"


class ClientFiles(StaticFiles):
    """StaticFiles (ETag, Last-Modified, 304) plus a Cache-Control header."""

    def file_response(
        self,
        full_path: str | os.PathLike[str],
        stat_result: os.stat_result,
        scope: Scope,
        status_code: int = 200,
    ) -> Response:
        response = super().file_response(full_path, stat_result, scope, status_code)
        response.headers["Cache-Control"] = STATIC_CACHE
        return response


def client_digest(client_dir: Path) -> str:
    """A short digest of the client's files (names, sizes, modification times)."""
    digest = hashlib.sha256()
    for path in sorted(client_dir.rglob("*")):
        if path.is_file():
            stat = path.stat()
            digest.update(
                f"{path.relative_to(client_dir)}:{stat.st_size}:{stat.st_mtime_ns}\n".encode()
            )
    return digest.hexdigest()[:12]


def service_worker_route(client_dir: Path) -> Callable[[Request], Awaitable[Response]]:
    """The handler of ``GET /sw.js``."""

    async def service_worker(request: Request) -> Response:
        path = client_dir / "sw.js"
        if not path.is_file():
            return Response("", status_code=404)
        text = path.read_text(encoding="utf-8").replace(
            SW_VERSION_MARK, f"casino-{client_digest(client_dir)}"
        )
        return Response(
            text,
            media_type="text/javascript",
            headers={
                "Cache-Control": "no-cache",
                "Service-Worker-Allowed": "/",
            },
        )

    return service_worker


def add_compression(app: Starlette) -> None:
    app.add_middleware(GZipMiddleware, minimum_size=GZIP_MIN_BYTES, compresslevel=GZIP_LEVEL)
