"""Live rooms. Each ``Room`` is an actor: one task and one inbox of typed commands, handled
one at a time, so nothing else needs a lock. A command is decided from the room's state,
written to storage conditional on the version it was decided from, and only then told to
the seats (each its own view, built by ``view_for``) and to the watchers (all the same
view, built by ``view_for_watcher``). Timers are commands the room posts
to itself. A room asked to stop finishes its current command and stops.

Watchers are connection ids only (published to on seat ``WATCHER_SEAT`` of the hub), held in
the owner's memory and never stored: after a restart they watch again.

``RoomRegistry`` creates, loads (state + seed + move log), finds and stops rooms, and
sends each command to the room's owner: here, or the process that holds the room
(server/cluster.py).
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from collections import OrderedDict, deque
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass, replace
from typing import Any, assert_never

from . import ai
from .cluster import Lease, NotOwner, PeerGone, Peers, is_outage, new_node_id, node_of
from .config import Settings
from .engine import IllegalMove, Match, Move, Position, public_view
from .engine import view_for as engine_view_for
from .fanout import Fanout
from .protocol import (
    CLOSE_RECONNECT,
    CLOSE_SEAT_MOVED,
    CLOSE_SERVER_ERROR,
    REACTIONS_LIMITED_ES,
    Ack,
    Events,
    Presence,
    ProtocolError,
    Raw,
    Reaction,
    SeatMoved,
    ServerMessage,
    State,
    Watchers,
    Watching,
    Welcome,
    dumps,
    encode,
    raw,
    watchers_full,
)
from .state import RoomState, SeatState
from .storage import (
    FinishedMatch,
    Listing,
    MoveRecord,
    RejoinCode,
    RejoinError,
    RoomWrite,
    StaleRoom,
    Storage,
)
from .views import CATEGORIES_ES, options, step_events, tally

log = logging.getLogger("server.rooms")

MAX_REMEMBERED_IDS = 256  # per seat: the answers to its last move ids
HELLO_WINDOW = 10.0  # seconds
HELLO_LIMIT = 12  # hellos per seat in a window: a reconnect loop cannot flood the other seat
WATCHER_SEAT = 2  # the hub's "seat" of watcher connections: (room, 2, connection id)
WATCHERS_TELL_DELAY = 0.5  # seconds: watchers coming and going within it are told once
REACTION_WINDOW = 10.0  # seconds
REACTION_LIMIT = 5  # reactions per seat in a window

Answered = tuple[OrderedDict[str, str], OrderedDict[str, str]]  # per seat: move id -> answer


def ack_text(move_id: str, seq: int) -> str:
    return encode(Ack(move_id, seq))


def forget_oldest(answered: OrderedDict[str, str]) -> None:
    while len(answered) > MAX_REMEMBERED_IDS:
        answered.popitem(last=False)


def rematch_event(match_no: int) -> str:
    """The event that opens match ``match_no`` (2 and up), as JSON text."""
    return dumps({"kind": "rematch", "match": match_no})


def room_status(state: RoomState, match: Match) -> str:
    """``waiting`` (the friend has not joined), ``playing`` or ``finished``."""
    if state.names[1] is None:
        return "waiting"
    return "finished" if match.finished else "playing"


# -- commands -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Start:
    """The first command of a loaded room: a seat stored as here has no socket now."""


@dataclass(frozen=True, slots=True)
class Attach:
    seat: int
    conn: str
    since: int | None


@dataclass(frozen=True, slots=True)
class Detach:
    seat: int
    conn: str


@dataclass(frozen=True, slots=True)
class Submit:
    seat: int
    move: Move
    seq: int
    id: str


@dataclass(frozen=True, slots=True)
class TakeoverCmd:
    seat: int
    level: str
    confirmed: bool = False  # por turnos: the player asked for it in so many words


@dataclass(frozen=True, slots=True)
class RematchCmd:
    seat: int


@dataclass(frozen=True, slots=True)
class Join:
    name: str
    token_hash: str
    key_hash: str | None


@dataclass(frozen=True, slots=True)
class MoveSeat:
    """A rejoin code was used: the seat's token becomes ``token_hash``."""

    code: RejoinCode
    token_hash: str
    key_hash: str | None


@dataclass(frozen=True, slots=True)
class ComputerDue:
    seq: int


@dataclass(frozen=True, slots=True)
class ComputerMove:
    seq: int
    move: Move


@dataclass(frozen=True, slots=True)
class StallCheck:
    """The turn that began at ``seq`` has lasted ``stall_seconds``."""

    seq: int


@dataclass(frozen=True, slots=True)
class IdleCheck:
    generation: int


@dataclass(frozen=True, slots=True)
class Summary:
    pass


@dataclass(frozen=True, slots=True)
class Snapshot:
    """The room's state as held (tests compare it with what storage rebuilds)."""


@dataclass(frozen=True, slots=True)
class Watch:
    """A watcher's connection ``conn`` starts watching (``since``: the last seq it saw)."""

    conn: str
    since: int | None


@dataclass(frozen=True, slots=True)
class Unwatch:
    conn: str


@dataclass(frozen=True, slots=True)
class TellWatchers:
    """Time to tell the seats and watchers how many watch (a timer)."""


@dataclass(frozen=True, slots=True)
class ReactCmd:
    """A seat's quick reaction (one of ``protocol.REACTIONS``)."""

    seat: int
    reaction: str


