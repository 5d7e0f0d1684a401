"""A room moves to the process its sockets land on. With the balancer's hash on the room
(deploy/haproxy.cfg), both seats and the watchers of a room reach one process, which claims
the room; when that process changes (a process added, the balancer's view changed), the
room's sockets land on another process and its frames cross Redis. At its next quiet
moment (no command for ``QUIET`` seconds, nothing due from the computer) a room whose
listeners are all on one other process lets it go: it is released, its sockets are told to
reconnect, and they find it there. The Redis path serves the moments in between. A room an
HTTP call claimed (a join) and no socket listens to is released at once."""

from __future__ import annotations

import logging

from ..cluster import node_of
from .actor import Room
from .commands import HandoffCheck
from .play import computer_level
from .stops import HANDOFF, UNHEARD

log = logging.getLogger(__name__)

QUIET = 1.0  # seconds without a command before a room moves


def listeners_elsewhere(room: Room) -> str | None:
    """The one other process that holds every socket of the room (None: a socket is here,
    there is none, or they are on several processes)."""
    nodes = {node_of(conn) for conn in room.sockets.connections()}
    if len(nodes) != 1:
        return None
    (node,) = nodes
    return None if node == room.deps.lease.node else node


async def release_unheard(room: Room) -> None:
    """After a command that came over HTTP (a friend joining, a seat moving to another
    device): a room that no socket listens to is released at once, so that the process its
    sockets land on claims it, rather than the one the HTTP request happened to reach."""
    if room.deps.shared and not room.stopped and not room.listened():
        await room.deps.stop(room, UNHEARD)


def schedule(room: Room) -> None:
    """After each command: a room whose listeners are all elsewhere is looked at again once
    it has been quiet."""
    if room.stopped or not room.deps.shared or listeners_elsewhere(room) is None:
        return
    room.after(QUIET, HandoffCheck(room.timers.next_handoff()), "handoff")


async def check(room: Room, generation: int) -> None:
    if generation != room.timers.handoff or listeners_elsewhere(room) is None:
        return  # a command came meanwhile (not quiet), or a listener is here now
    if computer_level(room) is not None or room.timers.thinking() is not None:
        return  # the computer is due: the next quiet moment will do
    log.info("room %s moves to %s, where its sockets are", room.id, listeners_elsewhere(room))
    # released: nobody's, the other process claims it at once; its sockets go there
    await room.deps.stop(room, HANDOFF)
