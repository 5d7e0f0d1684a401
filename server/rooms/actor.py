"""The actor that owns a live room: one task and one inbox of typed commands
(``commands.py``), handled one at a time by ``handle.py``, so nothing else needs a lock.

A command is decided from the room's state, written to storage conditional on the version
it was decided from and on the epoch this process took the room at (``write``), and only
then told: to each seat its own view and to the watchers theirs (``views.py``), through the
hub. Timers are commands the room posts to itself (``after``). A room asked to stop
finishes its current command and stops; a room whose write failed stops and closes its
sockets, and the next visitor loads it afresh from what was stored.

Watchers are connection ids only (published to on the hub's ``WATCHERS`` channel), held in
the owner's memory and never stored: after a restart they watch again.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from ..ai.inference import Seen
from ..cluster import WATCHERS, Hub, Ownership, is_outage
from ..config import Settings
from ..engine import Match, Move, Position
from ..protocol import (
    CLOSE_RECONNECT,
    CLOSE_SERVER_ERROR,
    Events,
    Presence,
    ProtocolError,
    Raw,
    ServerMessage,
    State,
    encode,
    raw,
)
from ..push import NoPush, Pusher
from ..store import Listing, RejoinError, RoomState, RoomWrite, StaleRoom, Storage
from . import views
from .commands import Command, Snapshot, Start
from .history import Restored
from .views import Moment, room_status

log = logging.getLogger("server.rooms")

# (level, position, seed, the plays of this hand as public facts) -> move
Chooser = Callable[[str, Position, str, Sequence[Seen]], Awaitable[Move]]


class RoomStopped(Exception):
    """The room stopped before handling the command (evicted, or its copy went stale): ask
    the registry again."""


@dataclass
class RoomCounts:
    """What the rooms of this process did (read by /metrics)."""

    moves: int = 0
    handoffs: int = 0  # rooms given up to the process their sockets landed on


@dataclass
class RoomDeps:
    """What every room uses: storage, the hub, settings, the computer, the rule of who may
    serve (``ownership``), the clock its times are read on (the database's), the
    registry's way to forget a room that stopped (``forget(room, release)``), and Web Push
    (``push``, reached through ``alerts.py`` alone)."""

    storage: Storage
    hub: Hub
    settings: Settings
    choose: Chooser
    ownership: Ownership
    forget: Callable[[Room, bool], None]
    shared: bool = False  # other processes share the rooms (a room may move to them)
    counts: RoomCounts = field(default_factory=lambda: RoomCounts())
    push: Pusher = field(default_factory=NoPush)  # Web Push to seats with no socket (alerts.py)

    def clock(self) -> float:
        return self.ownership.db_time()


Handler = Callable[["Room", Command], Awaitable[Any]]


class Room:
    def __init__(
        self,
        state: RoomState,
        restored: Restored,
        deps: RoomDeps,
        handle: Handler,
        epoch: int = -1,
    ) -> None:
        self.state = state
        self.epoch = epoch  # the epoch this process took the room at: its writes carry it
        self.match = restored.match
        # (seq, event as JSON text) of the current match: text, so that thousands of rooms'
        # histories are no work for the garbage collector
        self.events = restored.events
        self.last_move = restored.last_move
        self.plays = restored.plays  # this hand's plays, public (Difícil's inference)
        self.answered = restored.answered
        self.deps = deps
        self._handle = handle
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
        self.handoff_generation = 0
        self.stopped = False
        self.task: asyncio.Task[None] | None = None

    @property
    def id(self) -> str:
        return self.state.id

    @property
    def status(self) -> str:
        return room_status(self.state, self.match)

    def moment(self) -> Moment:
        """The room as it stands now: what every view is built from."""
        return Moment(
            self.state, self.match, self.last_move, len(self.watchers), self.deps.settings,
            self.deps.clock(),
        )  # fmt: skip

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
            if not self.deps.ownership.holds(self.id, self.epoch):
                # this copy may no longer be the room's (the lease ran out, or another
                # process took the room): it tells nobody anything, and stops
                await self.depose(future)
                continue
            try:
                result = await self._handle(self, command)
            except (ProtocolError, RejoinError) as exc:  # refused: nothing changed
                if future is not None and not future.done():
                    future.set_exception(exc)
                continue
            except Exception as exc:
                await self._failed(command, exc, future)
                continue
            if future is not None and not future.done():
                future.set_result(result)

    async def depose(self, future: asyncio.Future[Any] | None = None) -> None:
        """This copy is no longer the room's: it stops, its sockets reconnect and find the
        room's owner, and the command in hand is asked of the room again (nothing of it was
        written)."""
        log.info("room %s: this copy is no longer the owner", self.id)
        self.deps.forget(self, False)
        await self.close_all(ProtocolError("reconnecting"))
        if future is not None and not future.done():
            future.set_exception(RoomStopped(self.id))

    async def _failed(
        self, command: Command, exc: Exception, future: asyncio.Future[Any] | None
    ) -> None:
        """A write failed (did it commit? only the database knows), another process took the
        room, or a bug: this copy may no longer match storage. It stops and closes its
        sockets, and the next visitor loads the room afresh from what was stored (on this
        process or another)."""
        passing = isinstance(exc, StaleRoom) or is_outage(exc)
        if not passing:
            log.exception("room %s stopped on %s", self.id, type(command).__name__)
        else:
            log.info("room %s stopped: %r", self.id, exc)
        error = ProtocolError("reconnecting" if passing else "server_error")
        self.deps.forget(self, False)
        await self.close_all(error)
        if future is not None and not future.done():
            # stale: nothing was written, so the caller asks a fresh copy (here or on the
            # room's new owner); else whether it was is unknown
            future.set_exception(RoomStopped(self.id) if isinstance(exc, StaleRoom) else error)

    def after(self, delay: float, command: Command) -> None:
        """Posts ``command`` to this room in ``delay`` seconds (a timer is a command)."""
        loop = asyncio.get_running_loop()

        def fire() -> None:
            self.timers.discard(handle)
            self.post(command)

        handle = loop.call_later(delay, fire)
        self.timers.add(handle)

    # -- writing -------------------------------------------------------------------------

    async def write(
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
        await self.deps.storage.rooms.write(
            RoomWrite(new, status, changed, **extra, epoch=self.epoch, listing=listing)
        )
        self.state = new

    # -- telling -------------------------------------------------------------------------

    async def send(self, seat: int, message: ServerMessage) -> None:
        conn = self.conns[seat]
        if conn is not None:
            await self.deps.hub.publish(self.id, seat, conn, encode(message))

    async def close(self, seat: int, message: ServerMessage, code: int) -> None:
        conn = self.conns[seat]
        if conn is not None:
            await self.deps.hub.publish(self.id, seat, conn, encode(message), close=code)
            self.conns[seat] = None

    async def close_all(self, error: ProtocolError) -> None:
        """Closes every socket of the room (they reconnect and find the room afresh)."""
        code = CLOSE_RECONNECT if error.code == "reconnecting" else CLOSE_SERVER_ERROR
        for seat in (0, 1):
            await self.close(seat, error.to_message(), code)
        text = error.to_text()
        for conn in list(self.watchers):  # they watch again, and find the room afresh
            await self.deps.hub.publish(self.id, WATCHERS, conn, text, close=code)
        self.watchers.clear()

    async def tell_watchers(self, text: str) -> None:
        """One text, encoded once, to every watcher."""
        for conn in list(self.watchers):
            await self.deps.hub.publish(self.id, WATCHERS, conn, text)

    async def send_state(self) -> None:
        """Each seat's view and the watchers' (a change that is not a move)."""
        moment = self.moment()
        shared = views.common(moment)
        for seat in (0, 1):
            if self.conns[seat] is not None:
                await self.send(seat, State(self.state.seq, views.seat_view(moment, seat, shared)))
        if self.watchers:
            view = views.watcher_view(moment, shared)
            await self.tell_watchers(encode(State(self.state.seq, view)))

    async def broadcast(
        self, seq: int, texts: list[str], mover: int | None, move_id: str | None
    ) -> None:
        """One frame per seat per change: the events and the seat's view after them (the
        mover's copy carries its move id: its ack)."""
        events = [Raw(t) for t in texts]
        moment = self.moment()
        shared = views.common(moment) if self.listened() else None
        for seat in (0, 1):
            if self.conns[seat] is None:
                continue
            view = raw(views.seat_view(moment, seat, shared))
            await self.send(seat, Events(seq, events, view, move_id if seat == mover else None))
        if self.watchers:  # the same frame for all of them: encoded once
            view = raw(views.watcher_view(moment, shared))
            await self.tell_watchers(encode(Events(seq, events, view)))

    async def tell_presence(self) -> None:
        """Each seat's presence to the other seat, only when it changed (a reconnect loop
        does not flood the opponent; the grace seconds left travel with the change)."""
        moment = self.moment()
        for seat in (0, 1):
            now = views.presence(moment, seat)
            told = self.told[seat]
            if told is not None and told["state"] == now["state"] and told["level"] == now["level"]:
                continue
            self.told[seat] = now
            await self.send(1 - seat, Presence(seat, now))
            if self.watchers:
                await self.tell_watchers(encode(Presence(seat, now)))

    def events_since(self, since: int | None) -> list[tuple[int, Raw]]:
        """The events after ``since`` of the current match (or from the previous match's
        end); none when ``since`` is unknown, too old or in the future."""
        state = self.state
        if since is None or since > state.seq or since < state.match_start_seq - 1:
            return []
        return [(n, Raw(e)) for n, e in self.events if n > since]

    # -- listeners -----------------------------------------------------------------------

    def listened(self) -> bool:
        """Some seat or watcher has a socket open."""
        return bool(self.watchers) or any(c is not None for c in self.conns)
