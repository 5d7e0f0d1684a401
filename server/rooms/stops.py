"""Why a room stops, as data: every way a live room leaves this process is one ``Stop``,
and ``RoomRegistry.stop(room, reason)`` is the one function that stops a room. What a reason
means is two facts:

- ``release``: the room is made nobody's at once (its lease row cleared), so any process
  may claim it without waiting: the room is all in storage and this process is done with it.
  Not after this copy failed or was deposed (its epoch may be old: the database decides who
  holds the room), nor when the lease lapsed (another process may hold it already);
- ``tell``: the error its sockets are closed with, so that they reconnect and find the room
  afresh (None: it has none, or they are told otherwise).

| reason | when | release | sockets told |
|---|---|---|---|
| ``IDLE`` | nobody has listened for ``ROOM_IDLE`` seconds | yes | (none) |
| ``UNHEARD`` | an HTTP call claimed it (a join) and no socket listens | yes | (none) |
| ``HANDOFF`` | all its listeners are on one other process (``handoff.py``) | yes | reconnecting |
| ``DEPOSED`` | another process claimed it (a newer epoch) | no | reconnecting |
| ``STALE`` | a write was refused (another copy wrote first) or failed | no | reconnecting |
| ``FAILED`` | a bug: handling a command raised | no | server_error |
| ``LAPSED`` | this process's lease lapsed (every room at once) | no | reconnecting |
| ``CUT_OFF`` | this process lost its link to the others (every room at once) | yes | reconnecting |
| ``SHUTDOWN`` | a clean stop (every room; released and told by ``shut_down``) | no | (after) |
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Stop:
    name: str
    release: bool
    tell: str | None


IDLE = Stop("idle", release=True, tell=None)
UNHEARD = Stop("unheard", release=True, tell=None)
HANDOFF = Stop("handoff", release=True, tell="reconnecting")
DEPOSED = Stop("deposed", release=False, tell="reconnecting")
STALE = Stop("stale", release=False, tell="reconnecting")
FAILED = Stop("failed", release=False, tell="server_error")
LAPSED = Stop("lapsed", release=False, tell="reconnecting")
CUT_OFF = Stop("cut_off", release=True, tell="reconnecting")
SHUTDOWN = Stop("shutdown", release=False, tell=None)

REASONS = (IDLE, UNHEARD, HANDOFF, DEPOSED, STALE, FAILED, LAPSED, CUT_OFF, SHUTDOWN)
