"""The HTTP use cases: create a room, join the friend's seat, make and use rejoin codes, a
room's public summary. Each answers a value or raises ``ApiError`` with a code; the web
layer (``web/api.py``) picks the HTTP status.

Joins and rejoins are safe to retry: the client sends a ``key`` of its own choosing, and
the seat's token is derived from it (HMAC with the server's token key), so a retry with the
same key gets the same token, and an answer lost with a killed server costs nothing.
"""

from __future__ import annotations

import base64
import secrets
import time
from collections.abc import Callable
from typing import Any

from ..config import Settings
from ..protocol import MAX_WATCH_CODE, ApiError, is_plain, normalize_watch_code
from ..protocol.bodies import MAX_INVITE, JoinBody, NewRoomBody, RejoinBody, plain_text
from ..protocol.names import COMPUTER_NAME, default_name
from ..rooms import Router
from ..rooms.commands import JOIN_REFUSED, Join, MoveSeat
from ..store import CREATOR, RejoinError, RoomState, SeatState, Storage
from .tokens import hash_secret, keyed, new_token, seat_of

CODE_ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"  # no 0/O, 1/I/L
INVITE_LEN = 8
SHORT_CODE_LEN = 9  # 31**9, about 44.6 bits; 8 would read as an invite in the client
# the watch link's code: 31**12, about 59 bits, so it is not guessed even without a failure
# budget (a watcher sees no hand, but a family's game is theirs to share)
WATCH_LEN = 12


def new_code(length: int) -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(length))


def normalize_code(text: str) -> str:
    return "".join(ch for ch in text.upper() if ch not in " -_\t")


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
        digest = await keyed(self.storage, purpose, ident, key)
        return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()

    async def create(self, body: NewRoomBody) -> dict[str, Any]:
        """A new room (``body`` checked at the edge, ``protocol.bodies``)."""
        token = new_token()
        room_id = secrets.token_urlsafe(9)
        friends = None in body.chairs  # a chair waits for a friend
        invite = new_code(INVITE_LEN) if friends else None
        turns = body.turns
        state = RoomState(
            id=room_id,
            mode=body.mode,
            level=body.level,
            seed=secrets.token_hex(16),
            match_no=1,
            match_start_seq=0,
            seq=0,
            version=0,
            invite=invite,
            seats=(
                SeatState("arriving", self.clock(), name=body.name or default_name(CREATOR)),
                *(
                    SeatState(name=None if level is None else COMPUTER_NAME, computer=level)
                    for level in body.chairs
                ),
            ),
            turns=turns,
            watch=new_code(WATCH_LEN),
        )
        await self.storage.rooms.create(
            state, "waiting" if friends else "playing", hash_secret(token)
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

    async def join(self, body: JoinBody) -> dict[str, Any]:
        invite_code = normalize_code(body.invite)
        client_key = body.key
        room_id = await self.storage.codes.room_for_invite(invite_code)
        if room_id is None:
            raise ApiError("invite_unknown")
        token = await self._token("join", room_id, client_key)
        key_hash = hash_secret(client_key) if client_key is not None else None
        # a friend who gave no name is named after the seat they sit in (the room says which
        # when they chose none: ``name`` None)
        seat = await self.router.call(
            room_id, Join(body.name, hash_secret(token), key_hash, body.seat)
        )
        if seat is None:
            raise ApiError("invite_unknown")
        if seat < 0:
            raise ApiError(*JOIN_REFUSED[seat])
        return {"room": room_id, "seat": seat, "token": token}

    def invite_of(self, typed: object) -> str | None:
        """The invite ``typed`` is, as stored, when it is one by its form (``INVITE_LEN``
        characters of ``CODE_ALPHABET``, any case, spaces and dashes ignored); else None
        (a rejoin code, or nothing of ours). The rule of the codes, kept here, not in a
        client."""
        if not isinstance(typed, str) or len(typed) > MAX_INVITE:
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
        invite_code = normalize_code(plain_text(invite, MAX_INVITE, "invite_unknown"))
        room_id = await self.storage.codes.room_for_invite(invite_code)
        state = await self.storage.rooms.load(room_id) if room_id is not None else None
        if state is None:
            raise ApiError("invite_unknown")
        host = state.names[CREATOR]
        free = state.free_chairs()
        return {
            "host": None if host == default_name(CREATOR) else host,
            "open": bool(free),
            "turns": state.turns,
            "room": room_id,  # a device holding a seat there goes to its table instead
            "seat_count": state.seat_count,
            "seats": [
                {
                    "seat": seat,
                    "name": None if seat in free else state.names[seat],
                    "kind": "person" if state.seats[seat].computer is None else "computer",
                    "level": state.seats[seat].computer,
                    "free": seat in free,
                }
                for seat in range(state.seat_count)
            ],
        }

    async def summary(self, room_id: str) -> dict[str, Any]:
        if len(room_id) > 32 or not is_plain(room_id):
            raise ApiError("room_unknown")
        found = await self.router.summary(room_id)
        if found is None:
            raise ApiError("room_unknown")
        return found

    async def make_rejoin_code(self, token: str) -> dict[str, Any]:
        found = await seat_of(self.storage, token)
        ttl = self.settings.rejoin_ttl
        for _ in range(5):
            short = new_code(SHORT_CODE_LEN)
            long = secrets.token_urlsafe(24)
            if await self.storage.codes.add_rejoin(
                found.room_id, found.seat, hash_secret(short), hash_secret(long), self.clock() + ttl
            ):
                return {"code": short, "url": f"/r/{long}", "expires_in": ttl}
        raise ApiError("server_error")  # pragma: no cover - five collisions in a row

    async def rejoin(self, body: RejoinBody) -> dict[str, Any]:
        text, client_key = body.code, body.key
        candidate = normalize_code(text) if len(text) <= 12 else text
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
