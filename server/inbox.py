"""THE queue of one reader on the event loop: a room's inbox of commands, a socket's frames
to send. First in, first out, unbounded (the caller bounds it, as ``Socket.send`` does),
one task awaiting ``get`` at a time.

Why not ``asyncio.Queue``: an empty one holds four deques and an Event, 3.3 KiB, and every
room holds three (its inbox, two sockets' frames): 10 KiB of a room's memory for queues
that are nearly always empty (issue 31, ``benchmarks/soak.py --trace``). This one is a list,
an index and at most one future: about 0.1 KiB empty. Nothing of ours below it: every
layer may use it.
"""

from __future__ import annotations

import asyncio
from typing import Generic, TypeVar

T = TypeVar("T")


class Inbox(Generic[T]):
    __slots__ = ("_head", "_items", "_waiter")

    def __init__(self) -> None:
        self._items: list[T] = []
        self._head = 0  # the next item to take; the list is emptied when it is all taken
        self._waiter: asyncio.Future[None] | None = None

    def qsize(self) -> int:
        return len(self._items) - self._head

    def empty(self) -> bool:
        return self._head == len(self._items)

    def put_nowait(self, item: T) -> None:
        self._items.append(item)
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    def get_nowait(self) -> T:
        if self.empty():
            raise asyncio.QueueEmpty
        item = self._items[self._head]
        self._head += 1
        if self._head == len(self._items):
            self._items.clear()
            self._head = 0
        elif self._head >= 64 and self._head * 2 >= len(self._items):
            del self._items[: self._head]  # a long backlog: the taken part let go
            self._head = 0
        return item

    async def get(self) -> T:
        """The next item, waiting for one if need be (cancelling the wait loses nothing)."""
        while self.empty():
            if self._waiter is not None:
                raise RuntimeError("an Inbox has one reader")
            waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            self._waiter = waiter
            try:
                await waiter
            finally:
                self._waiter = None
        return self.get_nowait()