Command = (
    Start
    | Attach
    | Detach
    | Submit
    | TakeoverCmd
    | RematchCmd
    | Join
    | MoveSeat
    | ComputerDue
    | ComputerMove
    | StallCheck
    | IdleCheck
    | Summary
    | Snapshot
    | Watch
    | Unwatch
    | TellWatchers
    | ReactCmd
)
# the commands that come from outside the room, and may come from another process
ROUTED_COMMANDS: tuple[type[Any], ...] = (
    Attach,
    Detach,
    Submit,
    TakeoverCmd,
    RematchCmd,
    Join,
    MoveSeat,
    Summary,
    Watch,
    Unwatch,
    ReactCmd,
)


class RoomStopped(Exception):
    """The room stopped before handling the command (evicted, or its copy went stale):
    ask the registry again."""


class Room:
    def __init__(
        self,
        state: RoomState,
        match: Match,
        events: list[tuple[int, str]],
        last_move: dict[str, Any] | None,
        answered: Answered,
        deps: RoomDeps,
        epoch: int = -1,
    ) -> None:
        self.state = state
        self.epoch = epoch  # the epoch this process took the room at: its writes carry it
        self.match = match
        # (seq, event as JSON text) of the current match: text, so that thousands of rooms'
        # histories are no work for the garbage collector
        self.events = events
        self.last_move = last_move
        self.answered = answered
        self.deps = deps
        self.conns: list[str | None] = [None, None]  # each seat's open connection
        self.told: list[dict[str, Any] | None] = [None, None]  # presence last sent, per seat
        self.hellos: tuple[deque[float], deque[float]] = (deque(), deque())
        self.watchers: dict[str, None] = {}  # watchers' connection ids, in arrival order
        self.watchers_told = 0  # the count last told
        self.tell_due = False  # a TellWatchers is on its way
        self.reacted: tuple[deque[float], deque[float]] = (deque(), deque())  # per seat
        self.inbox: asyncio.Queue[tuple[Command, asyncio.Future[Any] | None]] = asyncio.Queue()
        self.timers: set[asyncio.TimerHandle] = set()
        self.thinking: asyncio.Task[None] | None = None
        self.due: int | None = None  # the seq the computer's next move is scheduled for
        self.stall_due: int | None = None  # the seq whose turn a stall check watches
        self.idle_generation = 0
        self.stopped = False
        self.task: asyncio.Task[None] | None = None

    @property
    def id(self) -> str:
        return self.state.id

    @property
    def status(self) -> str:
        return room_status(self.state, self.match)

    # -- the actor -----------------------------------------------------------------------

    def start(self) -> None:
        self.task = asyncio.get_running_loop().create_task(self._run(), name=f"room {self.id}")
        self.post(Start())

    def post(self, command: Command) -> None:
        if not self.stopped:
            self.inbox.put_nowait((command, None))

    async def ask(self, command: Command) -> Any:
        """Posts ``command`` and waits for its answer (raises what handling it raised)."""
        if self.stopped:
            raise RoomStopped(self.id)
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self.inbox.put_nowait((command, future))
        return await future

    def stop(self) -> None:
        """Stops after the command in hand; commands still queued get RoomStopped."""
        if self.stopped:
            return
        self.stopped = True
        for handle in self.timers:
            handle.cancel()
        self.timers.clear()
        if self.thinking is not None:
            self.thinking.cancel()
        self.inbox.put_nowait((Snapshot(), None))  # wakes the loop so that it sees ``stopped``

    async def _run(self) -> None:
        while True:
            command, future = await self.inbox.get()
            if self.stopped:
                if future is not None and not future.done():
                    future.set_exception(RoomStopped(self.id))
                while not self.inbox.empty():
                    _, queued = self.inbox.get_nowait()
                    if queued is not None and not queued.done():
                        queued.set_exception(RoomStopped(self.id))
                return
            try:
                result = await self._handle(command)
            except ProtocolError as exc:
                if future is not None and not future.done():
                    future.set_exception(exc)
                continue
            except RejoinError as exc:
                if future is not None and not future.done():
                    future.set_exception(exc)
                continue
            except Exception as exc:
                # a write failed (did it commit? only the database knows), another process
                # took the room, or a bug: this copy may no longer match storage; stop it
                # and close its sockets, and the next visitor loads the room afresh from
                # what was stored (on this process or another)
                passing = isinstance(exc, StaleRoom) or is_outage(exc)
                if not passing:
                    log.exception("room %s stopped on %s", self.id, type(command).__name__)
                else:
                    log.info("room %s stopped: %r", self.id, exc)
                await self._fail(ProtocolError("reconnecting" if passing else "server_error"))
                if future is not None and not future.done():
                    # stale: nothing was written, so the caller asks a fresh copy (here or
                    # on the room's new owner); else whether it was is unknown
                    future.set_exception(
                        RoomStopped(self.id)
                        if isinstance(exc, StaleRoom)
                        else ProtocolError("reconnecting" if passing else "server_error")
                    )
                continue
            if future is not None and not future.done():
                future.set_result(result)
            self._schedule_computer()
            self._schedule_stall()

    async def _handle(self, command: Command) -> Any:
        match command:
            case Start():
                return await self._start()
            case Attach(seat, conn, since):
                return await self._attach(seat, conn, since)
            case Detach(seat, conn):
                return await self._detach(seat, conn)
            case Submit(seat, move, seq, move_id):
                return await self._submit(seat, move, seq, move_id)
            case TakeoverCmd(seat, level, confirmed):
                return await self._takeover(seat, level, confirmed)
            case RematchCmd(seat):
                return await self._rematch(seat)
            case Join(name, token_hash, key_hash):
                return await self._join(name, token_hash, key_hash)
            case MoveSeat(code, token_hash, key_hash):
                return await self._move_seat(code, token_hash, key_hash)
            case ComputerDue(seq):
                return self._think(seq)
            case ComputerMove(seq, move):
                return await self._computer_move(seq, move)
            case StallCheck(seq):
                return await self._stall_check(seq)
            case IdleCheck(generation):
                return self._idle_check(generation)
            case Summary():
                return self.summary()
            case Snapshot():
                return self.state
            case Watch(conn, since):
                return await self._watch(conn, since)
            case Unwatch(conn):
                return await self._unwatch(conn)
            case TellWatchers():
                return await self._tell_watcher_count()
            case ReactCmd(seat, reaction):
                return await self._react(seat, reaction)
            case _:
                assert_never(command)

    async def _fail(self, error: ProtocolError) -> None:
        self.deps.registry.forget(self, release=False)
        await self.close_all(error)

    async def close_all(self, error: ProtocolError) -> None:
        """Closes every socket of the room (they reconnect and find the room afresh)."""
        code = CLOSE_RECONNECT if error.code == "reconnecting" else CLOSE_SERVER_ERROR
        for seat in (0, 1):
            await self._close(seat, error.to_message(), code)
        text = error.to_text()
        for conn in list(self.watchers):  # they watch again, and find the room afresh
            await self.deps.hub.publish(self.id, WATCHER_SEAT, conn, text, close=code)
        self.watchers.clear()

    def _after(self, delay: float, command: Command) -> None:
        """Posts ``command`` to this room in ``delay`` seconds (a timer is a command)."""
        loop = asyncio.get_running_loop()

        def fire() -> None:
            self.timers.discard(handle)
            self.post(command)

        handle = loop.call_later(delay, fire)
        self.timers.add(handle)

    # -- writing -------------------------------------------------------------------------

    async def _write(
        self,
        new: RoomState,
        *,
        match: Match | None = None,
        seats: tuple[int, ...] = (),
        **extra: Any,
    ) -> None:
        """Stores ``new`` (the state after this command; ``match`` the match after it),
        conditional on the version this command was decided from; then it is the room's
        state. Seat rows that changed are written, and ``seats`` in any case."""
        new = replace(new, version=self.state.version + 1)
        changed = tuple(
            s
            for s in (0, 1)
            if not new.computer_seat(s) and (s in seats or new.seats[s] != self.state.seats[s])
        )
        after = match or self.match
        status = room_status(new, after)
        turn = after.position.turn if status == "playing" else None
        listing = Listing(turn, after.scores)
        await self.deps.storage.write(
            RoomWrite(new, status, changed, **extra, epoch=self.epoch, listing=listing)
        )
        self.state = new

    # -- what each seat is told ----------------------------------------------------------

    def presence(self, seat: int) -> dict[str, Any]:
        """The seat's presence as one state (docs/protocol.md, "Presence P")."""
        state = self.state
        if state.computer_seat(seat):
            return {"state": "computer", "grace_left": None, "level": state.level}
        seat_state = state.seats[seat]
        if seat_state.takeover is not None:
            return {"state": "computer", "grace_left": None, "level": seat_state.takeover}
        if state.names[seat] is None:
            return {"state": "arriving", "grace_left": None, "level": None}
        if seat_state.presence == "here":
            return {"state": "here", "grace_left": None, "level": None}
        return {
            "state": seat_state.presence,
            "grace_left": round(self._grace_left(seat), 1),
            "level": None,
        }

    def _grace_left(self, seat: int, *, confirmed: bool = False) -> float:
        """Seconds before the other seat may hand ``seat`` to the computer: the grace
        period, or in a por-turnos room the long one (``turns_grace_seconds``) unless the
        other player asked for the computer in so many words (``confirmed``)."""
        settings = self.deps.settings
        grace = (
            settings.turns_grace_seconds
            if self.state.turns and not confirmed
            else settings.grace_seconds
        )
        since = self.state.seats[seat].since or 0.0
        return max(0.0, since + grace - time.time())

    def common_view(self) -> dict[str, Any]:
        """The part of the view both seats share (built once per change)."""
        position = self.match.position
        state = self.state
        return {
            "scores": list(self.match.scores),  # after the last hand (position: before)
            "names": list(state.names),
            "seq": state.seq,
            "match": state.match_no,
            "hand_number": self.match.hand_number,
            "status": self.status,
            "winner": self.match.winner,
            "last_move": self.last_move,
            "presence": [self.presence(0), self.presence(1)],
            "rematch": [self._wants_rematch(0), self._wants_rematch(1)],
            "tally": [tally(position.captured[0]), tally(position.captured[1])],
            "categories": CATEGORIES_ES,
            "turns": state.turns,
            "watchers": len(self.watchers),
        }

    def view_for(self, seat: int, common: dict[str, Any] | None = None) -> dict[str, Any]:
        """THE view of ``seat``: every message that carries a view is built here
        (``common``: ``common_view()`` when already built for this change)."""
        position = self.match.position
        view = engine_view_for(position, seat).to_json()
        view.update(common or self.common_view())
        status = view["status"]
        my_turn = status == "playing" and position.turn == seat and not position.hand_over
        other = 1 - seat
        computer = self.state.computer_seat(other)
        view["opponent"] = {
            "kind": "computer" if computer else "person",
            "level": self.state.level if computer else None,
        }
        view["invite"] = self.state.invite if seat == 0 and status == "waiting" else None
        view["watch_url"] = f"/v/{self.state.watch}" if self.state.watch else None
        view["options"] = options(position) if my_turn else []
        return view

    def view_for_watcher(self, common: dict[str, Any] | None = None) -> dict[str, Any]:
        """THE view of a watcher: every message to a watcher that carries a view is built
        here. What is face up (the engine's public view: no hand, no deck) and what both
        seats share; who plays each seat. All watchers get the same view."""
        view = public_view(self.match.position).to_json()
        view.update(common or self.common_view())
        view["players"] = [self._player(0), self._player(1)]
        return view

    def _player(self, seat: int) -> dict[str, Any]:
        computer = self.state.computer_seat(seat)
        return {
            "kind": "computer" if computer else "person",
            "level": self.state.level if computer else None,
        }

    async def _send(self, seat: int, message: ServerMessage) -> None:
        conn = self.conns[seat]
        if conn is not None:
            await self.deps.hub.publish(self.id, seat, conn, encode(message))

    async def _close(self, seat: int, message: ServerMessage, code: int) -> None:
        conn = self.conns[seat]
        if conn is not None:
            await self.deps.hub.publish(self.id, seat, conn, encode(message), close=code)
            self.conns[seat] = None

    async def _send_state(self) -> None:
        common = self.common_view()
        for seat in (0, 1):
            if self.conns[seat] is not None:
                await self._send(seat, State(self.state.seq, self.view_for(seat, common)))
        if self.watchers:
            await self._tell_watchers(encode(State(self.state.seq, self.view_for_watcher(common))))

    async def _tell_watchers(self, text: str) -> None:
        """One text, encoded once, to every watcher."""
        for conn in list(self.watchers):
            await self.deps.hub.publish(self.id, WATCHER_SEAT, conn, text)

    async def _tell_presence(self) -> None:
        """Each seat's presence to the other seat, only when it changed (a reconnect loop
        does not flood the opponent; the grace seconds left travel with the change)."""
        for seat in (0, 1):
            now = self.presence(seat)
            told = self.told[seat]
            if told is not None and told["state"] == now["state"] and told["level"] == now["level"]:
                continue
            self.told[seat] = now
            await self._send(1 - seat, Presence(seat, now))
            if self.watchers:
                await self._tell_watchers(encode(Presence(seat, now)))

    def _events_since(self, since: int | None) -> list[tuple[int, Raw]]:
        """The events after ``since`` of the current match (or from the previous match's
        end); none when ``since`` is unknown, too old or in the future."""
        state = self.state
        if since is None or since > state.seq or since < state.match_start_seq - 1:
            return []
        return [(n, Raw(e)) for n, e in self.events if n > since]

    # -- the seat's connections ------------------------------------------------------------

    async def _start(self) -> None:
        new = self.state
        now = time.time()
        for seat in (0, 1):
            if new.seats[seat].presence == "here":  # its socket died with a process
                new = new.with_seat(seat, replace(new.seats[seat], presence="away", since=now))
        if new != self.state:
            await self._write(new)
        self.told = [self.presence(0), self.presence(1)]
        self._idle_later()

    async def _attach(self, seat: int, conn: str, since: int | None) -> bool:
        hellos = self.hellos[seat]
        now = time.time()
        while hellos and hellos[0] < now - HELLO_WINDOW:
            hellos.popleft()
        if len(hellos) >= HELLO_LIMIT:
            raise ProtocolError("rate_limited")
        hellos.append(now)
        old = self.conns[seat]
        if old is not None and old != conn:
            await self._close(seat, SeatMoved(), CLOSE_SEAT_MOVED)
        seat_state = self.state.seats[seat]
        took_over = seat_state.takeover is not None
        back = SeatState("here", now, None, seat_state.rematch)
        if not self.state.computer_seat(seat) and (seat_state.presence != "here" or took_over):
            await self._write(self.state.with_seat(seat, back))
        self.conns[seat] = conn
        self.idle_generation += 1
        await self._send(
            seat,
            Welcome(self.id, seat, self.state.seq, self.view_for(seat), self._events_since(since)),
        )
        await self._tell_presence()
        if took_over:  # the takeover ended: the other seat's view changes (a state)
            other = 1 - seat
            if self.conns[other] is not None:
                await self._send(other, State(self.state.seq, self.view_for(other)))
        return True

    async def _detach(self, seat: int, conn: str) -> None:
        if self.conns[seat] != conn:
            return  # replaced by a newer connection, or moved away: nothing changes
        self.conns[seat] = None
        seat_state = self.state.seats[seat]
        await self._write(
            self.state.with_seat(seat, replace(seat_state, presence="away", since=time.time()))
        )
        await self._tell_presence()
        self._idle_later()

    def _listened(self) -> bool:
        """Some seat or watcher has a socket open."""
        return bool(self.watchers) or any(c is not None for c in self.conns)

    def _idle_later(self) -> None:
        """Leaves memory ``room_idle`` seconds after the last socket (a seat's or a
        watcher's) closed (the room is all in storage; the next visitor loads it again)."""
        if self._listened():
            return
        self.idle_generation += 1
        self._after(self.deps.settings.room_idle, IdleCheck(self.idle_generation))

    def _idle_check(self, generation: int) -> None:
        if generation != self.idle_generation or self._listened():
            return
        if self.thinking is not None and not self.thinking.done():
            self._idle_later()
            return
        self.deps.registry.forget(self)

    # -- moves ---------------------------------------------------------------------------

    async def _submit(self, seat: int, move: Move, seq: int, move_id: str) -> str | None:
        """A person's move: the answer for the sender (a known id's answer, or an error) as
        text; None when the move was played (its events frame, sent already, is the ack)."""
        answered = self.answered[seat]
        if move_id in answered:
            return answered[move_id]
        await self._back(seat)
        try:
            if self.status == "waiting":
                raise ProtocolError("waiting_for_friend")
            if self.status == "finished":
                raise ProtocolError("match_over")
            if self.match.position.turn != seat:
                raise ProtocolError("not_your_turn")
            if seq != self.state.seq:
                raise ProtocolError("stale")
            try:
                new_seq = await self._apply(seat, move, move_id)
            except IllegalMove as exc:
                raise ProtocolError("illegal", exc.message, reason=exc.code) from None
        except ProtocolError as exc:
            exc.id = move_id
            answer = exc.to_text()
            self._remember(seat, move_id, answer)
            return answer
        self._remember(seat, move_id, ack_text(move_id, new_seq))
        return None

    def _remember(self, seat: int, move_id: str, answer: str) -> None:
        self.answered[seat][move_id] = answer
        forget_oldest(self.answered[seat])

    async def _apply(self, seat: int, move: Move, move_id: str | None) -> int:
        """Plays, commits, then tells. Raises IllegalMove with nothing changed."""
        before = self.match
        after, step = before.play(move)
        seq = self.state.seq + 1
        await self._write(
            replace(self.state, seq=seq),
            match=after,
            move=MoveRecord(seq, self.state.match_no, seat, move.to_text(), move_id),
        )
        # committed: now it happened
        events = step_events(step, seat, before, after)
        texts = [dumps(e) for e in events]
        self.match = after
        self.last_move = events[0]
        self.events.extend((seq, text) for text in texts)
        await self._broadcast(seq, texts, seat, move_id)
        return seq

    async def _broadcast(
        self, seq: int, texts: list[str], mover: int | None, move_id: str | None
    ) -> None:
        """One frame per seat per change: the events and the seat's view after them (the
        mover's copy carries its move id: its ack)."""
        events = [Raw(t) for t in texts]
        common = self.common_view() if self._listened() else None
        for seat in (0, 1):
            if self.conns[seat] is None:
                continue
            view = raw(self.view_for(seat, common))
            await self._send(seat, Events(seq, events, view, move_id if seat == mover else None))
        if self.watchers:  # the same frame for all of them: encoded once
            await self._tell_watchers(
                encode(Events(seq, events, raw(self.view_for_watcher(common))))
            )

    # -- watchers and reactions ------------------------------------------------------------

    async def _watch(self, conn: str, since: int | None) -> bool:
        if conn not in self.watchers:
            cap = self.deps.settings.max_watchers
            if len(self.watchers) >= cap:
                raise watchers_full(cap)
            self.watchers[conn] = None
        self.idle_generation += 1
        await self.deps.hub.publish(
            self.id,
            WATCHER_SEAT,
            conn,
            encode(
                Watching(
                    self.id, self.state.seq, self.view_for_watcher(), self._events_since(since)
                )
            ),
        )
        self._watchers_changed()
        return True

    async def _unwatch(self, conn: str) -> None:
        if conn in self.watchers:
            del self.watchers[conn]
            self._watchers_changed()
            self._idle_later()

    def _watchers_changed(self) -> None:
        """The count is told ``WATCHERS_TELL_DELAY`` later, once for all the changes
        meanwhile: a crowd arriving (or a link opened in a loop) is a few frames to the
        players, not one per socket."""
        if not self.tell_due:
            self.tell_due = True
            self._after(WATCHERS_TELL_DELAY, TellWatchers())

    async def _tell_watcher_count(self) -> None:
        self.tell_due = False
        if len(self.watchers) == self.watchers_told:
            return
        self.watchers_told = len(self.watchers)
        message = Watchers(len(self.watchers))
        for seat in (0, 1):
            await self._send(seat, message)
        await self._tell_watchers(encode(message))

    async def _react(self, seat: int, reaction: str) -> None:
        """Shows a seat's reaction to the other seat and the watchers (not to the sender:
        its own page shows it already; never stored). At most ``REACTION_LIMIT`` per seat
        in ``REACTION_WINDOW`` seconds."""
        reacted = self.reacted[seat]
        now = time.monotonic()
        while reacted and reacted[0] <= now - REACTION_WINDOW:
            reacted.popleft()
        if len(reacted) >= REACTION_LIMIT:
            raise ProtocolError("rate_limited", REACTIONS_LIMITED_ES)
        reacted.append(now)
        message = Reaction(seat, reaction)
        await self._send(1 - seat, message)
        await self._tell_watchers(encode(message))

    # -- the computer --------------------------------------------------------------------

    def _computer_level(self) -> str | None:
        """The level of the computer that must move now, if any."""
        if self.status != "playing" or self.match.position.hand_over:
            return None
        seat = self.match.position.turn
        if self.state.computer_seat(seat):
            return self.state.level
        return self.state.seats[seat].takeover

    def _schedule_computer(self) -> None:
        if self.stopped or self._computer_level() is None or self.due == self.state.seq:
            return
        self.due = self.state.seq
        self._after(self.deps.settings.computer_delay, ComputerDue(self.state.seq))

    def _schedule_stall(self) -> None:
        """Watches the turn of a friend who is here: if it lasts ``stall_seconds``, the other
        player is offered the seat as if they had left."""
        if (
            self.stopped
            or self.state.mode != "friend"
            or self.state.turns
            or self.status != "playing"
            or self.stall_due == self.state.seq
            or self._computer_level() is not None
        ):
            return
        self.stall_due = self.state.seq
        self._after(self.deps.settings.stall_seconds, StallCheck(self.state.seq))

    async def _stall_check(self, seq: int) -> None:
        if seq != self.state.seq or self.status != "playing" or self._computer_level():
            return
        seat = self.match.position.turn
        seat_state = self.state.seats[seat]
        if seat_state.presence != "here":
            return
        # stored as away since a grace time ago: the other may hand the seat over now;
        # the friend's next move makes them here again
        since = time.time() - self.deps.settings.grace_seconds
        await self._write(
            self.state.with_seat(seat, replace(seat_state, presence="away", since=since))
        )
        await self._tell_presence()

    async def _back(self, seat: int) -> None:
        """A seat whose socket is open plays again (after a stall, maybe a takeover)."""
        seat_state = self.state.seats[seat]
        if self.conns[seat] is None or (
            seat_state.presence == "here" and seat_state.takeover is None
        ):
            return
        took_over = seat_state.takeover is not None
        await self._write(
            self.state.with_seat(
                seat, replace(seat_state, presence="here", since=time.time(), takeover=None)
            )
        )
        await self._tell_presence()
        if took_over:
            await self._send_state()

    def _think(self, seq: int) -> None:
        """Starts the computer's decision off the room's loop; its move comes back as a
        command."""
        level = self._computer_level()
        if level is None or seq != self.state.seq:
            return
        position, seed = self.match.position, f"{self.state.seed}:{seq}"

        async def think() -> None:
            move = await self.deps.choose(level, position, seed)
            self.post(ComputerMove(seq, move))

        self.thinking = asyncio.get_running_loop().create_task(think())

    async def _computer_move(self, seq: int, move: Move) -> None:
        if self._computer_level() is None or seq != self.state.seq:
            return
        try:
            await self._apply(self.match.position.turn, move, None)
        except IllegalMove:  # a computer player's bug must not stall the room
            log.exception("the computer chose an illegal move in room %s", self.id)
            fallback = ai.choose_for_position("facil", self.match.position, seq)
            await self._apply(self.match.position.turn, fallback, None)

    # -- takeover and rematch ------------------------------------------------------------

    async def _takeover(self, seat: int, level: str, confirmed: bool = False) -> None:
        other = 1 - seat
        other_state = self.state.seats[other]
        if (
            self.state.mode != "friend"
            or self.status == "waiting"
            or other_state.presence == "here"
            or other_state.takeover is not None
        ):
            raise ProtocolError("not_absent")
        if self._grace_left(other, confirmed=confirmed) > 0:
            raise ProtocolError("turns_wait" if self.state.turns and not confirmed else "too_early")
        await self._write(self.state.with_seat(other, replace(other_state, takeover=level)))
        if not await self._maybe_rematch():
            await self._send_state()
        await self._tell_presence()

    def _wants_rematch(self, seat: int) -> bool:
        """A seat the computer plays always wants another match."""
        state = self.state
        return (
            state.computer_seat(seat)
            or state.seats[seat].takeover is not None
            or state.seats[seat].rematch
        )

    async def _rematch(self, seat: int) -> None:
        if self.status != "finished":
            raise ProtocolError("not_over")
        if not self.state.seats[seat].rematch:
            seat_state = self.state.seats[seat]
            await self._write(self.state.with_seat(seat, replace(seat_state, rematch=True)))
        if not await self._maybe_rematch():
            await self._send_state()

    async def _maybe_rematch(self) -> bool:
        """Starts the next match when the match is over and both seats want it."""
        if self.status != "finished" or not all(self._wants_rematch(s) for s in (0, 1)):
            return False
        state = self.state
        seed = secrets.token_hex(16)
        start = state.seq + 1
        finished = FinishedMatch(
            state.match_no,
            state.seed,
            self.match.winner,
            self.match.scores,
            state.match_start_seq + 1,
            state.seq,
        )
        seats = (replace(state.seats[0], rematch=False), replace(state.seats[1], rematch=False))
        match = Match.new(seed)
        await self._write(
            replace(
                state,
                seed=seed,
                match_no=state.match_no + 1,
                match_start_seq=start,
                seq=start,
                seats=seats,
            ),
            match=match,
            finished=finished,
        )
        self.match = match
        event = rematch_event(self.state.match_no)
        self.events = [(start, event)]
        self.last_move = None
        await self._broadcast(start, [event], None, None)
        return True

    # -- seats taken and moved -----------------------------------------------------------

    async def _join(self, name: str, token_hash: str, key_hash: str | None) -> bool:
        """Takes seat 1 for ``token_hash``: True when it is (now, or by this same request
        before: a retry), False when someone else holds it."""
        state = self.state
        if state.mode != "friend":
            return False
        if state.names[1] is not None:
            held = await self.deps.storage.seat_token(state.id, 1)
            return (
                held is not None
                and key_hash is not None
                and held.join_key_hash == key_hash
                and held.token_hash == token_hash
            )
        new = replace(state, names=(state.names[0], name))
        new = new.with_seat(1, SeatState("arriving", time.time()))
        await self._write(new, join=(token_hash, key_hash))
        await self._send_state()
        await self._tell_presence()
        return True

    async def _move_seat(self, code: RejoinCode, token_hash: str, key_hash: str | None) -> None:
        seat = code.seat
        if code.used_at is not None:
            held = await self.deps.storage.seat_token(self.id, seat)
            if (
                key_hash is not None
                and code.key_hash == key_hash
                and held is not None
                and held.token_hash == token_hash
            ):
                return  # this same request, retried: the same answer
            raise RejoinError("code_used")
        seat_state = self.state.seats[seat]
        moved = (
            replace(seat_state, presence="arriving", since=time.time(), takeover=None)
            if seat_state.presence == "here"
            else seat_state
        )
        await self._write(
            self.state.with_seat(seat, moved),
            seats=(seat,),
            new_token=(seat, token_hash),
            use_code=(code.id, key_hash),
        )
        await self._close(seat, SeatMoved(), CLOSE_SEAT_MOVED)
        await self._tell_presence()
        self._idle_later()

    # -- public summary --------------------------------------------------------------------

    def summary(self) -> dict[str, Any]:
        state = self.state
        seats = []
        for i in (0, 1):
            presence = self.presence(i)
            seats.append(
                {
                    "name": state.names[i],
                    "kind": "computer" if state.computer_seat(i) else "person",
                    "level": presence["level"],
                    "connected": presence["state"] in ("here", "computer"),
                }
            )
        return {
            "room": state.id,
            "mode": state.mode,
            "turns": state.turns,
            "status": self.status,
            "seats": seats,
            "scores": list(self.match.scores),
            "hand_number": self.match.hand_number,
            "winner": self.match.winner,
            "match": state.match_no,
        }


