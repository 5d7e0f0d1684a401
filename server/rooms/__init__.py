"""Live rooms. A room is an actor (``actor.Room``: one task, one inbox of typed commands,
``commands.py``) handled by ``handle.py``, which sends each command to the function of its
job (``seats``, ``play``, ``friends``, ``rematch``, ``watchers``). What anyone is told is
built by ``views.py`` (pure functions) from the facts of ``facts.py``; a room is rebuilt
from its stored log by ``history.py``. ``registry.py`` holds the rooms of this process and
``router.py`` sends each command to the room's owner, here or on another process."""

from . import reconnect
from .actor import Chooser, Room, RoomDeps, RoomStopped
from .on_cluster import RoomsOnCluster
from .registry import OwnedElsewhere, RoomRegistry
from .router import Router

__all__ = [
    "Chooser", "OwnedElsewhere", "Room", "RoomDeps", "RoomRegistry", "RoomStopped",
    "RoomsOnCluster", "Router", "reconnect",
]  # fmt: skip
