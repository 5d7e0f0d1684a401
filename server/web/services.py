"""What the handlers use, made once by the lifespan (``app.py``, the composition root) and
found on ``app.state``: the limits from the app's creation (``Limits``), everything else
from the lifespan (``Services``). No handler makes or looks up a dependency of its own."""

from __future__ import annotations

from dataclasses import dataclass, field

from starlette.requests import Request
from starlette.websockets import WebSocket

from ..ai.pool import AiPool
from ..cluster import Hub, Lease
from ..config import Settings
from ..edge.shared_limits import AddressBudget, Budget, RateLimit
from ..lobby.games import Games
from ..lobby.lobby import Lobby
from ..lobby.push import Pushes
from ..push import Notifier
from ..rooms import RoomRegistry, Router
from ..store import Storage
from .pauses import GcPauses
from .qr import QrMaker


@dataclass(frozen=True)
class Limits:
    """Per address (IPv6: per /64) rate limits, the server-wide budgets of wrong short
    codes, and each address's own wrong invites (shared through Redis when there is one,
    server/edge/shared_limits.py)."""

    rooms: RateLimit
    join: RateLimit
    qr: RateLimit
    games: RateLimit
    replays: RateLimit
    invite_failures: Budget
    rejoin_failures: Budget
    invite_misses: AddressBudget


@dataclass
class Services:
    settings: Settings
    storage: Storage
    hub: Hub
    registry: RoomRegistry
    router: Router
    lease: Lease
    lobby: Lobby
    games: Games
    qr: QrMaker
    pushes: Pushes
    notifier: Notifier
    draining: bool = False  # a clean stop has begun: no new work
    ai: AiPool | None = None  # the computer players' pool (its queue, for /metrics)
    pauses: GcPauses = field(default_factory=GcPauses)  # the collector's, for /metrics


def services_of(request: Request | WebSocket) -> Services:
    services: Services = request.app.state.services
    return services


def limits_of(request: Request | WebSocket) -> Limits:
    limits: Limits = request.app.state.limits
    return limits


def settings_of(request: Request | WebSocket) -> Settings:
    settings: Settings = request.app.state.settings
    return settings
