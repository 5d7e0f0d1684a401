"""The pages: the client's shell at every address a link may open, Starlette's own errors in
the client's language (a short page in the site's look, with the way to Inicio), and
``/healthz`` for the load balancer."""

from __future__ import annotations

import html
from collections.abc import Mapping

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, JSONResponse, Response

from ..i18n import DEFAULT, negotiate, words
from ..protocol import ApiError
from .services import services_of, settings_of


def short_page(
    key: str, status: int, headers: Mapping[str, str] | None = None, lang: str = DEFAULT
) -> Response:
    """A short page in the site's look (the offline page's stylesheet) that says the
    catalog's ``key`` in ``lang`` and leads back to Inicio."""
    return HTMLResponse(
        f'<!doctype html><html lang="{html.escape(lang)}"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        '<meta name="theme-color" content="#0d5c3a">'
        f"<title>{html.escape(words('page.title', lang), quote=False)}</title>"
        '<link rel="icon" href="/static/icon.svg" type="image/svg+xml">'
        '<link rel="stylesheet" href="/static/css/offline.css"></head>'
        f"<body><main><h1>{html.escape(words(key, lang), quote=False)}</h1>"
        f'<p><a class="home" href="/">{html.escape(words("page.home", lang), quote=False)}</a></p>'
        "</main></body></html>",
        status_code=status,
        headers=headers,
    )


async def index_page(request: Request) -> Response:
    index = settings_of(request).client_dir / "index.html"
    if not index.is_file():
        lang = negotiate(request.headers.get("accept-language"))
        return short_page("error.not_installed", 404, lang=lang)
    return FileResponse(index, headers={"Cache-Control": "no-cache"})


async def http_error(request: Request, exc: Exception) -> Response:
    """Starlette's own errors (no such path or file, wrong method) in the client's language
    too: the API's error shape under /api/, a short page elsewhere."""
    assert isinstance(exc, HTTPException)
    lang = negotiate(request.headers.get("accept-language"))
    code = "not_found" if exc.status_code == 404 else "bad_request"
    if request.url.path.startswith("/api/"):
        body = ApiError(code).body(lang)
        return JSONResponse(body, status_code=exc.status_code, headers=exc.headers)
    return short_page(f"error.{code}", exc.status_code, exc.headers, lang)


async def healthz(request: Request) -> Response:
    """200 while this process may serve: it holds its lease (it reaches the database), it
    reaches the other processes (Redis, where there is one) and it is not stopping; 503
    otherwise, so that a load balancer sends players elsewhere meanwhile."""
    services = services_of(request)
    lease = services.lease.held
    hub = services.hub.healthy
    ok = lease and hub and not services.draining
    return JSONResponse(
        {
            "ok": ok,
            "node": services.registry.node,
            "lease": lease,
            "hub": hub,
            "draining": services.draining,
            "rooms_in_memory": len(services.registry.rooms),
        },
        status_code=200 if ok else 503,
    )
