"""The HTTP use cases of one's own games: Mis partidas (``list``: a summary of every seat a
device holds, from storage alone, no room loaded into memory) and replays of finished
matches (``replay_link`` for a seat, ``replay`` for anyone with the link). Each answers a
value or raises ``ApiError``; ``web/api.py`` picks the HTTP status.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import hmac
import time
from typing import Any

from ..protocol import MAX_TOKEN, ApiError, is_plain
from ..rooms import RoomRegistry
from ..rooms.views import my_game
from ..store import SeatListing, Storage
from .lobby import hash_secret
from .replays import NotFinished, build_replay

MAX_GAMES = 30  # seat tokens in one list request
REPLAY_CODE_LEN = 22  # url-safe characters: 132 bits
MAX_MATCH = 2**31 - 1


def seat_tokens(raw: object) -> list[str]:
    if not isinstance(raw, list) or not all(
        isinstance(t, str) and 0 < len(t) <= MAX_TOKEN and is_plain(t) for t in raw
    ):
        raise ApiError("bad_tokens")
    if len(raw) > MAX_GAMES:
        raise ApiError("bad_tokens", "error.bad_tokens.many", args={"n": MAX_GAMES})
    return [str(t) for t in raw]


class Games:
    def __init__(self, storage: Storage, registry: RoomRegistry) -> None:
        self.storage = storage
        self.registry = registry  # rebuilds a copy of a room listed before its listing

    async def list(self, raw_tokens: object) -> dict[str, Any]:
        """One entry per token, in order: the seat's game, or None (unknown or no longer
        valid: the device may forget it)."""
        tokens = seat_tokens(raw_tokens)
        hashes = [hash_secret(t) for t in tokens]
        found = {g.token_hash: g for g in await self.storage.listings.seats(sorted(set(hashes)))}
        now = time.time()
        pushed = await self.storage.push.subscribed(sorted(found))  # Web Push (issue 29)
        games: list[dict[str, Any] | None] = []
        for token_hash in hashes:
            game = found.get(token_hash)
            entry = await self._entry(game, now) if game is not None else None
            if entry is not None:
                entry["push"] = token_hash in pushed
            games.append(entry)
        return {"games": games}

    async def _entry(self, game: SeatListing, now: float) -> dict[str, Any] | None:
        turn, scores = game.turn, game.scores
        if scores is None:  # not written since the listing columns came: rebuild a copy
            copy = await self.registry.rebuild(game.room_id)
            if copy is None:
                return None
            scores = copy.match.scores
            turn = copy.match.position.turn if copy.status == "playing" else None
        return my_game(game, now, scores, turn)

    # -- replays -------------------------------------------------------------------------

    async def _code(self, room_id: str, match_no: int) -> str:
        """The match's replay code: derived with the server's key, so asking twice (or
        two seats at once) gives the same one; the room id is never in a link."""
        digest = hmac.new(
            await self.storage.codes.token_key(),
            f"replay:{room_id}:{match_no}".encode(),
            hashlib.sha256,
        ).digest()
        return base64.urlsafe_b64encode(digest).decode()[:REPLAY_CODE_LEN]

    async def replay_link(self, token: object, match: object) -> dict[str, Any]:
        if not isinstance(token, str) or not 0 < len(token) <= MAX_TOKEN or not is_plain(token):
            raise ApiError("bad_token")
        if not isinstance(match, int) or isinstance(match, bool) or not 0 < match <= MAX_MATCH:
            raise ApiError("bad_match")
        found = await self.storage.seats.room_of(hash_secret(token))
        if found is None:
            raise ApiError("bad_token")
        stored = await self.storage.listings.match(found[0], match)
        if stored is None:
            raise ApiError("bad_match")
        if not stored.finished:
            raise ApiError("not_finished")
        code = await self.storage.codes.add_replay(
            await self._code(found[0], match), found[0], match
        )
        return {"code": code, "url": f"/p/{code}", "match": match}

    async def replay(self, code: object) -> dict[str, Any]:
        if not isinstance(code, str) or not 0 < len(code) <= 32 or not is_plain(code):
            raise ApiError("replay_unknown")
        link = await self.storage.codes.find_replay(code)
        stored = await self.storage.listings.match(*link) if link is not None else None
        if stored is None:
            raise ApiError("replay_unknown")
        try:
            # the engine is plain Python: a few hundred moves, off the event loop
            return await asyncio.to_thread(build_replay, stored)
        except NotFinished:
            raise ApiError("not_finished") from None
