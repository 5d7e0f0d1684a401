"""The one-reader queue of rooms and sockets (server/inbox.py): first in, first out, a
waiting reader woken by a put, a cancelled wait that loses nothing, and a long backlog let
go as it is taken."""

from __future__ import annotations

import asyncio
import sys

import pytest

from server.inbox import Inbox


async def test_first_in_first_out_and_a_waiting_reader_is_woken() -> None:
    inbox: Inbox[int] = Inbox()
    assert inbox.empty() and inbox.qsize() == 0
    reader = asyncio.create_task(inbox.get())
    await asyncio.sleep(0)  # the reader waits
    assert not reader.done()
    inbox.put_nowait(1)
    inbox.put_nowait(2)
    assert await reader == 1
    assert inbox.qsize() == 1 and await inbox.get() == 2
    assert inbox.empty()
    with pytest.raises(asyncio.QueueEmpty):
        inbox.get_nowait()


async def test_a_cancelled_wait_loses_nothing_and_a_second_reader_is_refused() -> None:
    inbox: Inbox[str] = Inbox()
    first = asyncio.create_task(inbox.get())
    await asyncio.sleep(0)
    with pytest.raises(RuntimeError):
        await inbox.get()  # one reader at a time
    first.cancel()
    with pytest.raises(asyncio.CancelledError):
        await first
    inbox.put_nowait("a")  # nobody waits: it stays
    assert await inbox.get() == "a"


async def test_a_long_backlog_comes_out_in_order_and_is_let_go() -> None:
    inbox: Inbox[int] = Inbox()
    for i in range(1000):
        inbox.put_nowait(i)
    taken = [inbox.get_nowait() for _ in range(700)]
    assert taken == list(range(700)) and inbox.qsize() == 300
    assert len(inbox._items) < 1000  # the taken part was let go on the way
    for i in range(1000, 1100):
        inbox.put_nowait(i)
    rest = [await inbox.get() for _ in range(400)]
    assert rest == list(range(700, 1100)) and inbox.empty()


def test_an_empty_inbox_holds_under_200_bytes() -> None:
    inbox: Inbox[int] = Inbox()
    size = sys.getsizeof(inbox) + sys.getsizeof(inbox._items)
    assert size < 200
