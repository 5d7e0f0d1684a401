"""The client's files over HTTP: gzip for every answer big enough to gain from it,
revalidation (Cache-Control + the ETag Starlette's StaticFiles already sends) for the files
under ``/static/``, and the service worker at ``/sw.js`` so that it may control the whole
site. Its cache name carries a digest of the client's files, so each new client version
installs afresh (see client/sw.js)."""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Awaitable, Callable
from pathlib import Path

from starlette.applications import Starlette
from starlette.datastructures import Headers
from starlette.middleware.gzip import GZipMiddleware
from starlette.requests import Request
from starlette.responses import Response
from starlette.staticfiles import NotModifiedResponse, StaticFiles
from starlette.types import Scope

from ..i18n import negotiate, words
from ..i18n.browser import browser_parts, compact
from .lean import lean_file, lean_source

# Revalidate every time: a 304 costs a few bytes and nobody plays with yesterday's code;
# the service worker is what makes the page open at once.
STATIC_CACHE = "no-cache"
GZIP_MIN_BYTES = 500
GZIP_LEVEL = 6  # level 9 costs far more CPU for about 1% fewer bytes on these files
SW_VERSION_MARK = "casino-dev"


class ClientFiles(StaticFiles):
    """StaticFiles (ETag, Last-Modified, 304) plus a Cache-Control header; the modules lean
    (server/web/lean.py) unless ``lean_js`` is off."""

    def __init__(self, *, directory: Path, lean_js: bool = True, check_dir: bool = True) -> None:
        super().__init__(directory=directory, check_dir=check_dir)
        self.lean_js = lean_js

    def file_response(
        self,
        full_path: str | os.PathLike[str],
        stat_result: os.stat_result,
        scope: Scope,
        status_code: int = 200,
    ) -> Response:
        path = Path(full_path)
        if path.parent.name == "i18n" and path.suffix == ".json":
            return self.catalog_response(path, stat_result, scope)
        if path.name == "manifest.webmanifest":
            return self.manifest_response(path, scope)
        if self.lean_js and path.suffix == ".js":
            return self.lean_response(path, stat_result, scope)
        response = super().file_response(full_path, stat_result, scope, status_code)
        response.headers["Cache-Control"] = STATIC_CACHE
        return response

    async def get_response(self, path: str, scope: Scope) -> Response:
        """The reading pages' words of a catalog (``i18n/reading/<tag>.json``: no file of
        that name, a part of ``i18n/<tag>.json``); every other file as StaticFiles serves it."""
        reading = READING_PATH.fullmatch(path.replace(os.sep, "/"))
        if reading and scope["method"] in ("GET", "HEAD"):
            source = Path(self.directory or ".") / "i18n" / f"{reading.group(1)}.json"
            if source.is_file():
                return self.catalog_response(source, source.stat(), scope, "reading")
        return await super().get_response(path, scope)

    def catalog_response(
        self, path: Path, stat_result: os.stat_result, scope: Scope, part: str = "screens"
    ) -> Response:
        """A part of a catalog as the browser fetches it (``browser_catalog``), with its
        ETag."""
        body, etag = browser_catalog(path, stat_result)[part]
        headers = Headers({"etag": etag, "cache-control": STATIC_CACHE})
        if self.is_not_modified(headers, Headers(scope=scope)):
            return NotModifiedResponse(headers)
        return Response(body, media_type="application/json", headers=dict(headers))

    def lean_response(self, path: Path, stat_result: os.stat_result, scope: Scope) -> Response:
        """A module without its comments (``lean_file``), with its own ETag."""
        body, etag = lean_file(path, stat_result)
        headers = Headers({"etag": etag, "cache-control": STATIC_CACHE})
        if self.is_not_modified(headers, Headers(scope=scope)):
            return NotModifiedResponse(headers)
        return Response(body, media_type="text/javascript", headers=dict(headers))

    def manifest_response(self, path: Path, scope: Scope) -> Response:
        """The web app manifest with its name and description in the language the browser
        asks for (``Accept-Language``: the manifest has no other way to speak two)."""
        request = Headers(scope=scope)
        lang = negotiate(request.get("accept-language"))
        data = json.loads(path.read_text(encoding="utf-8"))
        data["lang"] = lang
        for field in ("name", "short_name", "description"):
            data[field] = words(f"manifest.{field}", lang)
        body = json.dumps(data, ensure_ascii=False, indent=1).encode()
        etag = '"' + hashlib.sha256(body).hexdigest()[:20] + '"'
        headers = Headers({"etag": etag, "cache-control": STATIC_CACHE, "vary": "Accept-Language"})
        if self.is_not_modified(headers, request):
            return NotModifiedResponse(headers)
        return Response(body, media_type="application/manifest+json", headers=dict(headers))


READING_PATH = re.compile(r"i18n/reading/([A-Za-z]{2,3}(?:-[A-Za-z0-9]{2,8})*)\.json")

_parts: dict[tuple[str, int, int], dict[str, tuple[bytes, str]]] = {}


def browser_catalog(path: Path, stat_result: os.stat_result) -> dict[str, tuple[bytes, str]]:
    """A catalog's parts as the browser fetches them (server/i18n/browser.py: the texts of
    the screens, and the reading pages'), compact, each with its ETag. Built once per file
    version."""
    key = (str(path), stat_result.st_mtime_ns, stat_result.st_size)
    found = _parts.get(key)
    if found is None:
        data = json.loads(path.read_text(encoding="utf-8"))
        found = {}
        for part, words in browser_parts(data).items():
            body = compact(words)
            found[part] = body, '"' + hashlib.sha256(body).hexdigest()[:20] + '"'
        _parts[key] = found
    return found


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


def service_worker_route(
    client_dir: Path, lean_js: bool = True
) -> Callable[[Request], Awaitable[Response]]:
    """The handler of ``GET /sw.js`` (lean, as the modules are, unless ``lean_js`` is off)."""

    async def service_worker(request: Request) -> Response:
        path = client_dir / "sw.js"
        if not path.is_file():
            return Response("", status_code=404)
        text = path.read_text(encoding="utf-8").replace(
            SW_VERSION_MARK, f"casino-{client_digest(client_dir)}"
        )
        if lean_js:
            text = lean_source(text)
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
