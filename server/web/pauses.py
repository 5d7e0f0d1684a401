"""The garbage collector's pauses (issue 31): how long each collection held the event loop,
by generation, counted by bucket as Prometheus histograms are (read by /metrics). A full
collection walks every live room's and socket's objects, so its pause grows with the rooms
held: the figure that says whether a room's round trip waited for it.

``install`` in the lifespan, ``remove`` at its end: one callback on ``gc.callbacks``, two
clock reads a collection."""

from __future__ import annotations

import gc
import time
from dataclasses import dataclass, field
from typing import Any

from ..store.database import SECONDS_BUCKETS

GENERATIONS = (0, 1, 2)


@dataclass
class GenerationPauses:
    seconds: list[int] = field(default_factory=lambda: [0] * len(SECONDS_BUCKETS))
    count: int = 0
    total_seconds: float = 0.0
    longest: float = 0.0


class GcPauses:
    def __init__(self) -> None:
        self.by_generation = {g: GenerationPauses() for g in GENERATIONS}
        self._began = 0.0

    def install(self) -> None:
        if self._callback not in gc.callbacks:
            gc.callbacks.append(self._callback)

    def remove(self) -> None:
        if self._callback in gc.callbacks:
            gc.callbacks.remove(self._callback)

    def _callback(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._began = time.perf_counter()
            return
        self.record(int(info["generation"]), time.perf_counter() - self._began)

    def record(self, generation: int, seconds: float) -> None:
        pauses = self.by_generation[generation]
        pauses.count += 1
        pauses.total_seconds += seconds
        pauses.longest = max(pauses.longest, seconds)
        for i, limit in enumerate(SECONDS_BUCKETS):
            if seconds <= limit:
                pauses.seconds[i] += 1
