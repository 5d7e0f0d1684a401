"""Who listens to a room: each seat's open connection, the watchers' connections, the
presence each seat was last told of, and the limits on what a seat's sockets may send
(hellos, reactions). Connection ids only (the sockets themselves live wherever their
process is: the hub carries frames to them); held in the owner's memory, never stored.
One value of the room's actor (``actor.Room.sockets``), changed by its own methods.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ..window import SlidingWindow

HELLO_WINDOW = 10.0  # seconds
HELLO_LIMIT = 12  # hellos per seat in a window: a reconnect loop cannot flood the other seat
REACTION_WINDOW = 10.0  # seconds
REACTION_LIMIT = 5  # reactions per seat in a window


class Sockets:
    __slots__ = ("_conns", "_count_due", "_hellos", "_reactions", "_told", "_watchers")

    def __init__(self, seat_count: int) -> None:
        self._conns: list[str | None] = [None] * seat_count  # each seat's open connection
        self._watchers: dict[str, None] = {}  # watchers' connection ids, in arrival order
        self._told: list[dict[str, Any] | None] = [None] * seat_count  # presence last told
        self._hellos = [SlidingWindow(HELLO_LIMIT, HELLO_WINDOW) for _ in range(seat_count)]
        self._reactions = [
            SlidingWindow(REACTION_LIMIT, REACTION_WINDOW) for _ in range(seat_count)
        ]
        self._count_due = False  # the watchers' count is to be told (a timer is set)

    # -- seats ---------------------------------------------------------------------------

    def of(self, seat: int) -> str | None:
        """The seat's open connection (None: nobody's socket is open on it)."""
        return self._conns[seat]

    def seated(self) -> Iterator[tuple[int, str]]:
        """(seat, connection) of every seat with an open socket."""
        for seat, conn in enumerate(self._conns):
            if conn is not None:
                yield seat, conn

    def hello_allowed(self, seat: int) -> bool:
        """Counts a hello of the seat, if it is within ``HELLO_LIMIT`` a window."""
        return self._hellos[seat].allow()

    def reaction_allowed(self, seat: int) -> bool:
        """Counts a reaction of the seat, if it is within ``REACTION_LIMIT`` a window."""
        return self._reactions[seat].allow()

    def attach(self, seat: int, conn: str) -> None:
        self._conns[seat] = conn

    def detach(self, seat: int, conn: str | None = None) -> bool:
        """The seat's connection closed (``conn``: only if it is still that one)."""
        if conn is not None and self._conns[seat] != conn:
            return False
        self._conns[seat] = None
        return True

    def told(self, seat: int) -> dict[str, Any] | None:
        return self._told[seat]

    def tell(self, seat: int, presence: dict[str, Any]) -> None:
        """``presence`` is what the others know of the seat now."""
        self._told[seat] = presence

    # -- watchers ------------------------------------------------------------------------

    def watchers(self) -> list[str]:
        return list(self._watchers)

    def watcher_count(self) -> int:
        return len(self._watchers)

    def watching(self, conn: str) -> bool:
        return conn in self._watchers

    def watch(self, conn: str) -> None:
        self._watchers[conn] = None

    def unwatch(self, conn: str) -> bool:
        """The watcher left (False: it was not watching)."""
        if conn not in self._watchers:
            return False
        del self._watchers[conn]
        return True

    def clear_watchers(self) -> None:
        self._watchers.clear()

    def count_due(self) -> bool:
        """The watchers' count is to be told: True if it was not already due (the caller
        sets the timer that tells it)."""
        if self._count_due:
            return False
        self._count_due = True
        return True

    def count_told(self) -> None:
        self._count_due = False

    # -- all -----------------------------------------------------------------------------

    def listened(self) -> bool:
        """Some seat or watcher has a socket open."""
        return bool(self._watchers) or any(c is not None for c in self._conns)

    def connections(self) -> list[str]:
        """Every open connection, the seats' first."""
        return [*(c for c in self._conns if c is not None), *self._watchers]