# -- the registry -------------------------------------------------------------------------


Chooser = Callable[[str, Position, str], Awaitable[Move]]  # (level, position, seed) -> move


@dataclass
class RoomDeps:
    """What every room uses: storage, fan-out, settings, the computer, the registry."""

    storage: Storage
    hub: Fanout
    settings: Settings
    choose: Chooser
    registry: RoomRegistry


async def choose_in_thread(level: str, position: Position, seed: str) -> Move:
    """The computer's move for the seat to move, decided in a worker thread."""
    try:
        return await asyncio.to_thread(ai.choose_for_position, level, position, seed)
    except Exception:
        # never leave the room stuck: Fácil's plain choice instead (and log why)
        log.exception("the %s computer failed; Fácil plays this move", level)
        return await asyncio.to_thread(ai.choose_for_position, "facil", position, seed)


class OwnedElsewhere(Exception):
    """Another live process holds the room."""

    def __init__(self, node: str) -> None:
        super().__init__(node)
        self.node = node


class RoomRegistry:
    """Finds, creates, loads and stops rooms: one ``Room`` actor per live room of this
    process, and the way to the rooms of the others (``peers``; None: a single process,
    every room is ours to take)."""

    def __init__(
        self,
        storage: Storage,
        hub: Fanout,
        settings: Settings,
        choose: Chooser = choose_in_thread,
        *,
        node: str | None = None,
        peers: Peers | None = None,
    ) -> None:
        self.deps = RoomDeps(storage, hub, settings, choose, self)
        self.node = node or new_node_id(settings.node_name)
        self.peers = peers
        self.lease = Lease(self, settings.lease_seconds)
        self.rooms: dict[str, Room] = {}
        self._loading: dict[str, asyncio.Future[Room | None]] = {}
        self.owners: dict[str, str] = {}  # rooms held elsewhere that sockets here talk to
        self._tasks: set[asyncio.Task[None]] = set()

    async def get(self, room_id: str) -> Room | None:
        """This process's room ``room_id``, taken and loaded if need be (None: no such
        room; OwnedElsewhere: another live process holds it)."""
        room = self.rooms.get(room_id)
        if room is not None:
            return room
        loading = self._loading.get(room_id)
        if loading is not None:
            return await asyncio.shield(loading)
        future: asyncio.Future[Room | None] = asyncio.get_running_loop().create_future()
        self._loading[room_id] = future
        try:
            room = await self._take(room_id)
        except Exception as exc:
            future.set_exception(exc)
            future.exception()  # retrieved: the waiters (if any) get it too
            raise
        finally:
            del self._loading[room_id]
        if room is not None:
            self.rooms[room_id] = room
            self.owners.pop(room_id, None)
            room.start()
        future.set_result(room)
        return room

    async def _take(self, room_id: str) -> Room | None:
        """Claims the room (a new epoch: any older copy can no longer write), then loads
        it as stored after the claim."""
        storage = self.deps.storage
        epoch = await storage.claim_room(room_id, self.node, time.time(), force=self.peers is None)
        if epoch is None:
            owner = await storage.room_owner(room_id)
            if owner is None:
                return None
            raise OwnedElsewhere(owner.node or "")
        return await self.rebuild(room_id, epoch)

    async def call(self, room_id: str, command: Command) -> Any:
        """``command``'s answer from the room's actor, wherever it lives: here (loading the
        room if nobody holds it), or on the process that owns it. None when there is no
        such room. A room whose owner died is taken over once its lease lapsed; until then,
        and when the database or Redis is away, ``ProtocolError("reconnecting")``."""
        settings = self.deps.settings
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 2 * settings.lease_seconds + 1
        while True:
            room = self.rooms.get(room_id)
            node = self.owners.get(room_id)
            try:
                if room is None and node is None:
                    room = await self.get(room_id)
                    if room is None:
                        return None
                if room is not None:
                    return await room.ask(command)
                assert node is not None and self.peers is not None
                return await self.peers.call(node, room_id, command, settings.lease_seconds)
            except RoomStopped:
                pass
            except OwnedElsewhere as exc:
                if self.peers is None:
                    raise ProtocolError("reconnecting") from None
                self.owners[room_id] = exc.node
                continue  # straight to the owner
            except NotOwner:
                self.owners.pop(room_id, None)  # it moved: look again
            except PeerGone:
                # its owner died: take the room once the lease lapsed (poll gently, a dead
                # process may leave a thousand rooms waiting)
                self.owners.pop(room_id, None)
                await asyncio.sleep(0.2)
            except Exception as exc:
                if is_outage(exc):
                    raise ProtocolError("reconnecting") from None
                raise
            if loop.time() > deadline:
                raise ProtocolError("reconnecting")
            await asyncio.sleep(0.1)

    async def call_here(self, room_id: str, command: Command) -> Any:
        """A command another process sent for a room it believes is ours: answered if we
        hold the room or may take it, else NotOwner."""
        try:
            room = await self.get(room_id)
        except OwnedElsewhere:
            raise NotOwner() from None
        if room is None:
            return None
        try:
            return await room.ask(command)
        except RoomStopped:
            raise NotOwner() from None

    def forget(self, room: Room, *, release: bool = True) -> None:
        """The room leaves memory (it is all in storage); ``release``: it is nobody's, so
        that any process may take it at once (not after a copy failed: its epoch may be
        old, and the database decides who holds the room)."""
        if self.rooms.get(room.id) is room:
            del self.rooms[room.id]
        room.stop()
        if release and room.epoch >= 0:
            self._background(self._release(room))

    def _background(self, work: Coroutine[Any, Any, None]) -> None:
        """Runs ``work`` beside the rooms, held until it ends (shutdown waits for it)."""
        task = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _release(self, room: Room) -> None:
        try:
            await self.deps.storage.release_room(room.id, self.node, room.epoch)
        except Exception as exc:  # the lease lapses by itself
            log.info("could not release room %s: %r", room.id, exc)

    def sweep(self, live: frozenset[str]) -> None:
        """After each lease renewal: sockets of processes that died leave our rooms, and
        sockets here whose room's owner died reconnect (and so reach the room's next
        owner)."""
        for room in list(self.rooms.values()):
            for seat, conn in enumerate(room.conns):
                if conn is not None and node_of(conn) not in live:
                    room.post(Detach(seat, conn))
            for conn in list(room.watchers):
                if node_of(conn) not in live:
                    room.post(Unwatch(conn))
        held_here = self.deps.hub.local_rooms()
        for room_id, node in list(self.owners.items()):
            if room_id not in held_here:
                del self.owners[room_id]
            elif node not in live:
                del self.owners[room_id]
                self.deps.hub.close_room(
                    room_id, ProtocolError("reconnecting").to_text(), CLOSE_RECONNECT
                )

    def lost_peers(self) -> None:
        """The link to the other processes broke: the sockets here of rooms owned
        elsewhere reconnect (they may have missed frames) and resume from their seq."""
        text = ProtocolError("reconnecting").to_text()
        for room_id in list(self.owners):
            self.deps.hub.close_room(room_id, text, CLOSE_RECONNECT)
        self.owners.clear()

    def drop_all(self) -> None:
        """This process lost its lease (the database is away): another process may hold
        its rooms by now, so it stops them and their sockets reconnect."""
        if self.rooms:
            log.warning("%s stops its %d rooms: its lease lapsed", self.node, len(self.rooms))
        for room in list(self.rooms.values()):
            self.forget(room, release=False)
            self._background(room.close_all(ProtocolError("reconnecting")))

    async def stop_all(self) -> None:
        """Shutdown: every room finishes its command in hand and stops; they are nobody's,
        so other processes take them at once."""
        rooms = list(self.rooms.values())
        for room in rooms:
            self.forget(room, release=False)
        tasks = [r.task for r in rooms if r.task is not None]
        thinking = [r.thinking for r in rooms if r.thinking is not None]
        if tasks or thinking:
            await asyncio.wait([*tasks, *thinking], timeout=5)
        for room in rooms:  # their sockets (here or on other processes) go elsewhere now
            await room.close_all(ProtocolError("reconnecting"))
        if self._tasks:
            await asyncio.wait(list(self._tasks), timeout=5)
        try:
            await self.deps.storage.release_node(self.node)
        except Exception as exc:
            log.warning("could not release %s's rooms: %r", self.node, exc)

    async def rebuild(self, room_id: str, epoch: int = -1) -> Room | None:
        """Rebuilds a room from its stored state, its seed and its move log alone (not
        started; a copy at epoch -1 can never write)."""
        state = await self.deps.storage.load_room(room_id)
        if state is None:
            return None
        records = await self.deps.storage.load_moves(room_id, 0)
        answered: Answered = (OrderedDict(), OrderedDict())
        events: list[tuple[int, str]] = []
        last_move: dict[str, Any] | None = None
        if state.match_no > 1:
            events.append((state.match_start_seq, rematch_event(state.match_no)))
        match = Match.new(state.seed)
        for rec in records:
            if rec.client_id is not None:
                answered[rec.seat][rec.client_id] = ack_text(rec.client_id, rec.seq)
            if rec.seq <= state.match_start_seq:
                continue
            before = match
            match, step = match.play(Move.parse(rec.move))
            step_list = step_events(step, rec.seat, before, match)
            last_move = step_list[0]
            events.extend((rec.seq, dumps(e)) for e in step_list)
        for seat_answers in answered:
            forget_oldest(seat_answers)
        return Room(state, match, events, last_move, answered, self.deps, epoch)


__all__ = [
    "ROUTED_COMMANDS",
    "WATCHER_SEAT",
    "Attach",
    "ComputerDue",
    "Detach",
    "Join",
    "MoveSeat",
    "ReactCmd",
    "RematchCmd",
    "Room",
    "RoomRegistry",
    "RoomStopped",
    "Snapshot",
    "Submit",
    "Summary",
    "TakeoverCmd",
    "Unwatch",
    "Watch",
]
