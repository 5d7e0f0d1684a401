"""Fan-out behind one small interface: who is listening to each seat of each room, and
delivering text frames to them. ``LocalHub`` keeps it in this process; a Redis hub (pub/sub
channel per room seat) would implement the same ``Fanout`` when there is more than one
server process.
"""

from __future__ import annotations

from typing import Protocol


class Subscriber(Protocol):
    """One open connection. Both methods return at once (they only queue)."""

    def deliver(self, text: str) -> None: ...

    def close(self, code: int) -> None: ...


class Fanout(Protocol):
    def subscribe(self, room_id: str, seat: int, sub: Subscriber) -> Subscriber | None:
        """Makes ``sub`` the seat's connection; returns the one it replaced, if any."""
        ...

    def unsubscribe(self, room_id: str, seat: int, sub: Subscriber) -> bool:
        """Removes ``sub`` if it is still the seat's connection (True then)."""
        ...

    def publish(self, room_id: str, seat: int, text: str) -> bool:
        """Sends ``text`` to the seat's connection; False when nobody listens."""
        ...

    def listening(self, room_id: str, seat: int) -> bool: ...

    def disconnect(self, room_id: str, seat: int, text: str, code: int) -> bool:
        """Sends ``text`` to the seat's connection, closes it and forgets it."""
        ...


class LocalHub:
    """In-process ``Fanout``: one connection per room seat."""

    def __init__(self) -> None:
        self._subs: dict[tuple[str, int], Subscriber] = {}

    def subscribe(self, room_id: str, seat: int, sub: Subscriber) -> Subscriber | None:
        old = self._subs.get((room_id, seat))
        self._subs[(room_id, seat)] = sub
        return old if old is not sub else None

    def unsubscribe(self, room_id: str, seat: int, sub: Subscriber) -> bool:
        if self._subs.get((room_id, seat)) is sub:
            del self._subs[(room_id, seat)]
            return True
        return False

    def publish(self, room_id: str, seat: int, text: str) -> bool:
        sub = self._subs.get((room_id, seat))
        if sub is None:
            return False
        sub.deliver(text)
        return True

    def listening(self, room_id: str, seat: int) -> bool:
        return (room_id, seat) in self._subs

    def disconnect(self, room_id: str, seat: int, text: str, code: int) -> bool:
        sub = self._subs.pop((room_id, seat), None)
        if sub is None:
            return False
        sub.deliver(text)
        sub.close(code)
        return True

    def __len__(self) -> int:
        return len(self._subs)
