"""The hub: frames from a room's owner to the sockets that listen to the room, keyed by
room, channel (a seat, or the room's watchers) and connection id (strings, no object
identity), so that a Redis implementation can sit behind the same interface when the owner
and the socket live in different processes (``RedisHub``, server/cluster/redis_hub.py).

The receiving side registers a ``Sink`` for each open connection it holds; the room
publishes to ``(room, channel, connection id)``: a seat (0, 1, ...) or ``WATCHERS``.
"""

from __future__ import annotations

from typing import Protocol

# the channel of a room's watchers: no seat's number, however many seats a room has (until
# the release of four-seat rooms it was 2: during a rolling deploy from an older release, a
# watcher whose room lives on an older process misses its frames until it watches again)
WATCHERS = -1


class Sink(Protocol):
    """One open connection. Both methods return at once (they only queue)."""

    def deliver(self, text: str) -> None: ...

    def close(self, code: int) -> None: ...


class Hub(Protocol):
    @property
    def healthy(self) -> bool:
        """Frames and calls reach the other processes (always, for one process)."""
        ...

    def register(self, room_id: str, channel: int, conn: str, sink: Sink) -> None:
        """The connection ``conn`` of this process listens to the channel (from its hello
        on: frames may come before the room answers it)."""
        ...

    def attached(self, room_id: str, channel: int, conn: str) -> None:
        """The room attached the connection ``conn`` (its hello was answered)."""
        ...

    def unregister(self, room_id: str, channel: int, conn: str) -> None: ...

    def local_rooms(self) -> set[str]:
        """The rooms this process holds sockets of."""
        ...

    def close_room(
        self, room_id: str, text: str, code: int, *, attached_only: bool = False
    ) -> None:
        """Sends ``text`` to the sockets held here of room ``room_id`` and closes them
        (``attached_only``: those a room attached, not those still saying hello)."""
        ...

    def close_all(self, text: str, code: int) -> None:
        """Sends ``text`` to every socket held here and closes it."""
        ...

    async def publish(
        self, room_id: str, channel: int, conn: str, text: str, close: int | None = None
    ) -> None:
        """Sends ``text`` to that connection (then closes it with ``close``, if given);
        frames to one connection arrive in the order they were published. A connection
        that is gone drops them."""
        ...


class LocalHub:
    """The ``Hub`` of one process: its own sockets, by room."""

    def __init__(self) -> None:
        self._rooms: dict[str, dict[tuple[int, str], Sink]] = {}
        self._attached: set[str] = set()
        self.delivered = 0  # frames handed to this process's sockets (read by /metrics)

    @property
    def healthy(self) -> bool:
        return True

    def register(self, room_id: str, channel: int, conn: str, sink: Sink) -> None:
        self._rooms.setdefault(room_id, {})[(channel, conn)] = sink

    def attached(self, room_id: str, channel: int, conn: str) -> None:
        if (channel, conn) in self._rooms.get(room_id, {}):
            self._attached.add(conn)

    def unregister(self, room_id: str, channel: int, conn: str) -> None:
        sinks = self._rooms.get(room_id)
        if sinks is not None:
            sinks.pop((channel, conn), None)
            if not sinks:
                del self._rooms[room_id]
        self._attached.discard(conn)

    async def publish(
        self, room_id: str, channel: int, conn: str, text: str, close: int | None = None
    ) -> None:
        self.deliver(room_id, channel, conn, text, close)

    def deliver(
        self, room_id: str, channel: int, conn: str, text: str, close: int | None = None
    ) -> None:
        """To a connection of this process (dropped if it is gone)."""
        sink = self._rooms.get(room_id, {}).get((channel, conn))
        if sink is None:
            return
        self.delivered += 1
        sink.deliver(text)
        if close is not None:
            sink.close(close)

    def local_rooms(self) -> set[str]:
        return set(self._rooms)

    def close_room(
        self, room_id: str, text: str, code: int, *, attached_only: bool = False
    ) -> None:
        for (_, conn), sink in list(self._rooms.get(room_id, {}).items()):
            if attached_only and conn not in self._attached:
                continue
            sink.deliver(text)
            sink.close(code)

    def close_all(self, text: str, code: int) -> None:
        for room_id in list(self._rooms):
            self.close_room(room_id, text, code)

    def __len__(self) -> int:
        return sum(len(sinks) for sinks in self._rooms.values())
