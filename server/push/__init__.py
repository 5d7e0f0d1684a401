"""Web Push (RFC 8030, VAPID RFC 8292, payloads RFC 8291): "te toca" on a phone whose app is
closed. The rooms reach it through one interface, ``Pusher.tell`` (``RoomDeps.push``);
``Notifier`` decides when a push goes (``notifier.py``), ``Sender`` posts it off the event
loop (``sender.py``), ``texts.py`` words it, ``keys.py`` holds the VAPID key. Subscriptions
are stored by ``store.PushStore``."""

from __future__ import annotations

from typing import Protocol

from .notifier import Notifier, PushCounts, PushEvent
from .sender import Outcome, Sender, endpoint_allowed
from .texts import Kind, language, push_text


class Pusher(Protocol):
    def tell(self, event: PushEvent) -> None:
        """A push about ``event`` may go (or not: the pusher decides); returns at once."""


class NoPush:
    """Pushes nothing (a room made without a pusher: tests, tools)."""

    def tell(self, event: PushEvent) -> None:
        pass


__all__ = [
    "Kind", "NoPush", "Notifier", "Outcome", "PushCounts", "PushEvent", "Pusher", "Sender",
    "endpoint_allowed", "language", "push_text",
]  # fmt: skip
