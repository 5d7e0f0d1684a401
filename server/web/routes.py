"""THE route table: every address the server answers, and the function that answers it.

A websocket message is parsed in server/protocol/incoming.py, handed to its room command in
``session.dispatch``, decided by the room's actor (server/rooms/handle.py and the module of
its job), written by server/store/rooms.py and told by server/rooms/views.py."""

from __future__ import annotations

from starlette.routing import BaseRoute, Mount, Route, WebSocketRoute

from ..config import Settings
from . import api
from .metrics import metrics
from .pages import healthz, index_page
from .session import websocket_endpoint
from .static import ClientFiles, service_worker_route


def routes(settings: Settings) -> list[BaseRoute]:
    return [
        Route("/", index_page),
        Route("/j/{code}", index_page),
        Route("/r/{code}", index_page),
        Route("/p/{code}", index_page),
        Route("/v/{code}", index_page),
        Route("/sw.js", service_worker_route(settings.client_dir, not settings.client_js_source)),
        Route("/healthz", healthz),
        Route("/metrics", metrics),
        Route("/api/rooms", api.create_room, methods=["POST"]),
        Route("/api/rooms/{room}", api.room_summary),
        Route("/api/join", api.join_room, methods=["POST"]),
        Route("/api/invites/{invite}", api.invitation),
        Route("/api/watch/{code}", api.watch_room),
        Route("/api/rejoin-codes", api.create_rejoin_code, methods=["POST"]),
        Route("/api/rejoin", api.use_rejoin_code, methods=["POST"]),
        Route("/api/codes", api.use_code, methods=["POST"]),
        Route("/api/qr", api.qr_svg, methods=["POST"]),
        Route("/api/my-games", api.my_games, methods=["POST"]),
        Route("/api/replays", api.make_replay_link, methods=["POST"]),
        Route("/api/replays/{code}", api.replay),
        Route("/api/push/key", api.push_key),
        Route("/api/push", api.push_subscription, methods=["POST"]),
        # the room in the address: a load balancer that hashes on it (deploy/haproxy.cfg)
        # sends a room's seats and watchers to one process; /ws, the address of earlier
        # releases, keeps working for a while (deprecated: its frames may cross processes)
        WebSocketRoute("/ws/{room}", websocket_endpoint),
        WebSocketRoute("/ws", websocket_endpoint),
        Mount(
            "/static",
            ClientFiles(
                directory=settings.client_dir,
                lean_js=not settings.client_js_source,
                check_dir=False,
            ),
        ),
    ]
