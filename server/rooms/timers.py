"""What a room waits for: the timers it set (each one a command it posts to itself when it
fires), the computer's decision being made off the loop, and the marks that keep a timer
from being set twice (the turn the computer is due for, the turn a stall check watches,
the generations of the idle and hand-off checks: a check that finds its generation moved
on does nothing). One value of the room's actor (``actor.Room.timers``), changed by its own
methods; ``cancel`` ends all of it when the room stops.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import Any


class Timers:
    __slots__ = ("_handles", "_named", "_thinking", "computer_due", "handoff", "idle", "stall_due")

    def __init__(self) -> None:
        self._handles: set[asyncio.TimerHandle] = set()
        # the timers of which one at a time is enough (a newer one replaces the older: a
        # stall check per turn would otherwise keep a turn's timer per move for minutes)
        self._named: dict[str, asyncio.TimerHandle] = {}
        self._thinking: asyncio.Task[None] | None = None
        self.computer_due: int | None = None  # the seq the computer's next move is due for
        self.stall_due: int | None = None  # the seq whose turn a stall check watches
        self.idle = 0  # the idle check's generation
        self.handoff = 0  # the hand-off check's generation

    def after(self, delay: float, fire: Callable[[], None], name: str | None = None) -> None:
        """Calls ``fire`` in ``delay`` seconds, unless cancelled first; ``name``: the timer
        replaces the one of that name still set (cancelled: it would have found its turn or
        generation gone and done nothing)."""
        loop = asyncio.get_running_loop()
        if name is not None:
            older = self._named.pop(name, None)
            if older is not None:
                older.cancel()
                self._handles.discard(older)

        def run() -> None:
            self._handles.discard(handle)
            if name is not None and self._named.get(name) is handle:
                del self._named[name]
            fire()

        handle = loop.call_later(delay, run)
        self._handles.add(handle)
        if name is not None:
            self._named[name] = handle

    def due(self, seq: int) -> bool:
        """Marks the computer as due for the turn that began at ``seq``: True if it was not
        already (the caller sets the timer)."""
        if self.computer_due == seq:
            return False
        self.computer_due = seq
        return True

    def watch_stall(self, seq: int) -> bool:
        """Marks the turn that began at ``seq`` as watched for a stall: True if it was not
        already (the caller sets the timer)."""
        if self.stall_due == seq:
            return False
        self.stall_due = seq
        return True

    def next_idle(self) -> int:
        """A new generation of the idle check (an older check does nothing)."""
        self.idle += 1
        return self.idle

    def next_handoff(self) -> int:
        """A new generation of the hand-off check (an older check does nothing)."""
        self.handoff += 1
        return self.handoff

    def think(self, decision: Coroutine[Any, Any, None]) -> None:
        """Runs the computer's decision beside the room's loop."""
        self._thinking = asyncio.get_running_loop().create_task(decision)

    def thinking(self) -> asyncio.Task[None] | None:
        """The computer's decision, while it is being made (None: none is)."""
        task = self._thinking
        return task if task is not None and not task.done() else None

    def cancel(self) -> None:
        """Every timer and the computer's decision: the room stops."""
        for handle in self._handles:
            handle.cancel()
        self._handles.clear()
        self._named.clear()
        if self._thinking is not None:
            self._thinking.cancel()
