"""Live rooms. Each ``Room`` is the one serialising owner of its match: every change goes
through its asyncio lock, in this order: authenticate, check seat, turn and seq, apply with
the engine, persist (commit), and only then tell each seat, with its own ``view_for(seat)``.

``RoomManager`` creates, loads (seed + move log -> ``Match.replay``) and finds rooms, and
does what the HTTP API asks (create, join, rejoin codes).
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import secrets
import time
import unicodedata
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from . import ai
from .config import Settings
from .engine import IllegalMove, Match, Move
from .engine import view_for as engine_view_for
from .fanout import Fanout, Subscriber
from .protocol import CLOSE_SEAT_MOVED, CLOSE_SERVER_ERROR, ApiError, ProtocolError, dumps
from .storage import FinishedMatch, MoveRecord, RejoinError, RoomRecord, Storage
from .views import CATEGORIES_ES, options, step_events, tally

log = logging.getLogger("server.rooms")

CODE_ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"  # no 0/O, 1/I/L
INVITE_LEN = 8
SHORT_CODE_LEN = 6
MAX_NAME = 20
COMPUTER_NAME = "Computadora"
DEFAULT_NAMES = ("Jugador 1", "Jugador 2")
MAX_REMEMBERED_IDS = 256
SEAT_MOVED = '{"type":"seat_moved"}'


def new_token() -> str:
    """A seat token: 256 bits from ``secrets``. Only its hash is stored; never logged."""
    return secrets.token_urlsafe(32)


def hash_secret(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def new_code(length: int) -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(length))


def normalize_code(text: str) -> str:
    return "".join(ch for ch in text.upper() if ch not in " -_\t")


def clean_name(raw: object, seat: int) -> str:
    if raw is None or (isinstance(raw, str) and not raw.strip()):
        return DEFAULT_NAMES[seat]
    if not isinstance(raw, str):
        raise ApiError(400, "bad_name")
    name = " ".join(raw.split())
    if len(name) > MAX_NAME or any(unicodedata.category(ch).startswith("C") for ch in name):
        raise ApiError(400, "bad_name")
    return name


def ack_text(move_id: str, seq: int) -> str:
    return dumps({"type": "ack", "id": move_id, "seq": seq})


Answered = tuple[OrderedDict[str, str], OrderedDict[str, str]]  # per seat: move id -> answer


def forget_oldest(answered: OrderedDict[str, str]) -> None:
    """Keeps a seat's last MAX_REMEMBERED_IDS answers to client move ids."""
    while len(answered) > MAX_REMEMBERED_IDS:
        answered.popitem(last=False)


def rematch_event(match_no: int) -> str:
    """The event that opens match ``match_no`` (2 and up), as JSON text."""
    return dumps({"kind": "rematch", "match": match_no})


@dataclass
class SeatState:
    kind: str  # "person" | "computer"
    level: str | None = None  # the computer's level (computer seat)
    connected: bool = False
    left_at: float | None = None
    takeover: str | None = None  # computer level playing this person's seat for now


