"""The HTTP API (docs/protocol.md): each handler reads its request, its body into a frozen
value (``protocol.bodies``, as the websocket's messages are read), calls its use case
(server/lobby/) and says how HTTP puts the answer; errors carry a code and a Spanish
message, with the status chosen from the code (``STATUS``), never a stack trace."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, Response

from ..cluster import is_outage
from ..edge.limits import client_key
from ..edge.security import origin_allowed
from ..edge.shared_limits import Budget, RateLimit
from ..i18n import negotiate
from ..protocol import ApiError, ProtocolError, loads
from ..protocol.bodies import (
    GamesBody,
    JoinBody,
    NewRoomBody,
    PushBody,
    RejoinBody,
    ReplayLinkBody,
    TokenBody,
)
from .qr import shareable_path
from .services import limits_of, services_of, settings_of

log = logging.getLogger("server.web")

MAX_BODY = 4096
SHORT_CODE_MAX = 12  # a rejoin code this long or shorter is the short one (lobby.rejoin)

# the HTTP status of each API error code (the use cases say what happened; this says how
# HTTP puts it)
STATUS = {
    "bad_request": 400,
    "bad_mode": 400,
    "bad_level": 400,
    "bad_name": 400,
    "bad_key": 400,
    "bad_qr_text": 400,
    "bad_token": 401,
    "bad_origin": 403,
    "invite_unknown": 404,
    "room_unknown": 404,
    "code_unknown": 404,
    "not_found": 404,
    "room_full": 409,
    "seat_taken": 409,
    "bad_seat": 400,
    "bad_seats": 400,
    "bad_chairs": 400,
    "code_expired": 410,
    "code_used": 410,
    "rate_limited": 429,
    "server_error": 500,
    "reconnecting": 503,
    "bad_host": 400,
    "busy": 503,
    "bad_turns": 400,
    "bad_tokens": 400,
    "bad_match": 404,
    "not_finished": 409,
    "watch_unknown": 404,
    "replay_unknown": 404,
    "bad_subscription": 400,
    "push_not_friend": 409,
}


def status_of(error: ApiError) -> int:
    return error.status or STATUS.get(error.code, 400)


async def limited(request: Request, name: str) -> None:
    """Per address (IPv6: per /64), before the body is even read."""
    limit: RateLimit = getattr(limits_of(request), name)
    if not await limit.allow(client_key(request.client.host if request.client else None)):
        raise ApiError("rate_limited", "error.rate_limited.tries")


CODES_PAUSED = "error.rate_limited.codes_paused"
MISSES_HERE = "error.rate_limited.misses_here"


async def budget_of(request: Request, name: str) -> Budget:
    budget: Budget = getattr(limits_of(request), name)
    if await budget.exhausted():
        raise ApiError("rate_limited", CODES_PAUSED)
    return budget


Miss = Callable[[], Awaitable[None]]


async def invite_gate(request: Request) -> Miss:
    """Wrong invite codes cost the address that tries them (``invite_misses``, a few a
    minute). Once the whole server's budget of them is spent (``invite_failures``), one miss
    in the minute is enough to refuse an address: guessing from many addresses slows to one
    guess a minute each, and an address that never missed (the friend who holds a real
    link) is never refused for it. Returns what to call when the code turns out unknown."""
    limits = limits_of(request)
    key = client_key(request.client.host if request.client else None)
    strict = await limits.invite_failures.exhausted()
    if await limits.invite_misses.spent(key, strict=strict):
        raise ApiError("rate_limited", MISSES_HERE)

    async def miss() -> None:
        await limits.invite_misses.charge(key)
        await limits.invite_failures.charge()

    return miss


async def read_json(request: Request) -> dict[str, Any]:
    if not origin_allowed(
        request.headers.get("origin"), request.headers.get("host"), settings_of(request)
    ):
        raise ApiError("bad_origin")
    body = b""
    try:
        async for chunk in request.stream():
            body += chunk
            if len(body) > MAX_BODY:
                raise ApiError("bad_request", status=413)
    except ClientDisconnect:  # gone before it finished: nobody to answer, nothing to log
        raise ApiError("bad_request") from None
    try:
        data = loads(body)  # invalid UTF-8, lone surrogates, deep nesting: a ValueError
    except ValueError:
        raise ApiError("bad_request") from None
    if not isinstance(data, dict):
        raise ApiError("bad_request")
    return data


Handler = Callable[[Request], Awaitable[Response]]


def lang_of(request: Request) -> str:
    """The language the client reads (its ``Accept-Language``; the app sends its own)."""
    return negotiate(request.headers.get("accept-language"))


def api(handler: Handler) -> Handler:
    """JSON errors with a code and a message in the client's language (``Accept-Language``);
    never a stack trace to a client."""

    async def wrapped(request: Request) -> Response:
        try:
            return await handler(request)
        except ApiError as exc:
            return JSONResponse(exc.body(lang_of(request)), status_code=status_of(exc))
        except ProtocolError as exc:  # from a room (e.g. it stopped under the request)
            error = ApiError(exc.code)
            return JSONResponse(error.body(lang_of(request)), status_code=status_of(error))
        except Exception as exc:
            if is_outage(exc):  # the database or Redis is away for a moment
                error = ApiError("reconnecting")
                return JSONResponse(error.body(lang_of(request)), status_code=status_of(error))
            log.exception("error in %s", handler.__name__)
            body = ApiError("server_error").body(lang_of(request))
            return JSONResponse(body, status_code=500)

    wrapped.__name__ = handler.__name__
    return wrapped


# -- HTTP handlers -------------------------------------------------------------------------


@api
async def create_room(request: Request) -> Response:
    await limited(request, "rooms")
    body = NewRoomBody.parse(await read_json(request))
    return JSONResponse(await services_of(request).lobby.create(body), status_code=201)


@api
async def watch_room(request: Request) -> Response:
    await limited(request, "join")
    return JSONResponse(await services_of(request).lobby.watch(request.path_params["code"]))


@api
async def invitation(request: Request) -> Response:
    await limited(request, "join")
    miss = await invite_gate(request)
    try:
        answer = await services_of(request).lobby.invitation(request.path_params["invite"])
    except ApiError as exc:
        if exc.code == "invite_unknown":
            await miss()
        raise
    return JSONResponse(answer)


@api
async def join_room(request: Request) -> Response:
    await limited(request, "join")
    data = await read_json(request)
    miss = await invite_gate(request)
    try:  # a malformed invite is a miss too
        answer = await services_of(request).lobby.join(JoinBody.parse(data))
    except ApiError as exc:
        if exc.code == "invite_unknown":
            await miss()
        raise
    return JSONResponse(answer)


@api
async def room_summary(request: Request) -> Response:
    return JSONResponse(await services_of(request).lobby.summary(request.path_params["room"]))


@api
async def my_games(request: Request) -> Response:
    """POST: seat tokens are secrets, so they travel in the body, never in a URL."""
    await limited(request, "games")
    body = GamesBody.parse(await read_json(request))
    return JSONResponse(await services_of(request).games.list(body))


@api
async def make_replay_link(request: Request) -> Response:
    await limited(request, "replays")
    body = ReplayLinkBody.parse(await read_json(request))
    return JSONResponse(await services_of(request).games.replay_link(body), status_code=201)


@api
async def replay(request: Request) -> Response:
    await limited(request, "replays")
    answer = await services_of(request).games.replay(request.path_params["code"])
    # a finished match never changes: a shared link may be cached by the browser
    return JSONResponse(answer, headers={"Cache-Control": "private, max-age=3600"})


@api
async def create_rejoin_code(request: Request) -> Response:
    await limited(request, "join")
    body = TokenBody.parse(await read_json(request))
    answer = await services_of(request).lobby.make_rejoin_code(body.token)
    return JSONResponse(answer, status_code=201)


async def rejoin_by_code(request: Request, data: dict[str, Any]) -> dict[str, Any]:
    # only short codes can be guessed: the long one (192 bits) has no server-wide budget
    code = data.get("code")
    short = isinstance(code, str) and len(code.strip()) <= SHORT_CODE_MAX
    budget = await budget_of(request, "rejoin_failures") if short else None
    try:  # a malformed short code costs the budget too
        return await services_of(request).lobby.rejoin(RejoinBody.parse(data))
    except ApiError as exc:
        if budget is not None and exc.code == "code_unknown":
            await budget.charge()
        raise


@api
async def use_rejoin_code(request: Request) -> Response:
    await limited(request, "join")
    return JSONResponse(await rejoin_by_code(request, await read_json(request)))


@api
async def use_code(request: Request) -> Response:
    """A code as typed in Inicio's box: the server says what it is, since the codes are its
    own. An invite: where its invitation is (and who sends it); a rejoin code: the seat, moved
    to this device as ``/api/rejoin`` does. Each kind counts in its own budget."""
    await limited(request, "join")
    data = await read_json(request)
    lobby = services_of(request).lobby
    invite = lobby.invite_of(data.get("code"))
    if invite is None:
        answer = await rejoin_by_code(request, data)
        return JSONResponse({"kind": "seat", **answer})
    miss = await invite_gate(request)
    try:
        found = await lobby.invitation(invite)
    except ApiError as exc:
        if exc.code != "invite_unknown":
            raise
        await miss()
        raise ApiError("code_unknown") from None
    return JSONResponse({"kind": "invite", "invite": invite, "url": f"/j/{invite}", **found})


@api
async def qr_svg(request: Request) -> Response:
    """POST, the link's path in the body: a rejoin link is a secret and a query string is
    written into every proxy's log (server/web/qr.py)."""
    await limited(request, "qr")
    path = shareable_path((await read_json(request)).get("text"))
    settings = settings_of(request)
    origin = settings.public_origin or f"{request.url.scheme}://{request.headers.get('host', '')}"
    qr = services_of(request).qr
    svg = await qr.svg(origin + path, cache=path.startswith(("/j/", "/v/")))
    return Response(svg, media_type="image/svg+xml", headers={"Cache-Control": "no-store"})


@api
async def push_key(request: Request) -> Response:
    """The VAPID public key (the browser's ``applicationServerKey``): the same for every
    process of a deployment, for as long as its key is kept."""
    return JSONResponse(
        services_of(request).pushes.key(), headers={"Cache-Control": "public, max-age=3600"}
    )


@api
async def push_subscription(request: Request) -> Response:
    """A seat's Web Push subscription kept (``subscription``: the browser's) or dropped
    (``null``); safe to retry."""
    await limited(request, "games")
    body = PushBody.parse(await read_json(request))
    return JSONResponse(await services_of(request).pushes.subscribe(body))
