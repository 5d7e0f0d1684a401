"""The HTTP use cases: create a room, join the friend's seat, make and use rejoin codes, a
room's public summary. Each answers a value or raises ``ApiError`` with a code; the web
layer (``web/api.py``) picks the HTTP status.

Joins and rejoins are safe to retry: the client sends a ``key`` of its own choosing, and
the seat's token is derived from it (HMAC with the server's token key), so a retry with the
same key gets the same token, and an answer lost with a killed server costs nothing.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
import time
from collections.abc import Callable
from typing import Any

from .. import ai
from ..config import Settings
from ..protocol import MAX_TOKEN, MAX_WATCH_CODE, ApiError, is_plain, normalize_watch_code
from ..rooms import Router
from ..rooms.commands import Join, MoveSeat
from ..rooms.views import COMPUTER_NAME
from ..store import CREATOR, RejoinError, RoomState, SeatState, Storage
from .names import DEFAULT_NAMES, clean_name

CODE_ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"  # no 0/O, 1/I/L
INVITE_LEN = 8
SHORT_CODE_LEN = 9  # 31**9, about 44.6 bits; 8 would read as an invite in the client
# the watch link's code: 31**12, about 59 bits, so it is not guessed even without a failure
# budget (a watcher sees no hand, but a family's game is theirs to share)
WATCH_LEN = 12
MIN_KEY, MAX_KEY = 16, 64


def new_token() -> str:
    """A seat token: 256 bits from ``secrets``. Only its hash is stored; never logged."""
    return secrets.token_urlsafe(32)


def hash_secret(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


async def keyed(storage: Storage, text: str) -> bytes:
    """HMAC-SHA-256 of ``text`` with the server's token key: the same text, the same digest
    (a retried join gets the same token, a match the same replay code)."""
    return hmac.new(await storage.codes.token_key(), text.encode(), hashlib.sha256).digest()


def new_code(length: int) -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(length))


def normalize_code(text: str) -> str:
    return "".join(ch for ch in text.upper() if ch not in " -_\t")


def retry_key(raw: object) -> str | None:
    """The client's retry key (optional): 16–64 printable ASCII characters."""
    if raw is None:
        return None
    if not isinstance(raw, str) or not MIN_KEY <= len(raw) <= MAX_KEY or not is_plain(raw):
        raise ApiError("bad_key")
    return raw


def plain_text(raw: object, max_len: int, code: str) -> str:
    if not isinstance(raw, str) or not 0 < len(raw) <= max_len or not is_plain(raw.strip()):
        raise ApiError(code)
    return raw.strip()


