"""The HTTP use cases of one's own games: Mis partidas (``list``: a summary of every seat a
device holds, from storage alone, no room loaded into memory) and replays of finished
matches (``replay_link`` for a seat, ``replay`` for anyone with the link). Each answers a
value or raises ``ApiError``; ``app.py`` picks the HTTP status.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import hmac
import time
from typing import Any

from .lobby import COMPUTER_NAME, hash_secret
from .protocol import MAX_TOKEN, ApiError, is_plain
from .replay import NotFinished, build_replay
from .rooms import RoomRegistry
from .storage import SeatListing

MAX_GAMES = 30  # seat tokens in one list request
REPLAY_CODE_LEN = 22  # url-safe characters: 132 bits
MAX_MATCH = 2**31 - 1


def seat_tokens(raw: object) -> list[str]:
    if not isinstance(raw, list) or not all(
        isinstance(t, str) and 0 < len(t) <= MAX_TOKEN and is_plain(t) for t in raw
    ):
        raise ApiError("bad_tokens")
    if len(raw) > MAX_GAMES:
        raise ApiError("bad_tokens", f"Son demasiadas partidas: a lo sumo {MAX_GAMES} a la vez.")
    return [str(t) for t in raw]


def waits_for(game: SeatListing, turn: int | None) -> bool:
    """The game waits for this seat: its turn (not played by the computer for now), or the
    other player asked for a rematch and this one has not answered."""
    seat = game.seat
    if game.status == "playing":
        return turn == seat and game.takeover[seat] is None
    if game.status == "finished" and game.mode == "friend":
        return game.rematch[1 - seat] and not game.rematch[seat]
    return False


class Games:
    def __init__(self, registry: RoomRegistry) -> None:
        self.registry = registry
        self.storage = registry.deps.storage

    async def list(self, raw_tokens: object) -> dict[str, Any]:
        """One entry per token, in order: the seat's game, or None (unknown or no longer
        valid: the device may forget it)."""
        tokens = seat_tokens(raw_tokens)
        hashes = [hash_secret(t) for t in tokens]
        found = {g.token_hash: g for g in await self.storage.list_seats(sorted(set(hashes)))}
        now = time.time()
        games: list[dict[str, Any] | None] = []
        for token_hash in hashes:
            game = found.get(token_hash)
            games.append(await self._entry(game, now) if game is not None else None)
        return {"games": games}

    async def _entry(self, game: SeatListing, now: float) -> dict[str, Any] | None:
        turn, scores = game.turn, game.scores
        if scores is None:  # not written since the listing columns came: rebuild a copy
            copy = await self.registry.rebuild(game.room_id)
            if copy is None:
                return None
            scores = copy.match.scores
            turn = copy.match.position.turn if copy.status == "playing" else None
        seat, other = game.seat, 1 - game.seat
        computer = game.mode == "computer"
        last = game.last_move_at or game.created_at
        finished = game.match_no - 1 + (game.status == "finished")
        return {
            "room": game.room_id,
            "seat": seat,
            "mode": game.mode,
            "turns": game.turns,
            "status": game.status,
            "match": game.match_no,
            "names": list(game.names),
            "opponent": {
                "name": COMPUTER_NAME if computer else game.names[other],
                "kind": "computer" if computer else "person",
                "level": game.level if computer else game.takeover[other],
            },
            "scores": list(scores),
            "turn": turn,
            "my_turn": game.status == "playing" and turn == seat,
            "waits_for_me": waits_for(game, turn),
            "rematch": list(game.rematch),
            "last_move_ago": max(0, round(now - last)),
            "moved": game.last_move_at is not None,
            "finished_matches": finished,
        }

    # -- replays -------------------------------------------------------------------------

    async def _code(self, room_id: str, match_no: int) -> str:
        """The match's replay code: derived with the server's key, so asking twice (or
        two seats at once) gives the same one; the room id is never in a link."""
        digest = hmac.new(
            await self.storage.token_key(), f"replay:{room_id}:{match_no}".encode(), hashlib.sha256
        ).digest()
        return base64.urlsafe_b64encode(digest).decode()[:REPLAY_CODE_LEN]

    async def replay_link(self, token: object, match: object) -> dict[str, Any]:
        if not isinstance(token, str) or not 0 < len(token) <= MAX_TOKEN or not is_plain(token):
            raise ApiError("bad_token")
        if not isinstance(match, int) or isinstance(match, bool) or not 0 < match <= MAX_MATCH:
            raise ApiError("bad_match")
        found = await self.storage.seat_for_token(hash_secret(token))
        if found is None:
            raise ApiError("bad_token")
        stored = await self.storage.load_match(found[0], match)
        if stored is None:
            raise ApiError("bad_match")
        if not stored.finished:
            raise ApiError("not_finished")
        code = await self.storage.add_replay_link(
            await self._code(found[0], match), found[0], match
        )
        return {"code": code, "url": f"/p/{code}", "match": match}

    async def replay(self, code: object) -> dict[str, Any]:
        if not isinstance(code, str) or not 0 < len(code) <= 32 or not is_plain(code):
            raise ApiError("replay_unknown")
        link = await self.storage.find_replay_link(code)
        stored = await self.storage.load_match(*link) if link is not None else None
        if stored is None:
            raise ApiError("replay_unknown")
        try:
            # the engine is plain Python: a few hundred moves, off the event loop
            return await asyncio.to_thread(build_replay, stored)
        except NotFinished:
            raise ApiError("not_finished") from None
