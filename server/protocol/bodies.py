"""The HTTP API's request bodies (docs/protocol.md, "HTTP API"), read as the websocket's
messages are (``incoming.py``): one JSON object in, one frozen value out, or ``ApiError``
with the code that says what is wrong, its fields checked in the order the API always
checked them. Shapes only: whether an invite, a code or a token names anything is for the
use cases (``server/lobby/``) to find out. A seat's token has one shape everywhere
(``is_token``: the websocket's ``hello`` too)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from ..ai import LEVELS
from ..engine.seats import SEAT_COUNTS
from .errors import ApiError
from .incoming import is_plain, is_token
from .names import person_name

MODES = ("computer", "friend")
MIN_KEY, MAX_KEY = 16, 64  # a retry key (docs/protocol.md, "Retries")
MAX_INVITE = 32  # an invite as typed: 8 characters and whatever separators a person adds
MAX_CODE = 64  # a rejoin code, short (9) or long (32), spaces taken out
MAX_GAMES = 30  # seat tokens in one Mis partidas request
MAX_MATCH = 2**31 - 1
MAX_P256DH, MAX_AUTH = 100, 32  # a subscription's keys, base64url (65 and 16 bytes)


# -- fields -------------------------------------------------------------------------------


def seat_token(raw: object) -> str:
    if not is_token(raw):
        raise ApiError("bad_token")
    return raw


def retry_key(raw: object) -> str | None:
    """The client's retry key (optional): 16–64 printable ASCII characters."""
    if raw is None:
        return None
    if not isinstance(raw, str) or not MIN_KEY <= len(raw) <= MAX_KEY or not is_plain(raw):
        raise ApiError("bad_key")
    return raw


def plain_text(raw: object, max_len: int, code: str) -> str:
    """Text of printable ASCII once its outer spaces are taken off, 1..max_len long."""
    if not isinstance(raw, str) or not 0 < len(raw) <= max_len or not is_plain(raw.strip()):
        raise ApiError(code)
    return raw.strip()


# -- bodies -------------------------------------------------------------------------------


def computer_level(raw: object) -> str:
    if not isinstance(raw, str) or raw not in LEVELS:
        raise ApiError("bad_level")
    return raw


def chair(raw: object) -> str | None:
    """One chair of a table of four as its creator says it: ``{"kind": "friend"}`` (None)
    or ``{"kind": "computer", "level": …}`` (the level)."""
    if not isinstance(raw, dict) or raw.get("kind") not in ("friend", "computer"):
        raise ApiError("bad_chairs")
    return computer_level(raw.get("level")) if raw["kind"] == "computer" else None


@dataclass(frozen=True, slots=True)
class NewRoomBody:
    """POST /api/rooms. ``name`` None: none given. ``chairs``: who holds each seat after the
    creator's, in the order of play: a computer level, or None for a friend's chair."""

    mode: Literal["computer", "friend"]
    level: str | None  # the computer's, in a computer room (its first computer chair's)
    name: str | None
    turns: bool = False
    chairs: tuple[str | None, ...] = (None,)

    @property
    def seat_count(self) -> int:
        return len(self.chairs) + 1

    @classmethod
    def parse(cls, data: dict[str, Any]) -> NewRoomBody:
        mode, turns, level = data.get("mode"), data.get("turns", False), data.get("level")
        count = data.get("seats", 2)
        if count not in SEAT_COUNTS or isinstance(count, bool):
            raise ApiError("bad_seats")
        if count == 2:
            if mode not in MODES:
                raise ApiError("bad_mode")
            if not isinstance(turns, bool) or (turns and mode != "friend"):
                raise ApiError("bad_turns")
            chairs: tuple[str | None, ...] = (
                (computer_level(level),) if mode == "computer" else (None,)
            )
        else:
            raw = data.get("chairs")
            if not isinstance(raw, list) or len(raw) != count - 1:
                raise ApiError("bad_chairs")
            chairs = tuple(chair(one) for one in raw)
            derived = "friend" if None in chairs else "computer"
            if mode is not None and mode != derived:
                raise ApiError("bad_mode")
            mode = derived
        if not isinstance(turns, bool) or (turns and mode != "friend"):
            raise ApiError("bad_turns")
        first = next((one for one in chairs if one is not None), None)
        kind: Literal["computer", "friend"] = "computer" if mode == "computer" else "friend"
        return cls(kind, first, person_name(data.get("name")), turns, chairs)


