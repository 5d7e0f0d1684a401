"""THE way to tell sockets to reconnect (``reconnecting``, close code 1012): they come back
at once, find the room's owner afresh and resume from their last seq, so nothing they were
told is lost or doubled. For the sockets this process holds (``here``: of one room, or all
of them) and for one connection wherever it is (``one``: through the hub). A room's own
listeners, wherever they are, are told by ``Room.close_all``."""

from __future__ import annotations

from ..cluster import Hub
from ..protocol import CLOSE_RECONNECT, ProtocolError


def text() -> str:
    return ProtocolError("reconnecting").to_text()


def here(hub: Hub, room_id: str | None = None, *, attached_only: bool = False) -> None:
    """The sockets held here of room ``room_id`` (None: of every room) reconnect
    (``attached_only``: those a room attached, not those still saying hello)."""
    if room_id is None:
        hub.close_all(text(), CLOSE_RECONNECT)
    else:
        hub.close_room(room_id, text(), CLOSE_RECONNECT, attached_only=attached_only)


async def one(hub: Hub, room_id: str, channel: int, conn: str) -> None:
    """The connection ``conn`` (of a seat, or a watcher) reconnects, wherever it is."""
    await hub.publish(room_id, channel, conn, text(), close=CLOSE_RECONNECT)