class Room:
    def __init__(
        self, record: RoomRecord, match: Match, seq: int,
        events: list[tuple[int, str]], last_move: dict[str, Any] | None,
        answered: Answered, manager: RoomManager,
    ) -> None:
        self.id = record.id
        self.mode = record.mode
        self.seed = record.seed
        self.match_no = record.match_no
        self.match_start_seq = record.match_start_seq
        self.names: list[str | None] = list(record.names)
        self.invite = record.invite
        self.match = match
        self.seq = seq
        # (seq, event as JSON text) of the current match: text, so that thousands of rooms'
        # histories are no work for the garbage collector
        self.events = events
        self.last_move = last_move  # the last move event of the current match
        self.answered = answered  # per seat: client move id -> the answer it got (JSON text)
        self.manager = manager
        self.lock = asyncio.Lock()
        self.rematch_wanted = [False, False]
        self.computer_task: asyncio.Task[None] | None = None
        self.closed = False  # evicted or forgotten: another Room object may own it now
        now = time.time()
        self.seats = [SeatState("person", left_at=now), SeatState("person", left_at=now)]
        if record.mode == "computer":
            self.seats[1] = SeatState("computer", level=record.level, connected=True)

    @property
    def status(self) -> str:
        """``waiting`` (the friend has not joined), ``playing`` or ``finished``: derived, so
        it cannot disagree with the names and the match (the database's copy is for queries)."""
        if self.names[1] is None:
            return "waiting"
        return "finished" if self.match.finished else "playing"

    # -- what each seat sees ---------------------------------------------------------

    def view_for(self, seat: int) -> dict[str, Any]:
        """THE view of ``seat``: every message that carries a view is built here."""
        position = self.match.position
        view = engine_view_for(position, seat).to_json()
        other = self.seats[1 - seat]
        my_turn = (
            self.status == "playing" and position.turn == seat and not position.hand_over
        )
        view.update({
            "scores": list(self.match.scores),  # after the last hand (position: before)
            "names": list(self.names),
            "seq": self.seq,
            "match": self.match_no,
            "hand_number": self.match.hand_number,
            "status": self.status,
            "winner": self.match.winner,
            "last_move": self.last_move,
            "opponent": {
                "kind": other.kind, "level": other.level,
                "connected": other.connected, "takeover": other.takeover,
            },
            "rematch": list(self.rematch_wanted),
            "invite": self.invite if seat == 0 and self.status == "waiting" else None,
            "options": options(position) if my_turn else [],
            "presence": [self.presence_state(0), self.presence_state(1)],
            "tally": [tally(position.captured[0]), tally(position.captured[1])],
            "categories": CATEGORIES_ES,
        })
        return view

    def presence_state(self, seat: int) -> dict[str, Any]:
        """The seat's presence as one state (docs/protocol.md, "Presence P")."""
        state = self.seats[seat]
        level = state.level if state.kind == "computer" else state.takeover
        if level is not None:
            return {"state": "computer", "grace_left": None, "level": level}
        if state.connected:
            return {"state": "here", "grace_left": None, "level": None}
        grace_left = None
        if state.left_at is not None:
            grace_left = max(0.0, state.left_at + self.manager.settings.grace_seconds
                             - time.time())
        kind = "arriving" if self.names[seat] is None else "away"
        return {"state": kind, "grace_left": grace_left, "level": None}

    def presence(self, seat: int) -> dict[str, Any]:
        state = self.seats[seat]
        grace = None
        if not state.connected and state.left_at is not None:
            grace = state.left_at + self.manager.settings.grace_seconds
        return {
            "type": "presence", "seat": seat, "connected": state.connected,
            "grace_ends_at": grace, "takeover": state.takeover,
            "presence": self.presence_state(seat),
        }

    def _listening(self, seat: int) -> bool:
        """A person's connection is open on ``seat``: only then is a message (and its view,
        with its hints) worth building."""
        return self.seats[seat].kind == "person" and self.manager.hub.listening(self.id, seat)

    def _send(self, seat: int, message: dict[str, Any]) -> None:
        if self._listening(seat):
            self.manager.hub.publish(self.id, seat, dumps(message))

    def _send_state(self) -> None:
        for seat in (0, 1):
            if self._listening(seat):
                self._send(seat, {"type": "state", "seq": self.seq, "view": self.view_for(seat)})

    def _broadcast_events(self, seq: int, events: list[str]) -> None:
        for seat in (0, 1):
            if not self._listening(seat):
                continue
            view = dumps(self.view_for(seat))  # once, even when a move has several events
            for event in events:
                self.manager.hub.publish(
                    self.id, seat, f'{{"type":"event","seq":{seq},"event":{event},"view":{view}}}'
                )

    def events_since(self, since: int | None) -> str:
        """The events after ``since`` as a JSON array (text)."""
        # too old: not even the previous match's end (match 1 starts at 0); the view will do
        if since is None or since > self.seq or since < self.match_start_seq - 1:
            return "[]"
        items = [f'{{"seq":{n},"event":{e}}}' for n, e in self.events if n > since]
        return "[" + ",".join(items) + "]"

    # -- connections -----------------------------------------------------------------

    async def attach(self, seat: int, sub: Subscriber, since: int | None) -> None:
        async with self.lock:
            if self.closed:
                raise ProtocolError("server_error")  # the client reconnects and reloads
            old = self.manager.hub.subscribe(self.id, seat, sub)
            if old is not None:
                old.deliver(SEAT_MOVED)
                old.close(CLOSE_SEAT_MOVED)
            state = self.seats[seat]
            state.connected = True
            state.left_at = None
            state.takeover = None  # back: the seat is theirs from their next turn
            welcome = dumps({
                "type": "welcome", "room": self.id, "seat": seat, "seq": self.seq,
                "view": self.view_for(seat),
            })
            sub.deliver(f'{welcome[:-1]},"events":{self.events_since(since)}}}')
            if self.mode == "friend":
                sub.deliver(dumps(self.presence(1 - seat)))
                self._send(1 - seat, self.presence(seat))

    async def detach(self, seat: int, sub: Subscriber) -> None:
        async with self.lock:
            if self.manager.hub.unsubscribe(self.id, seat, sub):
                self._left(seat)
            # else: replaced by a newer connection or moved away: nothing changes
            if not any(self.manager.hub.listening(self.id, s) for s in (0, 1)):
                self.manager.evict_later(self)

    async def move_seat(self, seat: int) -> None:
        """The seat moved to another device (rejoin code): close the old connection."""
        async with self.lock:
            if self.manager.hub.disconnect(self.id, seat, SEAT_MOVED, CLOSE_SEAT_MOVED):
                self._left(seat)

    def _left(self, seat: int) -> None:
        """The seat's connection is gone: its grace time starts; the other seat is told."""
        state = self.seats[seat]
        state.connected = False
        state.left_at = time.time()
        self._send(1 - seat, self.presence(seat))

    # -- moves -----------------------------------------------------------------------

    async def submit(self, seat: int, move: Move, seq: int, move_id: str) -> str:
        """A person's move. Returns the answer for the sender (ack or error message, JSON
        text); the events have been sent to both seats before it returns."""
        answered = self.answered[seat]
        async with self.lock:
            if move_id in answered:
                return answered[move_id]
            try:
                if self.status == "waiting":
                    raise ProtocolError("waiting_for_friend")
                if self.status == "finished":
                    raise ProtocolError("match_over")
                if self.match.position.turn != seat:
                    raise ProtocolError("not_your_turn")
                if seq != self.seq:
                    raise ProtocolError("stale")
                try:
                    new_seq = await self._apply(seat, move, move_id)
                except IllegalMove as exc:
                    raise ProtocolError("illegal", exc.message, reason=exc.code) from None
                answer = ack_text(move_id, new_seq)
            except ProtocolError as exc:
                exc.id = move_id
                answer = exc.to_text()
            answered[move_id] = answer
            forget_oldest(answered)
        self._kick_computer()
        return answer

    async def _apply(self, seat: int, move: Move, client_id: str | None) -> int:
        """Plays, commits, then tells. Call with the lock held. Raises IllegalMove with
        nothing changed."""
        if self.closed:  # never write from a copy that no longer owns the room
            raise ProtocolError("server_error")
        before = self.match
        after, step = before.play(move)
        seq = self.seq + 1
        status = "finished" if after.finished else None
        try:
            await self.manager.storage.append_move(
                self.id, MoveRecord(seq, self.match_no, seat, move.to_text(), client_id), status
            )
        except Exception:
            # Did it commit or not? Only the database knows: drop this copy of the room and
            # its sockets; clients reconnect with `since` and the room is rebuilt from the log.
            log.exception("could not store move %s of room %s", seq, self.id)
            self.manager.forget(self)
            raise
        # committed: now it happened
        events = step_events(step, seat, before, after)
        texts = [dumps(e) for e in events]
        self.match = after
        self.seq = seq
        self.last_move = events[0]
        self.events.extend((seq, text) for text in texts)
        self._broadcast_events(seq, texts)
        return seq

    # -- the computer ----------------------------------------------------------------

    def _computer_level(self) -> str | None:
        """The level of the computer that must move now, if any."""
        if self.status != "playing" or self.match.position.hand_over:
            return None
        state = self.seats[self.match.position.turn]
        return state.level if state.kind == "computer" else state.takeover

    def _kick_computer(self) -> None:
        if self.closed or self._computer_level() is None:
            return
        if self.computer_task is not None and not self.computer_task.done():
            return
        self.computer_task = asyncio.create_task(self._computer_turn(self.seq))

    async def _computer_turn(self, seq: int) -> None:
        try:
            delay = self.manager.settings.computer_delay
            await asyncio.sleep(delay)
            async with self.lock:
                level = self._computer_level()
                if level is None or self.seq != seq:
                    return
                seat = self.match.position.turn
                move = await asyncio.to_thread(
                    ai.choose_for_position, level, self.match.position, f"{self.seed}:{seq}"
                )
                await self._apply(seat, move, None)
        except Exception:  # never leave the room stuck silently
            log.exception("computer move failed in room %s", self.id)
            return
        finally:
            self.computer_task = None
        self._kick_computer()

    # -- takeover and rematch ----------------------------------------------------------

    async def takeover(self, seat: int, level: str) -> None:
        async with self.lock:  # ``level`` is one of ai.LEVELS (parse_client checked it)
            other = self.seats[1 - seat]
            if self.mode != "friend" or self.status == "waiting" or other.connected:
                raise ProtocolError("not_absent")
            grace_end = (other.left_at or 0.0) + self.manager.settings.grace_seconds
            if time.time() < grace_end:
                raise ProtocolError("too_early")
            other.takeover = level
            self._send(seat, self.presence(1 - seat))
            self._send_state()
        self._kick_computer()

    async def rematch(self, seat: int) -> None:
        async with self.lock:
            if self.status != "finished":
                raise ProtocolError("not_over")
            self.rematch_wanted[seat] = True
            other = self.seats[1 - seat]
            if other.kind == "person" and other.takeover is None and not all(
                self.rematch_wanted
            ):
                self._send_state()
                return
            seed = secrets.token_hex(16)
            start = self.seq + 1
            finished = FinishedMatch(
                self.match_no, self.seed, self.match.winner, self.match.scores,
                self.match_start_seq + 1, self.seq,
            )
            await self.manager.storage.start_rematch(
                self.id, finished, seed, self.match_no + 1, start
            )
            self.seed = seed
            self.match_no += 1
            self.match_start_seq = start
            self.seq = start
            self.match = Match.new(seed)
            self.rematch_wanted = [False, False]
            event = rematch_event(self.match_no)
            self.events = [(start, event)]
            self.last_move = None
            self._broadcast_events(start, [event])
        self._kick_computer()

    def friend_joined(self, name: str) -> None:
        """Seat 1 was stored as taken. Call with the lock held."""
        self.names[1] = name
        self.invite = None
        self._send_state()
        self._send(0, self.presence(1))

    def summary(self) -> dict[str, Any]:
        return {
            "room": self.id, "mode": self.mode, "status": self.status,
            "seats": [
                {
                    "name": self.names[i],
                    "kind": self.seats[i].kind,
                    "level": self.seats[i].level or self.seats[i].takeover,
                    "connected": self.seats[i].connected,
                }
                for i in (0, 1)
            ],
            "scores": list(self.match.scores), "hand_number": self.match.hand_number,
            "winner": self.match.winner, "match": self.match_no,
        }


