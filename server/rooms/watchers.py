"""Watchers and reactions: a watcher's socket comes (``watch``, up to ``MAX_WATCHERS``) and
goes (``unwatch``); the seats and the watchers are told how many watch, once for all the
changes of half a second; a seat's quick reaction goes to the other seat and the watchers.
Neither is stored."""

from __future__ import annotations

import time

from ..cluster import WATCHERS
from ..protocol import (
    REACTIONS_LIMITED_ES,
    ProtocolError,
    Reaction,
    Watchers,
    Watching,
    encode,
    watchers_full,
)
from . import seats, views
from .actor import Room
from .commands import TellWatchers

WATCHERS_TELL_DELAY = 0.5  # seconds: watchers coming and going within it are told once
REACTION_WINDOW = 10.0  # seconds
REACTION_LIMIT = 5  # reactions per seat in a window


async def watch(room: Room, conn: str, since: int | None) -> bool:
    if conn not in room.watchers:
        cap = room.deps.settings.max_watchers
        if len(room.watchers) >= cap:
            raise watchers_full(cap)
        room.watchers[conn] = None
    room.idle_generation += 1
    view = views.watcher_view(room.moment())
    welcome = Watching(room.id, room.state.seq, view, room.events_since(since))
    await room.deps.hub.publish(room.id, WATCHERS, conn, encode(welcome))
    changed(room)
    return True


async def unwatch(room: Room, conn: str) -> None:
    if conn in room.watchers:
        del room.watchers[conn]
        changed(room)
        seats.idle_later(room)


def changed(room: Room) -> None:
    """The count is told ``WATCHERS_TELL_DELAY`` later, once for all the changes meanwhile:
    a crowd arriving (or a link opened in a loop) is a few frames to the players, not one
    per socket."""
    if not room.tell_due:
        room.tell_due = True
        room.after(WATCHERS_TELL_DELAY, TellWatchers())


async def tell_count(room: Room) -> None:
    """Tells the count after changes, even when it is back to the count last told: a
    listener may have learned another one meanwhile from a view of its own (a seat's
    welcome, a watcher's ``watching``, a move's frame), and only this frame corrects it."""
    room.tell_due = False
    room.watchers_told = len(room.watchers)
    message = Watchers(len(room.watchers))
    for seat in (0, 1):
        await room.send(seat, message)
    await room.tell_watchers(encode(message))


async def react(room: Room, seat: int, reaction: str) -> None:
    """Shows a seat's reaction to the other seat and the watchers (not to the sender: its
    own page shows it already; never stored). At most ``REACTION_LIMIT`` per seat in
    ``REACTION_WINDOW`` seconds."""
    reacted = room.reacted[seat]
    now = time.monotonic()
    while reacted and reacted[0] <= now - REACTION_WINDOW:
        reacted.popleft()
    if len(reacted) >= REACTION_LIMIT:
        raise ProtocolError("rate_limited", REACTIONS_LIMITED_ES)
    reacted.append(now)
    message = Reaction(seat, reaction)
    await room.send(1 - seat, message)
    await room.tell_watchers(encode(message))
