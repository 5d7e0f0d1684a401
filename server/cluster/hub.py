"""The hub: frames from a room's owner to the sockets that listen to the room, keyed by
room, channel (a seat, or the room's watchers) and connection id (strings, no object
identity), so that a Redis implementation can sit behind the same interface when the owner
and the socket live in different processes (``RedisHub``, server/cluster/redis_hub.py).

The receiving side registers a ``Sink`` for each open connection it holds; the room
publishes to ``(room, channel, connection id)``: a seat (0 or 1) or ``WATCHERS``.
"""

from __future__ import annotations

from typing import Protocol

WATCHERS = 2  # the channel of a room's watchers (its seats are channels 0 and 1)


class Sink(Protocol):
    """One open connection. Both methods return at once (they only queue)."""

    def deliver(self, text: str) -> None: ...

    def close(self, code: int) -> None: ...


class Hub(Protocol):
    def register(self, room_id: str, channel: int, conn: str, sink: Sink) -> None:
        """The connection ``conn`` of this process listens to the channel."""
        ...

    def unregister(self, room_id: str, channel: int, conn: str) -> None: ...

    def local_rooms(self) -> set[str]:
        """The rooms this process holds sockets of."""
        ...

    def close_room(self, room_id: str, text: str, code: int) -> None:
        """Sends ``text`` to the sockets held here of room ``room_id`` and closes them."""
        ...

    async def publish(
        self, room_id: str, channel: int, conn: str, text: str, close: int | None = None
    ) -> None:
        """Sends ``text`` to that connection (then closes it with ``close``, if given);
        frames to one connection arrive in the order they were published. A connection
        that is gone drops them."""
        ...


class LocalHub:
    """The ``Hub`` of one process: its own sockets."""

    def __init__(self) -> None:
        self._sinks: dict[tuple[str, int, str], Sink] = {}

    def register(self, room_id: str, channel: int, conn: str, sink: Sink) -> None:
        self._sinks[(room_id, channel, conn)] = sink

    def unregister(self, room_id: str, channel: int, conn: str) -> None:
        self._sinks.pop((room_id, channel, conn), None)

    async def publish(
        self, room_id: str, channel: int, conn: str, text: str, close: int | None = None
    ) -> None:
        self.deliver(room_id, channel, conn, text, close)

    def deliver(
        self, room_id: str, channel: int, conn: str, text: str, close: int | None = None
    ) -> None:
        """To a connection of this process (dropped if it is gone)."""
        sink = self._sinks.get((room_id, channel, conn))
        if sink is None:
            return
        sink.deliver(text)
        if close is not None:
            sink.close(close)

    def local_rooms(self) -> set[str]:
        return {room for room, _, _ in self._sinks}

    def close_room(self, room_id: str, text: str, code: int) -> None:
        for (room, _, _), sink in list(self._sinks.items()):
            if room == room_id:
                sink.deliver(text)
                sink.close(code)

    def __len__(self) -> int:
        return len(self._sinks)