class RoomManager:
    """Finds, creates and loads rooms; one ``Room`` object per live room."""

    def __init__(self, storage: Storage, hub: Fanout, settings: Settings) -> None:
        self.storage = storage
        self.hub = hub
        self.settings = settings
        self.rooms: dict[str, Room] = {}
        self._loading: dict[str, asyncio.Lock] = {}

    def forget(self, room: Room) -> None:
        """Drops a room whose memory may not match the database, closing its sockets."""
        self._drop(room)
        if room.computer_task is not None:
            room.computer_task.cancel()
        for seat in (0, 1):
            self.hub.disconnect(room.id, seat, ProtocolError("server_error").to_text(),
                                CLOSE_SERVER_ERROR)

    def evict_later(self, room: Room) -> None:
        """Forgets a room nobody has listened to for ``room_idle`` seconds (it is all in
        the database; the next visitor loads it again)."""
        delay = self.settings.room_idle
        loop = asyncio.get_running_loop()

        def evict() -> None:
            if self.rooms.get(room.id) is not room:
                return
            if any(self.hub.listening(room.id, s) for s in (0, 1)):
                return
            busy = room.computer_task is not None and not room.computer_task.done()
            if busy or room.lock.locked():
                self.evict_later(room)
                return
            self._drop(room)

        loop.call_later(delay, evict)

    def _drop(self, room: Room) -> None:
        """This Room object no longer owns its room (the next visitor loads it afresh)."""
        if self.rooms.get(room.id) is room:
            del self.rooms[room.id]
        room.closed = True

    async def get(self, room_id: str) -> Room | None:
        room = self.rooms.get(room_id)
        if room is not None:
            return room
        lock = self._loading.setdefault(room_id, asyncio.Lock())
        async with lock:
            room = self.rooms.get(room_id)
            if room is None:
                room = await self._load(room_id)
                if room is not None:
                    self.rooms[room_id] = room
                    self.evict_later(room)  # unless somebody connects meanwhile
        self._loading.pop(room_id, None)
        if room is not None:
            room._kick_computer()
        return room

    async def _load(self, room_id: str) -> Room | None:
        """Rebuilds a room from its seed and its move log alone."""
        record = await self.storage.load_room(room_id)
        if record is None:
            return None
        records = await self.storage.load_moves(room_id, 0)
        answered: Answered = (OrderedDict(), OrderedDict())
        events: list[tuple[int, str]] = []
        last_move: dict[str, Any] | None = None
        if record.match_no > 1:
            events.append((record.match_start_seq, rematch_event(record.match_no)))
        match = Match.new(record.seed)
        seq = record.match_start_seq
        for rec in records:
            if rec.client_id is not None:
                answered[rec.seat][rec.client_id] = ack_text(rec.client_id, rec.seq)
            if rec.seq <= record.match_start_seq:
                continue
            before = match
            match, step = match.play(Move.parse(rec.move))
            step_list = step_events(step, rec.seat, before, match)
            last_move = step_list[0]
            events.extend((rec.seq, dumps(e)) for e in step_list)
            seq = rec.seq
        for seat_answers in answered:
            forget_oldest(seat_answers)
        return Room(record, match, seq, events, last_move, answered, self)

    # -- HTTP API ----------------------------------------------------------------------

    async def create(self, mode: object, level: object, name: object) -> dict[str, Any]:
        if mode not in ("computer", "friend"):
            raise ApiError(400, "bad_mode")
        if mode == "computer" and level not in ai.LEVELS:
            raise ApiError(400, "bad_level")
        name0 = clean_name(name, 0)
        token = new_token()
        room_id = secrets.token_urlsafe(9)
        invite = new_code(INVITE_LEN) if mode == "friend" else None
        record = RoomRecord(
            id=room_id, mode=str(mode), level=str(level) if mode == "computer" else None,
            seed=secrets.token_hex(16), match_no=1, match_start_seq=0,
            status="playing" if mode == "computer" else "waiting",
            names=(name0, COMPUTER_NAME if mode == "computer" else None), invite=invite,
        )
        await self.storage.create_room(record, hash_secret(token))
        answer: dict[str, Any] = {"room": room_id, "seat": 0, "token": token}
        if invite is not None:
            answer.update(invite=invite, invite_url=f"/j/{invite}")
        return answer

    async def join(self, invite: object, name: object) -> dict[str, Any]:
        if not isinstance(invite, str) or not 0 < len(invite) <= 32:
            raise ApiError(404, "invite_unknown")
        room_id = await self.storage.room_for_invite(normalize_code(invite))
        if room_id is None:
            raise ApiError(404, "invite_unknown")
        name1 = clean_name(name, 1)
        token = new_token()
        room = await self.get(room_id)
        if room is None:
            raise ApiError(404, "invite_unknown")
        async with room.lock:  # the room's owner serialises joins too
            if not await self.storage.join(room_id, name1, hash_secret(token)):
                raise ApiError(409, "room_full")
            room.friend_joined(name1)  # before the new token's hello can attach
        return {"room": room_id, "seat": 1, "token": token}

    async def authenticate(self, token: str) -> tuple[Room, int]:
        found = await self.storage.seat_for_token(hash_secret(token))
        if found is None:
            raise ProtocolError("bad_token")
        room = await self.get(found[0])
        if room is None:
            raise ProtocolError("bad_token")
        return room, found[1]

    async def summary(self, room_id: str) -> dict[str, Any]:
        room = await self.get(room_id) if len(room_id) <= 32 else None
        if room is None:
            raise ApiError(404, "room_unknown")
        return room.summary()

    async def make_rejoin_code(self, token: object) -> dict[str, Any]:
        if not isinstance(token, str) or not 0 < len(token) <= 128:
            raise ApiError(401, "bad_token")
        found = await self.storage.seat_for_token(hash_secret(token))
        if found is None:
            raise ApiError(401, "bad_token")
        ttl = self.settings.rejoin_ttl
        for _ in range(5):
            short = new_code(SHORT_CODE_LEN)
            long = secrets.token_urlsafe(24)
            if await self.storage.add_rejoin_code(
                found[0], found[1], hash_secret(short), hash_secret(long), time.time() + ttl
            ):
                return {"code": short, "url": f"/r/{long}", "expires_in": ttl}
        raise ApiError(500, "server_error")  # pragma: no cover - five collisions in a row

    async def rejoin(self, code: object) -> dict[str, Any]:
        if not isinstance(code, str) or not 0 < len(code) <= 64:
            raise ApiError(404, "code_unknown")
        text = code.strip()
        candidate = normalize_code(text) if len(text) <= 12 else text
        token = new_token()
        try:
            room_id, seat = await self.storage.use_rejoin_code(
                hash_secret(candidate), time.time(), hash_secret(token)
            )
        except RejoinError as exc:
            status = 404 if exc.code == "code_unknown" else 410
            raise ApiError(status, exc.code) from None
        room = await self.get(room_id)
        if room is not None:
            await room.move_seat(seat)
        return {"room": room_id, "seat": seat, "token": token}
