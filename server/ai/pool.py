"""Computer decisions in worker processes, off the server's event loop.

A search such as Difícil's takes a few tenths of a second of CPU; run in the server's
process it would hold the interpreter's lock and slow every other room. ``AiPool`` hands
each decision to a small ``ProcessPoolExecutor`` (at most one worker per core, each at a
lower scheduling priority than the server, so busy workers never starve its event loop
of a core). The position crosses to the worker as its NOTATION text and the move comes
back as text; inside the worker only the seat's view is used (``choose_for_position``).

**Fair per room.** Only as many decisions as there are workers are handed to the
executor at a time (``queue`` more at most, when asked: they wait inside it); the rest
wait here, one queue per room, and a freed worker takes the oldest request of the next
room in turn (round robin). A room that asks for many decisions at once delays each other
room's next decision by at most one of its own. ``waiting`` is the number of requests
not yet handed to a worker (``/metrics``: ``casino_ai_waiting``).

**Workers die with the server.** Each worker asks Linux to send it SIGTERM when the
process that started it dies (``prctl(PR_SET_PDEATHSIG)``), and exits at once if that
already happened: a server killed with SIGKILL leaves no worker behind.

``AiPool(0)`` runs decisions in a thread of this process instead (for tests and tools);
the app always starts real workers (``AI_WORKERS``) and hands ``AiPool.choose`` to the
room registry.
"""

from __future__ import annotations

import asyncio
import ctypes
import logging
import multiprocessing
import os
import signal
import sys
from collections import OrderedDict, deque
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

from ..engine import IllegalMove, Move, Position, legal_moves
from .inference import Seen, seen_from_text, seen_to_text

log = logging.getLogger(__name__)

DEFAULT_QUEUE = 0
PR_SET_PDEATHSIG = 1  # linux/prctl.h
WORKER_NICE = 10  # workers run this much "nicer" than the server


def cores() -> int:
    return (
        len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    )


def choose_text(
    level: str, position_text: str, seed: str, seen_text: str = "[]"
) -> tuple[str, int]:
    """In a worker: the move (as text) of the ``level`` player, and the worker's pid."""
    from . import choose_for_position

    position = Position.parse(position_text)
    seen = seen_from_text(seen_text)
    return choose_for_position(level, position, seed, seen).to_text(), os.getpid()


def die_with_parent(parent: int) -> bool:
    """Asks the kernel to send this process SIGTERM when its parent dies (Linux only;
    False elsewhere or if the call fails). Exits at once if ``parent`` is already gone."""
    done = False
    if sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            done = libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0) == 0
        except (OSError, AttributeError):
            done = False
    if os.getppid() != parent:  # the parent died before the request took effect
        os._exit(0)
    return done


def _warm_up(parent: int) -> None:
    """A worker's first job: die with the server (``die_with_parent``), give way to it (a
    lower priority, so on a machine whose cores are all busy searching, the event loop
    still runs at once), ignore Ctrl-C (the server stops its workers itself) and load the
    players, so the first real decision is not slowed by imports."""
    if not die_with_parent(parent):
        log.warning("computer worker %d will not die with its server", os.getpid())
    os.nice(WORKER_NICE)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    from . import LEVELS
    from .odds import match_chance

    match_chance((0, 0), 0)  # fills the table of match chances
    assert LEVELS


