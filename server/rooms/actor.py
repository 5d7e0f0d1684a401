"""The actor that owns a live room: one task and one inbox of typed commands
(``commands.py``), handled one at a time by ``handle.py``, so nothing else needs a lock.

A room is four named parts, each one value with its own methods, and nothing else:

- ``state``: the stored state (``store.RoomState``), replaced only by ``write``, which
  stores it first, conditional on the version this command was decided from and on the
  room's claim (its epoch);
- ``live``: the live match (``live.LiveMatch``: the match, its events, the last move, the
  hand's plays, the answers to move ids), derived from the move log;
- ``sockets``: who listens (``sockets.Sockets``: each seat's connection, the watchers, the
  presence last told, the limits on hellos and reactions), never stored;
- ``timers``: what it waits for (``timers.Timers``: timers, the computer's decision, the
  marks that keep a timer from being set twice).

The job modules (``presence``, ``play``, ``friends``, ``rematch``, ``watchers``,
``handoff``) change a room only through these methods (``tests/test_architecture.py``
checks that none assigns a room's attribute). A command is decided from the room's state,
written, and only then told: to each seat its own view and to the watchers theirs
(``views.py``), through the hub. Timers are commands the room posts to itself (``after``).

A room stops in one way: ``RoomDeps.stop(room, reason)`` (the registry's ``stop``, with the
reasons of ``stops.py``), which removes it from the registry and ends its actor after the
command in hand (``halt``); the next visitor loads it afresh from what was stored.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from ..ai.inference import Seen
from ..cluster import WATCHERS, Claim, Hub, Lease, is_outage
from ..config import Settings
from ..engine import Match, Move, Position
from ..inbox import Inbox
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
from . import history, views
from .commands import Command, Start
from .live import LiveMatch
from .sockets import Sockets
from .stops import DEPOSED, FAILED, STALE, Stop
from .timers import Timers
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
    stops: dict[str, int] = field(default_factory=dict)  # rooms stopped, by reason

    @property
    def handoffs(self) -> int:
        """Rooms given up to the process their sockets landed on."""
        return self.stops.get("handoff", 0)


@dataclass
class RoomDeps:
    """What every room uses: storage, the hub, settings, the computer, the lease (who may
    serve: ``holds``; the database's clock its times are read on), and the registry's one
    way to stop a room (``stop(room, reason)``, awaited until its sockets were told), and
    Web Push (``push``, reached through ``alerts.py`` alone)."""

    storage: Storage
    hub: Hub
    settings: Settings
    choose: Chooser
    lease: Lease
    stop: Callable[[Room, Stop], Awaitable[None]]
    shared: bool = False  # other processes share the rooms (a room may move to them)
    counts: RoomCounts = field(default_factory=lambda: RoomCounts())
    push: Pusher = field(default_factory=NoPush)  # Web Push to seats with no socket (alerts.py)

    def clock(self) -> float:
        return self.lease.clock.now()


Handler = Callable[["Room", Command], Awaitable[Any]]
Letter = tuple[Command, "asyncio.Future[Any] | None"]


class Room:
    def __init__(
        self,
        state: RoomState,
        live: LiveMatch,
        deps: RoomDeps,
        handle: Handler,
        claim: Claim,
    ) -> None:
        self.state = state
        self.live = live
        self.sockets = Sockets(state.seat_count)
        self.timers = Timers()
        self.claim = claim  # this copy's claim on the room: its writes carry its epoch
        self.deps = deps
        self._handle = handle
        self._inbox: Inbox[Letter | None] = Inbox()  # None: wake up
        self.stopped = False
        self.task: asyncio.Task[None] | None = None

    @property
    def id(self) -> str:
        return self.state.id

    @property
    def epoch(self) -> int:
        return self.claim.epoch

    @property
    def match(self) -> Match:
        return self.live.match

    @property
    def status(self) -> str:
        return room_status(self.state, self.live.match)

    def moment(self) -> Moment:
        """The room as it stands now: what every view is built from."""
        return Moment(
            self.state, self.live.match, self.live.last_move, self.sockets.watcher_count(),
            self.deps.settings, self.deps.clock(),
        )  # fmt: skip

    def listened(self) -> bool:
        """Some seat or watcher has a socket open."""
        return self.sockets.listened()

    def queued(self) -> int:
        """Commands waiting in the inbox."""
        return self._inbox.qsize()

    # -- the actor -----------------------------------------------------------------------

    def start(self) -> None:
        self.task = asyncio.get_running_loop().create_task(self._run(), name=f"room {self.id}")
        self.post(Start())

    def post(self, command: Command) -> None:
        if not self.stopped:
            self._inbox.put_nowait((command, None))

    async def ask(self, command: Command) -> Any:
        """Posts ``command`` and waits for its answer (raises what handling it raised)."""
        if self.stopped:
            raise RoomStopped(self.id)
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._inbox.put_nowait((command, future))
        return await future

    def halt(self) -> None:
        """Ends the actor after the command in hand (commands still queued get RoomStopped)
        and every timer. Only ``RoomDeps.stop`` calls it: that is how a room stops."""
        if self.stopped:
            return
        self.stopped = True
        self.timers.cancel()
        self._inbox.put_nowait(None)  # wakes the loop, so that it sees ``stopped``

    async def _run(self) -> None:
        while True:
            letter = await self._inbox.get()
            if self.stopped:
                self._refuse_all(letter)
                return
            if letter is None:
                continue
            command, future = letter
            if not self.deps.lease.holds(self.claim):
                # this copy may no longer be the room's (the lease ran out, or another
                # process claimed the room): it tells nobody anything, and stops; the command
                # is asked of the room again (nothing of it was written)
                await self.deps.stop(self, DEPOSED)
                _fail(future, RoomStopped(self.id))
                continue
            try:
                result = await self._handle(self, command)
            except (ProtocolError, RejoinError) as exc:  # refused: nothing changed
                _fail(future, exc)
                continue
            except Exception as exc:
                await self._failed(command, exc, future)
                continue
            if future is not None and not future.done():
                future.set_result(result)

    def _refuse_all(self, letter: Letter | None) -> None:
        """The room stopped: the command in hand and every one queued get RoomStopped."""
        letters = [letter]
        while not self._inbox.empty():
            letters.append(self._inbox.get_nowait())
        for each in letters:
            if each is not None:
                _fail(each[1], RoomStopped(self.id))

    async def _failed(
        self, command: Command, exc: Exception, future: asyncio.Future[Any] | None
    ) -> None:
        """A write failed (did it commit? only the database knows), another process claimed the
        room, or a bug: this copy may no longer match storage. It stops, and the next
        visitor loads the room afresh from what was stored (on this process or another)."""
        passing = isinstance(exc, StaleRoom) or is_outage(exc)
        if not passing:
            log.exception("room %s stopped on %s", self.id, type(command).__name__)
        else:  # every family of the room is told to reconnect: worth a warning
            log.warning("room %s stopped (%s): %r", self.id, type(command).__name__, exc)
        await self.deps.stop(self, STALE if passing else FAILED)
        # stale: nothing was written, so the caller asks a fresh copy (here or on the
        # room's new owner); else whether it was is unknown
        _fail(
            future,
            RoomStopped(self.id)
            if isinstance(exc, StaleRoom)
            else ProtocolError("reconnecting" if passing else "server_error"),
        )

    def after(self, delay: float, command: Command, name: str | None = None) -> None:
        """Posts ``command`` to this room in ``delay`` seconds (a timer is a command);
        ``name``: it replaces the timer of that name still set (``Timers.after``)."""
        self.timers.after(delay, lambda: self.post(command), name)

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
        conditional on the version this command was decided from and on the room's claim;
        then both are the room's. Seat rows that changed are written, and ``seats`` in any
        case."""
        new = replace(new, version=self.state.version + 1)
        old = self.state.seats
        changed = tuple(
            s
            for s, seat in enumerate(new.seats)
            if s in seats or (seat is not old[s] and seat != old[s])  # `is`: most often
        )
        after = match or self.live.match
        status = room_status(new, after)
        turn = after.position.turn if status == "playing" else None
        listing = Listing(turn, after.scores)
        await self.deps.storage.rooms.write(
            RoomWrite(new, status, changed, **extra, epoch=self.epoch, listing=listing)
        )
        self.state = new
        if match is not None:
            self.live.match = match
        if extra.get("move") is not None:
            self.deps.counts.moves += 1

    # -- telling -------------------------------------------------------------------------

    async def send(self, seat: int, message: ServerMessage) -> None:
        conn = self.sockets.of(seat)
        if conn is not None:
            await self.deps.hub.publish(self.id, seat, conn, encode(message))

    async def send_others(self, seat: int, message: ServerMessage) -> None:
        """``message`` to every seat but ``seat`` (and not to the watchers)."""
        for other, conn in list(self.sockets.seated()):
            if other != seat:
                await self.deps.hub.publish(self.id, other, conn, encode(message))

    async def close(self, seat: int, message: ServerMessage, code: int) -> None:
        conn = self.sockets.of(seat)
        if conn is not None:
            await self.deps.hub.publish(self.id, seat, conn, encode(message), close=code)
            self.sockets.detach(seat)

    async def close_all(self, error: ProtocolError) -> None:
        """THE way to tell a room's listeners to go: every socket of the room is sent
        ``error`` and closed (``reconnecting``: they reconnect and find the room afresh)."""
        code = CLOSE_RECONNECT if error.code == "reconnecting" else CLOSE_SERVER_ERROR
        for seat, _ in list(self.sockets.seated()):
            await self.close(seat, error.to_message(), code)
        text = error.to_text()
        for conn in self.sockets.watchers():
            await self.deps.hub.publish(self.id, WATCHERS, conn, text, close=code)
        self.sockets.clear_watchers()

    async def tell_watchers(self, text: str) -> None:
        """One text, encoded once, to every watcher."""
        for conn in self.sockets.watchers():
            await self.deps.hub.publish(self.id, WATCHERS, conn, text)

    async def send_state(self, *, but: int | None = None) -> None:
        """Each seat's view and the watchers' (a change that is not a move; ``but``: a seat
        told already, by its welcome)."""
        moment = self.moment()
        shared = views.common(moment)
        for seat, _ in list(self.sockets.seated()):
            if seat != but:
                view = views.seat_view(moment, seat, shared)
                await self.send(seat, State(self.state.seq, view))
        if self.sockets.watcher_count():
            view = views.watcher_view(moment, shared)
            await self.tell_watchers(encode(State(self.state.seq, view)))

    async def broadcast(
        self,
        seq: int,
        texts: list[str],
        mover: int | None,
        move_id: str | None,
        *,
        whole: bool = False,
    ) -> None:
        """One frame per seat per change: the events and the seat's view after them (the
        mover's copy carries its move id: its ack). A move's frame carries the view's move
        part alone (``views.move_view``: the client keeps the rest, which a move never
        changes, from the last whole view, ``presence`` and ``watchers`` messages); ``whole``
        (a rematch: a new match), the whole view."""
        events = [Raw(t) for t in texts]
        moment = self.moment()
        shared = views.common(moment, room=whole) if self.listened() else None
        seat_view = views.seat_view if whole else views.move_view
        for seat, _ in list(self.sockets.seated()):
            view = raw(seat_view(moment, seat, shared))
            await self.send(seat, Events(seq, events, view, move_id if seat == mover else None))
        if self.sockets.watcher_count():  # the same frame for all of them: encoded once
            watcher_view = views.watcher_view if whole else views.watcher_move_view
            view = raw(watcher_view(moment, shared))
            await self.tell_watchers(encode(Events(seq, events, view)))

    async def tell_presence(self) -> None:
        """Each seat's presence to every seat (itself too: a seat's own entry is in its view,
        which a move's frame no longer brings) and the watchers, only when it changed (a
        reconnect loop does not flood the others; the grace seconds left travel with the
        change)."""
        moment = self.moment()
        for seat in range(self.state.seat_count):
            now = views.presence(moment, seat)
            told = self.sockets.told(seat)
            if told is not None and told["state"] == now["state"] and told["level"] == now["level"]:
                continue
            self.sockets.tell(seat, now)
            text = encode(Presence(seat, now))
            for listener, conn in list(self.sockets.seated()):
                await self.deps.hub.publish(self.id, listener, conn, text)
            if self.sockets.watcher_count():
                await self.tell_watchers(text)

    async def events_since(self, since: int | None) -> list[tuple[int, Raw]]:
        """The events after ``since`` of the current match (or from the previous match's
        end); none when ``since`` is unknown, too old or in the future. From memory (the
        last seqs, ``live.KEPT_SEQS``), else replayed from the stored move log."""
        state = self.state
        if since is None or since > state.seq or since < state.match_start_seq - 1:
            return []
        kept = self.live.events_since(since)
        if kept is not None:
            return kept
        records = await self.deps.storage.rooms.load_moves(self.id, state.match_start_seq)
        events = await asyncio.to_thread(history.events_of, state, records)
        return [(n, Raw(e)) for n, e in events if n > since]


def _fail(future: asyncio.Future[Any] | None, exc: BaseException) -> None:
    if future is not None and not future.done():
        future.set_exception(exc)