class Lobby:
    """``clock``: the time codes expire and seats are stamped by (the database's, in a
    server: every process reads it alike)."""

    def __init__(
        self,
        storage: Storage,
        router: Router,
        settings: Settings,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.storage = storage
        self.router = router
        self.settings = settings
        self.clock = clock

    async def _token(self, purpose: str, ident: str, key: str | None) -> str:
        """A new seat token; derived from the client's key when it sent one (a retry with
        the same key gets the same token)."""
        if key is None:
            return new_token()
        digest = hmac.new(
            await self.storage.codes.token_key(),
            f"{purpose}:{ident}:{key}".encode(),
            hashlib.sha256,
        ).digest()
        return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()

    async def create(
        self, mode: object, level: object, name: object, turns: object = False
    ) -> dict[str, Any]:
        if mode not in ("computer", "friend"):
            raise ApiError("bad_mode")
        if not isinstance(turns, bool) or (turns and mode != "friend"):
            raise ApiError("bad_turns")
        if mode == "computer" and (not isinstance(level, str) or level not in ai.LEVELS):
            raise ApiError("bad_level")
        name0 = clean_name(name, 0)
        token = new_token()
        room_id = secrets.token_urlsafe(9)
        invite = new_code(INVITE_LEN) if mode == "friend" else None
        computer = mode == "computer"
        state = RoomState(
            id=room_id,
            mode="computer" if computer else "friend",
            level=str(level) if computer else None,
            seed=secrets.token_hex(16),
            match_no=1,
            match_start_seq=0,
            seq=0,
            version=0,
            invite=invite,
            seats=(
                SeatState("arriving", self.clock(), name=name0),
                SeatState(name=COMPUTER_NAME if computer else None),
            ),
            turns=turns,
            watch=new_code(WATCH_LEN),
        )
        await self.storage.rooms.create(
            state, "playing" if computer else "waiting", hash_secret(token)
        )
        answer: dict[str, Any] = {
            "room": room_id,
            "seat": 0,
            "token": token,
            "turns": turns,
            "watch_url": f"/v/{state.watch}",
        }
        if invite is not None:
            answer.update(invite=invite, invite_url=f"/j/{invite}")
        return answer

    async def join(self, invite: object, name: object, key: object) -> dict[str, Any]:
        invite_code = normalize_code(plain_text(invite, 32, "invite_unknown"))
        name1 = clean_name(name, 1)
        client_key = retry_key(key)
        room_id = await self.storage.codes.room_for_invite(invite_code)
        if room_id is None:
            raise ApiError("invite_unknown")
        token = await self._token("join", room_id, client_key)
        key_hash = hash_secret(client_key) if client_key is not None else None
        seat = await self.router.call(room_id, Join(name1, hash_secret(token), key_hash))
        if isinstance(seat, bool):  # a room on a process of the release before: its friend seat
            seat = 1 if seat else -1
        if seat is None:
            raise ApiError("invite_unknown")
        if seat < 0:
            raise ApiError("room_full")
        return {"room": room_id, "seat": seat, "token": token}

    def invite_of(self, typed: object) -> str | None:
        """The invite ``typed`` is, as stored, when it is one by its form (``INVITE_LEN``
        characters of ``CODE_ALPHABET``, any case, spaces and dashes ignored); else None
        (a rejoin code, or nothing of ours). The rule of the codes, kept here, not in a
        client."""
        if not isinstance(typed, str) or len(typed) > 32:
            return None
        code = normalize_code(typed)
        if len(code) == INVITE_LEN and all(ch in CODE_ALPHABET for ch in code):
            return code
        return None

    async def watch(self, code: object) -> dict[str, Any]:
        """The room of a watch link (``/v/<code>``), so that the watcher's socket names it
        (``/ws/<room>``) and lands where the room's seats do."""
        if not isinstance(code, str) or len(code) > MAX_WATCH_CODE:
            raise ApiError("watch_unknown")
        normal = normalize_watch_code(code)
        room_id = (
            await self.storage.codes.room_for_watch(normal) if is_plain(normal or " ") else None
        )
        if room_id is None:
            raise ApiError("watch_unknown")
        return {"room": room_id}

    async def invitation(self, invite: object) -> dict[str, Any]:
        """Who invites: the host's name as the server stored it (checked by the name rules),
        so an invitation link cannot make up its sender; None for the default name of a
        host who gave none ("Jugador 1" says nothing of them)."""
        invite_code = normalize_code(plain_text(invite, 32, "invite_unknown"))
        room_id = await self.storage.codes.room_for_invite(invite_code)
        state = await self.storage.rooms.load(room_id) if room_id is not None else None
        if state is None:
            raise ApiError("invite_unknown")
        host = state.names[CREATOR]
        return {
            "host": None if host == DEFAULT_NAMES[CREATOR] else host,
            "open": any(name is None for name in state.names),
            "turns": state.turns,
            "room": room_id,  # a device holding a seat there goes to its table instead
        }

    async def summary(self, room_id: str) -> dict[str, Any]:
        if len(room_id) > 32 or not is_plain(room_id):
            raise ApiError("room_unknown")
        found = await self.router.summary(room_id)
        if found is None:
            raise ApiError("room_unknown")
        return found

    async def make_rejoin_code(self, token: object) -> dict[str, Any]:
        if not isinstance(token, str) or not 0 < len(token) <= MAX_TOKEN or not is_plain(token):
            raise ApiError("bad_token")
        found = await self.storage.seats.room_of(hash_secret(token))
        if found is None:
            raise ApiError("bad_token")
        ttl = self.settings.rejoin_ttl
        for _ in range(5):
            short = new_code(SHORT_CODE_LEN)
            long = secrets.token_urlsafe(24)
            if await self.storage.codes.add_rejoin(
                found[0], found[1], hash_secret(short), hash_secret(long), self.clock() + ttl
            ):
                return {"code": short, "url": f"/r/{long}", "expires_in": ttl}
        raise ApiError("server_error")  # pragma: no cover - five collisions in a row

    async def rejoin(self, code: object, key: object) -> dict[str, Any]:
        text = plain_text(
            code.replace(" ", "") if isinstance(code, str) else code, 64, "code_unknown"
        )
        candidate = normalize_code(text) if len(text) <= 12 else text
        client_key = retry_key(key)
        code_hash = hash_secret(candidate)
        found = await self.storage.codes.find_rejoin(code_hash)
        if found is None:
            raise ApiError("code_unknown")
        if found.used_at is None and found.expires_at <= self.clock():
            raise ApiError("code_expired")
        token = await self._token("rejoin", code_hash, client_key)
        key_hash = hash_secret(client_key) if client_key is not None else None
        try:
            await self.router.call(found.room_id, MoveSeat(found, hash_secret(token), key_hash))
        except RejoinError as exc:
            raise ApiError(exc.code) from None
        return {"room": found.room_id, "seat": found.seat, "token": token}
