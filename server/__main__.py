"""``python -m server``: applies the migrations and serves the game with uvicorn
(HOST/PORT from the environment, default 0.0.0.0:8000; see server/config.py)."""

from __future__ import annotations

import gc
import logging
import os

import uvicorn

from .app import create_app
from .config import Settings

WS_MAX_SIZE = 4096  # bytes per incoming websocket frame; bigger ones close the socket (1009)


def main() -> None:
    logging.basicConfig(level=os.environ.get("LOG_LEVEL", "INFO").upper(),
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    # Fewer collections of young objects: each view and message makes many short-lived
    # dicts, and every full pass walks all live rooms' and sockets' objects.
    gc.set_threshold(10_000, 20, 20)
    settings = Settings.from_env()
    app = create_app(settings)
    uvicorn.run(
        app,
        host=settings.host,
        port=settings.port,
        ws_max_size=WS_MAX_SIZE,
        # views are small and come at people's pace: compressing them costs more CPU than
        # the bytes it saves (WS_DEFLATE=1 turns it on)
        ws_per_message_deflate=os.environ.get("WS_DEFLATE", "") == "1",
        # the access log would record /r/<rejoin code> paths: off unless asked for
        access_log=os.environ.get("ACCESS_LOG", "") == "1",
        log_level=os.environ.get("LOG_LEVEL", "info").lower(),
        lifespan="on",
    )


if __name__ == "__main__":
    main()
