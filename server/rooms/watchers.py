"""Watchers and reactions: a watcher's socket comes (``watch``, up to ``MAX_WATCHERS``) and
goes (``unwatch``); the seats and the watchers are told how many watch, once for all the
changes of half a second; a seat's quick reaction goes to the other seats and the
watchers.
Neither is stored."""

from __future__ import annotations

from ..cluster import WATCHERS
from ..protocol import (
    ProtocolError,
    Reaction,
    Watchers,
    Watching,
    encode,
    watchers_full,
)
from . import presence, views
from .actor import Room
from .commands import TellWatchers

WATCHERS_TELL_DELAY = 0.5  # seconds: watchers coming and going within it are told once


async def watch(room: Room, conn: str, since: int | None) -> bool:
    sockets = room.sockets
    if not sockets.watching(conn):
        cap = room.deps.settings.max_watchers
        if sockets.watcher_count() >= cap:
            raise watchers_full(cap)
        sockets.watch(conn)
    room.timers.next_idle()
    view = views.watcher_view(room.moment())
    welcome = Watching(room.id, room.state.seq, view, await room.events_since(since))
    await room.deps.hub.publish(room.id, WATCHERS, conn, encode(welcome))
    changed(room)
    return True


async def unwatch(room: Room, conn: str) -> None:
    if room.sockets.unwatch(conn):
        changed(room)
        presence.idle_later(room)


def changed(room: Room) -> None:
    """The count is told ``WATCHERS_TELL_DELAY`` later, once for all the changes meanwhile:
    a crowd arriving (or a link opened in a loop) is a few frames to the players, not one
    per socket."""
    if room.sockets.count_due():
        room.after(WATCHERS_TELL_DELAY, TellWatchers())


async def tell_count(room: Room) -> None:
    """Tells the count after changes, even when it is back to the count last told: a
    listener may have learned another one meanwhile from a view of its own (a seat's
    welcome, a watcher's ``watching``, a move's frame), and only this frame corrects it."""
    room.sockets.count_told()
    message = Watchers(room.sockets.watcher_count())
    for seat, _ in list(room.sockets.seated()):
        await room.send(seat, message)
    await room.tell_watchers(encode(message))


async def react(room: Room, seat: int, reaction: str) -> None:
    """Shows a seat's reaction to the other seats and the watchers (not to the sender: its
    own page shows it already; never stored). At most ``REACTION_LIMIT`` per seat in
    ``REACTION_WINDOW`` seconds (``sockets.py``)."""
    if not room.sockets.reaction_allowed(seat):
        raise ProtocolError("rate_limited", "error.rate_limited.reactions")
    message = Reaction(seat, reaction)
    await room.send_others(seat, message)
    await room.tell_watchers(encode(message))
