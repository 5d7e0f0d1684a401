"""Several server processes on one database: who this process is, how a room command
travels to the process that owns the room, and the lease that keeps a process's rooms its
own.

- **Ownership.** Each live room has one owner process at a time (``rooms.owner``). A
  process takes a room that nobody holds, or whose owner's lease has lapsed, by bumping the
  room's ``epoch`` (``Storage.claim_room``); every write of the room is conditional on that
  epoch, so a process that lost the room can never write it again (fencing), even for a
  moment after the lease changed hands. The lease is one row per process in ``nodes``,
  renewed every third of ``LEASE_SECONDS``: it lives in the same database that fences the
  writes, survives a Redis restart, and costs one statement per process (not per room).
- **Routing.** A seat's socket may be on any process. Its commands reach the owner through
  ``Peers.call`` (Redis, server/redis_hub.py); the owner's frames reach the socket through
  the hub, addressed by connection id, whose prefix names the process holding the socket.
- **A process dies.** Its lease lapses after ``LEASE_SECONDS``; the sockets it held
  reconnect to other processes, and the first command for each of its rooms takes the room
  there (timers move with it: they are the room's own commands). Sockets on other processes
  attached to a room of the dead process are closed with ``reconnecting`` by their own
  process when it sees the lease lapse, and reconnect and resume from ``since``.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import secrets
import socket
import time
from collections.abc import Callable
from functools import cache
from typing import TYPE_CHECKING, Any, Protocol, get_type_hints

from redis.exceptions import RedisError
from sqlalchemy.exc import DBAPIError, InterfaceError, OperationalError

from .engine import Move
from .protocol import ProtocolError
from .storage import RejoinCode, RejoinError

if TYPE_CHECKING:
    from .rooms import Command, RoomRegistry

log = logging.getLogger("server.cluster")

CONN_SEPARATOR = "/"  # a connection id is "<node>/<random>"


def new_node_id(name: str = "") -> str:
    """This process's id: a readable name (the host's by default) and a random part, so a
    restarted process is a new node and never mistakes the old one's rooms for its own."""
    base = "".join(c for c in (name or socket.gethostname()) if c.isalnum() or c in "-_.")
    return f"{base[:40] or 'node'}-{secrets.token_hex(4)}"


def new_conn_id(node: str) -> str:
    return f"{node}{CONN_SEPARATOR}{secrets.token_hex(8)}"


def node_of(conn: str) -> str:
    """The process that holds the socket of connection ``conn``."""
    return conn.rpartition(CONN_SEPARATOR)[0]


def is_outage(exc: BaseException) -> bool:
    """The database or Redis could not be reached (not a bug, not a refusal): the player is
    told the server is reconnecting, and nothing acknowledged is lost."""
    if isinstance(
        exc, (OperationalError, InterfaceError, RedisError, ConnectionError, TimeoutError, OSError)
    ):
        return True
    return isinstance(exc, DBAPIError) and exc.connection_invalidated


# -- room commands on the wire ------------------------------------------------------------


class NotOwner(Exception):
    """The process asked does not hold the room (any more): look it up again."""


class PeerGone(Exception):
    """Nobody listens on that process's channel: it is dead (or cut off from Redis)."""


@cache
def _command_types() -> dict[str, type[Any]]:
    from . import rooms

    return {cls.__name__: cls for cls in rooms.ROUTED_COMMANDS}


@cache
def _field_types(name: str) -> dict[str, Any]:
    from . import rooms

    return get_type_hints(_command_types()[name], vars(rooms))


def command_to_wire(command: Command) -> dict[str, Any]:
    """A room command as JSON-able data (its class name and fields)."""
    fields: dict[str, Any] = {}
    for f in dataclasses.fields(command):
        value = getattr(command, f.name)
        if isinstance(value, Move):
            value = value.to_text()
        elif dataclasses.is_dataclass(value) and not isinstance(value, type):
            value = dataclasses.asdict(value)
        fields[f.name] = value
    return {"type": type(command).__name__, "fields": fields}


def command_from_wire(data: dict[str, Any]) -> Command:
    cls = _command_types().get(data.get("type", ""))
    if cls is None:
        raise ValueError(f"not a routed command: {data.get('type')!r}")
    types = _field_types(cls.__name__)
    fields = dict(data["fields"])
    for name, value in fields.items():
        if types.get(name) is Move:
            fields[name] = Move.parse(value)
        elif types.get(name) is RejoinCode:
            fields[name] = RejoinCode(**value)
    command: Command = cls(**fields)
    return command


def error_to_wire(exc: BaseException) -> list[str]:
    if isinstance(exc, NotOwner):
        return ["not_owner", ""]
    if isinstance(exc, RejoinError):
        return ["rejoin", exc.code]
    if isinstance(exc, ProtocolError):
        return ["protocol", exc.code]
    return ["protocol", "reconnecting" if is_outage(exc) else "server_error"]


def error_from_wire(error: list[str]) -> Exception:
    kind, code = error[0], error[1]
    if kind == "not_owner":
        return NotOwner()
    if kind == "rejoin":
        return RejoinError(code)
    return ProtocolError(code)


class Peers(Protocol):
    """Room commands to the process that owns the room."""

    async def call(self, node: str, room_id: str, command: Command, timeout: float) -> Any:
        """``command``'s answer from ``node``'s room; raises what the room raised, NotOwner,
        PeerGone, or ``ProtocolError("reconnecting")`` when the way there is down."""
        ...


# -- the lease ------------------------------------------------------------------------------


class Lease:
    """This process's lease on its rooms, renewed in the database every third of
    ``lease_seconds``. Each renewal also reads which processes are alive, and the registry
    sweeps by it (sockets of dead processes leave their rooms; sockets here whose room's
    owner died reconnect). A process that could not renew for a whole lease stops its rooms
    (another process may hold them by now) until it renews again."""

    def __init__(
        self, registry: RoomRegistry, lease_seconds: float, clock: Callable[[], float] = time.time
    ) -> None:
        self.registry = registry
        self.lease_seconds = lease_seconds
        self.clock = clock
        self.started_at = clock()
        self.renewed_at = 0.0
        self.live: frozenset[str] = frozenset()
        self._failing = False

    @property
    def held(self) -> bool:
        return self.clock() < self.renewed_at + self.lease_seconds

    async def renew(self) -> None:
        registry = self.registry
        storage = registry.deps.storage
        now = self.clock()
        await storage.renew_node(registry.node, now + self.lease_seconds, self.started_at)
        self.renewed_at = now
        self.live = await storage.live_nodes(now) | {registry.node}
        if self._failing:
            log.warning("lease of %s renewed again", registry.node)
            self._failing = False

    async def run(self) -> None:
        while True:
            try:
                await self.renew()
                self.registry.sweep(self.live)
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                if not self._failing:
                    log.warning(
                        "cannot renew the lease of %s: %s",
                        self.registry.node,
                        exc if is_outage(exc) else repr(exc),
                    )
                    self._failing = True
                if not self.held:
                    self.registry.drop_all()
            await asyncio.sleep(self.lease_seconds / 3)


__all__ = [
    "Lease",
    "NotOwner",
    "PeerGone",
    "Peers",
    "command_from_wire",
    "command_to_wire",
    "error_from_wire",
    "error_to_wire",
    "is_outage",
    "new_conn_id",
    "new_node_id",
    "node_of",
]
