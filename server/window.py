"""THE sliding-window limit: at most ``limit`` events in any ``window`` seconds, on the
monotonic clock (a wall clock that is set, or a database's that is read again, never moves
it). A seat's hellos, a seat's reactions, an address's requests and the whole server's wrong
codes are each one ``SlidingWindow``; the edge keeps one per address
(``server/edge/limits.py``). Nothing of ours below it: every layer may use it.
"""

from __future__ import annotations

import time
from collections.abc import Callable

Clock = Callable[[], float]


class SlidingWindow:
    __slots__ = ("clock", "hits", "limit", "window")

    def __init__(self, limit: int, window: float, *, clock: Clock = time.monotonic) -> None:
        self.limit = limit
        self.window = window
        self.clock = clock
        # the events still in the window, oldest first (a list: an empty one is 56 bytes, a
        # deque 624, and every seat of every room has its windows)
        self.hits: list[float] = []

    def _prune(self) -> float:
        now = self.clock()
        cutoff = now - self.window
        hits = self.hits
        gone = 0
        while gone < len(hits) and hits[gone] <= cutoff:
            gone += 1
        if gone:
            del hits[:gone]
        return now

    def allow(self) -> bool:
        """Counts one event if the window has room for it; False (nothing counted) if not."""
        now = self._prune()
        if len(self.hits) >= self.limit:
            return False
        self.hits.append(now)
        return True

    def has_room(self, limit: int | None = None) -> bool:
        """Whether fewer than ``limit`` events (by default the window's own) are in the
        window, counting nothing."""
        self._prune()
        return len(self.hits) < (self.limit if limit is None else limit)

    def charge(self) -> None:
        """Counts one event that happened anyway (a failure), up to the limit."""
        now = self._prune()
        if len(self.hits) < self.limit:
            self.hits.append(now)

    def last(self) -> float | None:
        """When the latest event in the window happened (None: the window is empty)."""
        return self.hits[-1] if self.hits else None
