"""When a push goes: the room tells the ``Notifier`` of an event for a seat whose player has
no open socket (``tell``: it returns at once, and nothing of it can delay or fail a move),
and the notifier, beside the rooms:

1. claims the seat's push for that event in the database (``PushStore.claim``): at most one
   push per event and one per seat every ``PUSH_EVERY``, whichever process asks, so a
   failover may miss a push but never double it;
2. words it in the seat's language (``texts.push_text``) and has the ``Sender`` post it, off
   the event loop, within ``PUSH_TIMEOUT``;
3. drops the subscription when the push service says it is gone (404, 410).

A push held back only by ``PUSH_EVERY`` is not lost: it waits for the end of the seat's
window and goes then, if the room's owner is still this process, nothing happened in the
room since (its seq) and the seat is still not connected. Only the room's owner sends: the
room tells while it holds the room, and the notifier asks ``holds`` again before each claim.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from typing import Any

from ..store import PushStore
from .sender import Outcome, Sender
from .texts import Kind, language, push_text

log = logging.getLogger("server.push")

TTL = 86400  # seconds a push service keeps a push for a device that is off: a turn waits days
MAX_WAITING = 1000  # pushes under way at once; more are dropped (counted), never queued


@dataclass(frozen=True, slots=True)
class PushEvent:
    """Something ``seat``'s player should hear of in room ``room_id``: ``kind`` (the turn is
    theirs, the invited friend came, a rematch is offered) at the room's ``seq``, told by
    the copy of the room that holds it at ``epoch``; ``name``: the other player's as they
    gave it, None for a seat nobody named (worded from the catalog in the seat's language:
    "Player 2", "the computer": ``about`` is that seat, ``computer`` whether it is the
    computer's chair)."""

    room_id: str
    seat: int
    kind: Kind  # "turn" | "join" | "rematch"
    seq: int
    epoch: int
    name: str | None
    about: int = 0
    computer: bool = False

    @property
    def key(self) -> str:
        """The event's identity: one push at most per key and seat."""
        return f"{self.kind}:{self.seq}"


@dataclass
class PushCounts:
    """What the pushes of this process did (read by /metrics)."""

    outcomes: dict[str, int] = field(default_factory=lambda: {o.value: 0 for o in Outcome})
    dropped: int = 0  # too many under way
    deferred: int = 0  # held back by PUSH_EVERY, to go at its end


class Notifier:
    """The rooms' way to push (``RoomDeps.push``). ``clock``: the database's time (every
    process reads it alike); ``holds(room, epoch)``: this process still owns the room."""

    def __init__(
        self,
        store: PushStore,
        sender: Sender,
        every: float,
        clock: Callable[[], float],
        holds: Callable[[str, int], bool],
    ) -> None:
        self.store = store
        self.sender = sender
        self.every = every
        self.clock = clock
        self.holds = holds
        self.counts = PushCounts()
        self._tasks: set[asyncio.Task[None]] = set()
        self._later: dict[tuple[str, int], asyncio.TimerHandle] = {}
        self._closed = False

    @property
    def under_way(self) -> int:
        """Pushes being claimed or posted right now (not those held for later)."""
        return len(self._tasks)

    def tell(self, event: PushEvent) -> None:
        """A push for ``event``, if the seat has a subscription and may get one now (or at
        the end of its PUSH_EVERY). Returns at once."""
        waiting = self._later.pop((event.room_id, event.seat), None)
        if waiting is not None:  # a newer event of the seat replaces the one held back
            waiting.cancel()
        self._start(self._push(event, deferred=False))

    def _start(self, work: Coroutine[Any, Any, None]) -> None:
        if self._closed or len(self._tasks) >= MAX_WAITING:
            self.counts.dropped += 1
            work.close()
            return
        task = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _push(self, event: PushEvent, *, deferred: bool) -> None:
        try:
            await self._claim_and_send(event, deferred)
        except Exception as exc:  # the database is away, a bug: a push lost, nothing else
            log.warning("push for room %s not sent: %r", event.room_id, exc)
            self.counts.outcomes[Outcome.FAILED.value] += 1

    async def _claim_and_send(self, event: PushEvent, deferred: bool) -> None:
        if not self.holds(event.room_id, event.epoch):
            return  # another process owns the room now: it tells what happens next
        if deferred:
            now = await self.store.pending(event.room_id, event.seat)
            if now is None or now.seq != event.seq or now.here:
                return  # the game moved on, or the player came back: nothing to say
        if not await self.store.has(event.room_id, event.seat):
            return  # no subscription: nothing to claim (a read, not a write)
        claimed = await self.store.claim(
            event.room_id, event.seat, event.key, self.clock(), self.every
        )
        if claimed.to is None:
            if claimed.retry_at is not None:
                self._defer(event, claimed.retry_at - self.clock())
            return
        title, body = push_text(
            event.kind, event.name, claimed.lang, seat=event.about, computer=event.computer
        )
        payload = json.dumps(
            {
                "title": title,
                "body": body,
                "lang": language(claimed.lang),  # the words' language (the notification's)
                "kind": event.kind,
                "room": event.room_id,
                "tag": f"casino-{event.room_id}",  # one notification per game, replaced
                "url": f"/?partida={event.room_id}",
            },
            ensure_ascii=False,
        )
        outcome = await self.sender.send(claimed.to, payload, topic=event.room_id, ttl=TTL)
        self.counts.outcomes[outcome.value] += 1
        if outcome is Outcome.GONE:
            await self.store.gone(claimed.token_hash, claimed.to.endpoint)

    def _defer(self, event: PushEvent, delay: float) -> None:
        key = (event.room_id, event.seat)
        if self._closed:
            return
        older = self._later.pop(key, None)
        if older is not None:
            older.cancel()
        self.counts.deferred += 1

        def fire() -> None:
            self._later.pop(key, None)
            self._start(self._push(event, deferred=True))

        self._later[key] = asyncio.get_running_loop().call_later(max(0.0, delay) + 0.05, fire)

    async def close(self) -> None:
        """Stops: nothing more is sent; pushes under way get a moment to finish."""
        self._closed = True
        for handle in self._later.values():
            handle.cancel()
        self._later.clear()
        if self._tasks:
            await asyncio.wait(list(self._tasks), timeout=2)
        self.sender.close()
