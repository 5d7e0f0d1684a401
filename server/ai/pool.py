"""Computer decisions in worker processes, off the server's event loop.

A search such as Difícil's takes a few tenths of a second of CPU; run in the server's
process it would hold the interpreter's lock and slow every other room. ``AiPool`` hands
each decision to a small ``ProcessPoolExecutor`` (at most one worker per core, each at a
lower scheduling priority than the server, so busy workers never starve its event loop
of a core) and lets at most ``queue`` more requests wait inside it; further callers wait
their turn here, in order, without holding anything. The position crosses to the worker
as its NOTATION text and the move comes back as text; inside the worker only the seat's
view is used (``choose_for_position``).

``AiPool(0)`` runs decisions in a thread of this process instead (for tests and tools);
the app always starts real workers (``AI_WORKERS``) and hands ``AiPool.choose`` to the
room registry.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
import signal
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

from ..engine import IllegalMove, Move, Position, legal_moves

log = logging.getLogger(__name__)

DEFAULT_QUEUE = 32
WORKER_NICE = 10  # workers run this much "nicer" than the server


def cores() -> int:
    return (
        len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    )


def choose_text(level: str, position_text: str, seed: str) -> tuple[str, int]:
    """In a worker: the move (as text) of the ``level`` player, and the worker's pid."""
    from . import choose_for_position

    position = Position.parse(position_text)
    return choose_for_position(level, position, seed).to_text(), os.getpid()


def _warm_up() -> None:
    """A worker's first job: give way to the server (a lower priority, so on a machine
    whose cores are all busy searching, the event loop still runs at once), ignore Ctrl-C
    (the server stops its workers itself) and load the players, so the first real decision
    is not slowed by imports."""
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
        self._slots = asyncio.Semaphore(max(self.workers, 1) + self.queue)
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
        )

    async def choose(self, level: str, position: Position, seed: str) -> Move:
        """The ``level`` player's move for the seat to move in ``position``, checked legal.
        If that player fails or chooses an illegal move, Fácil's plain choice is made
        instead (and the failure logged): a room never stays stuck waiting for the
        computer. THE fallback of the computer players."""
        try:
            move = await self._choose(level, position, seed)
            if move not in legal_moves(position):
                raise IllegalMove("computer_bug", f"the {level} player chose {move.to_text()}")
            return move
        except Exception:
            if self.closed or level == "facil":
                raise
            log.exception("the %s computer failed; Fácil plays this move", level)
            return await self._choose("facil", position, seed)

    async def _choose(self, level: str, position: Position, seed: str) -> Move:
        async with self._slots:
            if self.closed:
                raise RuntimeError("the computer players' pool is closed")
            text = position.to_text()
            if self._executor is None:
                move, pid = await asyncio.to_thread(choose_text, level, text, seed)
            else:
                loop = asyncio.get_running_loop()
                try:
                    move, pid = await loop.run_in_executor(
                        self._executor, choose_text, level, text, seed
                    )
                except BrokenProcessPool:
                    # a worker died (killed, out of memory): start new ones and retry once
                    log.warning("computer worker pool broken; restarting it")
                    self._executor.shutdown(wait=False, cancel_futures=True)
                    self._executor = self._start()
                    move, pid = await loop.run_in_executor(
                        self._executor, choose_text, level, text, seed
                    )
            self.worker_pids.add(pid)
            log.debug("%s move chosen in worker process %d", level, pid)
            return Move.parse(move)

    async def close(self) -> None:
        self.closed = True
        executor, self._executor = self._executor, None
        if executor is not None:
            await asyncio.to_thread(executor.shutdown, wait=True, cancel_futures=True)