@dataclass(frozen=True, slots=True)
class JoinBody:
    """POST /api/join: the invite as typed (outer spaces off), the friend's name (None:
    none given), the retry key."""

    invite: str
    name: str | None
    key: str | None
    seat: int | None = None  # the chair the friend chose (None: the first free one)

    @classmethod
    def parse(cls, data: dict[str, Any]) -> JoinBody:
        invite = plain_text(data.get("invite"), MAX_INVITE, "invite_unknown")
        seat = data.get("seat")
        if seat is not None and (
            not isinstance(seat, int) or isinstance(seat, bool) or not 0 < seat < max(SEAT_COUNTS)
        ):
            raise ApiError("bad_seat")
        return cls(invite, person_name(data.get("name")), retry_key(data.get("key")), seat)


@dataclass(frozen=True, slots=True)
class RejoinBody:
    """POST /api/rejoin (and a rejoin code typed in POST /api/code): the code without its
    spaces, the retry key."""

    code: str
    key: str | None

    @classmethod
    def parse(cls, data: dict[str, Any]) -> RejoinBody:
        raw = data.get("code")
        code = plain_text(
            raw.replace(" ", "") if isinstance(raw, str) else raw, MAX_CODE, "code_unknown"
        )
        return cls(code, retry_key(data.get("key")))


@dataclass(frozen=True, slots=True)
class TokenBody:
    """POST /api/rejoin-code: a seat's token."""

    token: str

    @classmethod
    def parse(cls, data: dict[str, Any]) -> TokenBody:
        return cls(seat_token(data.get("token")))


@dataclass(frozen=True, slots=True)
class GamesBody:
    """POST /api/my-games: every seat token the device holds, at most ``MAX_GAMES``."""

    tokens: tuple[str, ...]

    @classmethod
    def parse(cls, data: dict[str, Any]) -> GamesBody:
        raw = data.get("tokens")
        if not isinstance(raw, list) or not all(is_token(t) for t in raw):
            raise ApiError("bad_tokens")
        if len(raw) > MAX_GAMES:
            raise ApiError("bad_tokens", "error.bad_tokens.many", args={"n": MAX_GAMES})
        return cls(tuple(raw))


@dataclass(frozen=True, slots=True)
class ReplayLinkBody:
    """POST /api/replays: a seat's token and one of its room's matches."""

    token: str
    match: int

    @classmethod
    def parse(cls, data: dict[str, Any]) -> ReplayLinkBody:
        token, match = seat_token(data.get("token")), data.get("match")
        if not isinstance(match, int) or isinstance(match, bool) or not 0 < match <= MAX_MATCH:
            raise ApiError("bad_match")
        return cls(token, match)


@dataclass(frozen=True, slots=True)
class SubscriptionBody:
    """A browser's ``PushSubscription`` as JSON, by its shape; whether its key is a P-256
    point and its endpoint a known push service is the use case's (``lobby/push.py``)."""

    endpoint: str
    p256dh: str  # base64url
    auth: str  # base64url

    @classmethod
    def parse(cls, raw: object) -> SubscriptionBody:
        if not isinstance(raw, dict):
            raise ApiError("bad_subscription")
        endpoint, keys = raw.get("endpoint"), raw.get("keys")
        if not isinstance(endpoint, str) or not isinstance(keys, dict):
            raise ApiError("bad_subscription")
        p256dh, auth = keys.get("p256dh"), keys.get("auth")
        if not isinstance(p256dh, str) or not isinstance(auth, str):
            raise ApiError("bad_subscription")
        if (
            len(p256dh) > MAX_P256DH
            or len(auth) > MAX_AUTH
            or not (is_plain(p256dh) and is_plain(auth))
        ):
            raise ApiError("bad_subscription")
        return cls(endpoint, p256dh, auth)


@dataclass(frozen=True, slots=True)
class PushBody:
    """POST /api/push: a seat's token, its subscription on this browser (None: drop it),
    the page's language tag (None: none sent; any text is read as a language or the
    default)."""

    token: str
    subscription: SubscriptionBody | None
    lang: str | None

    @classmethod
    def parse(cls, data: dict[str, Any]) -> PushBody:
        token, raw = seat_token(data.get("token")), data.get("subscription")
        lang = data.get("lang")
        return cls(
            token,
            None if raw is None else SubscriptionBody.parse(raw),
            lang if isinstance(lang, str) else None,
        )