class AiPool:
    def __init__(self, workers: int, queue: int = DEFAULT_QUEUE) -> None:
        self.workers = max(0, min(workers, cores()))
        self.queue = max(0, queue)
        self._limit = max(self.workers, 1) + self.queue  # decisions handed out at once
        self._running = 0
        # the requests not yet handed out, by room, rooms in turn order
        self._rooms: OrderedDict[str, deque[asyncio.Future[None]]] = OrderedDict()
        self._executor: ProcessPoolExecutor | None = None
        self.worker_pids: set[int] = set()  # the processes that answered so far
        self.closed = False
        if self.workers:
            self._executor = self._start()

    def _start(self) -> ProcessPoolExecutor:
        # spawn: a fork of a running server would copy its threads' locks and sockets
        return ProcessPoolExecutor(
            max_workers=self.workers,
            mp_context=multiprocessing.get_context("spawn"),
            initializer=_warm_up,
            initargs=(os.getpid(),),
        )

    @property
    def waiting(self) -> int:
        """Requests waiting for a worker."""
        return sum(len(queue) for queue in self._rooms.values())

    async def _turn(self, room: str) -> None:
        """Waits until this request of ``room`` may be handed to a worker."""
        if self._running < self._limit and not self._rooms:
            self._running += 1
            return
        ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._rooms.setdefault(room, deque()).append(ready)
        try:
            await ready
        except asyncio.CancelledError:
            if ready.done() and not ready.cancelled():
                self._done()  # it had been given the turn: pass it on
            else:
                self._forget(room, ready)
            raise

    def _forget(self, room: str, ready: asyncio.Future[None]) -> None:
        queue = self._rooms.get(room)
        if queue is not None and ready in queue:
            queue.remove(ready)
            if not queue:
                del self._rooms[room]

    def _done(self) -> None:
        """A decision finished: the next room in turn gets its oldest request handed out."""
        self._running -= 1
        while self._rooms and self._running < self._limit:
            room, queue = next(iter(self._rooms.items()))
            ready = queue.popleft()
            del self._rooms[room]
            if queue:  # the room goes to the back of the line
                self._rooms[room] = queue
            if not ready.done():
                self._running += 1
                ready.set_result(None)

    async def choose(
        self, level: str, position: Position, seed: str, seen: Sequence[Seen] = ()
    ) -> Move:
        """The ``level`` player's move for the seat to move in ``position``, checked legal.
        If that player fails or chooses an illegal move, Fácil's plain choice is made
        instead (and the failure logged): a room never stays stuck waiting for the
        computer. THE fallback of the computer players."""
        try:
            move = await self._choose(level, position, seed, seen)
            if move not in legal_moves(position):
                raise IllegalMove("computer_bug", f"the {level} player chose {move.to_text()}")
            return move
        except Exception:
            if self.closed or level == "facil":
                raise
            log.exception("the %s computer failed; Fácil plays this move", level)
            return await self._choose("facil", position, seed)

    async def _choose(
        self, level: str, position: Position, seed: str, seen: Sequence[Seen] = ()
    ) -> Move:
        # a room's seeds are "<room's seed>:<seq>" (server/rooms/play.py)
        await self._turn(seed.rpartition(":")[0] or seed)
        try:
            return await self._run(level, position, seed, seen_to_text(seen))
        finally:
            self._done()

    async def _run(self, level: str, position: Position, seed: str, seen: str) -> Move:
        if self.closed:
            raise RuntimeError("the computer players' pool is closed")
        text = position.to_text()
        if self._executor is None:
            move, pid = await asyncio.to_thread(choose_text, level, text, seed, seen)
        else:
            loop = asyncio.get_running_loop()
            try:
                move, pid = await loop.run_in_executor(
                    self._executor, choose_text, level, text, seed, seen
                )
            except BrokenProcessPool:
                # a worker died (killed, out of memory): start new ones and retry once
                log.warning("computer worker pool broken; restarting it")
                self._executor.shutdown(wait=False, cancel_futures=True)
                self._executor = self._start()
                move, pid = await loop.run_in_executor(
                    self._executor, choose_text, level, text, seed, seen
                )
        self.worker_pids.add(pid)
        log.debug("%s move chosen in worker process %d", level, pid)
        return Move.parse(move)

    async def close(self) -> None:
        self.closed = True
        # the requests still waiting go on, to be refused
        for queue in self._rooms.values():
            for ready in queue:
                if not ready.done():
                    self._running += 1
                    ready.set_result(None)
        self._rooms.clear()
        executor, self._executor = self._executor, None
        if executor is not None:
            await asyncio.to_thread(executor.shutdown, wait=True, cancel_futures=True)
