"""Room commands to the process that owns the room (``Peers``), and the errors their answers
may carry, as they travel between processes.

The cluster knows nothing of rooms: a command is an opaque JSON-able payload (the rooms
layer encodes and decodes it, server/rooms/commands.py), and so is its answer.

An error travels as ``[kind, code, message, id, reason]``: ``kind`` is ``protocol`` (a
``ProtocolError``), ``rejoin`` (a ``RejoinError``) or ``not_owner``. The message and the id
travel with it (the Spanish text a room chose, the id of the message it answers, the
engine's reason); a process
reads the first two fields alone from an older process, which sent only those, and an older
process reads the first two of ours, so a rolling deploy mixes both.
"""

from __future__ import annotations

from typing import Any, Protocol

from ..protocol import ProtocolError
from ..store import RejoinError
from .outage import is_outage

Payload = dict[str, Any]


class NotOwner(Exception):
    """The process asked does not hold the room (any more): look it up again."""


class PeerGone(Exception):
    """Nobody listens on that process's channel: it is dead (or cut off from Redis)."""


class Peers(Protocol):
    async def call(self, node: str, room_id: str, payload: Payload, timeout: float) -> Any:
        """The answer of ``node``'s room to ``payload``; raises what the room raised,
        NotOwner, PeerGone, or ``ProtocolError("reconnecting")`` when the way there is
        down."""
        ...

    def tell(self, node: str, room_id: str, payload: Payload, timeout: float) -> None:
        """``payload`` to ``node``'s room, its answer awaited by nobody (dropped by the
        receiver after ``timeout``)."""
        ...


def error_to_wire(exc: BaseException) -> list[Any]:
    if isinstance(exc, NotOwner):
        return ["not_owner", ""]
    if isinstance(exc, RejoinError):
        return ["rejoin", exc.code]
    if isinstance(exc, ProtocolError):
        return ["protocol", exc.code, exc.key, exc.id, exc.reason, exc.values, exc.said]
    return ["protocol", "reconnecting" if is_outage(exc) else "server_error"]


def error_from_wire(error: list[Any]) -> Exception:
    kind, code = str(error[0]), str(error[1])
    if kind == "not_owner":
        return NotOwner()
    if kind == "rejoin":
        return RejoinError(code)
    key = error[2] if len(error) > 2 and isinstance(error[2], str) else None
    message_id = error[3] if len(error) > 3 and isinstance(error[3], str) else None
    reason = error[4] if len(error) > 4 and isinstance(error[4], str) else None
    args = error[5] if len(error) > 5 and isinstance(error[5], dict) else None
    said = error[6] if len(error) > 6 and isinstance(error[6], str) else None
    return ProtocolError(code, key, id=message_id, reason=reason, args=args, said=said)
