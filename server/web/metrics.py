"""``/metrics``: what this process does, in the Prometheus text format (prometheus-client),
for a deployment to scrape: moves, frames handed to sockets and frames that crossed to
another process, rooms held, sockets, lease and hub state, computer decisions waiting for
a worker, the writer's batch sizes and latencies. Read at scrape time from the counters
the parts keep themselves (a few integers each): the hot path pays nothing for it.

Only loopback, or the addresses of ``METRICS_ALLOW_IPS``, may read it (docs/protocol.md).
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterator

from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.core import (
    CounterMetricFamily,
    GaugeMetricFamily,
    HistogramMetricFamily,
    Metric,
)
from prometheus_client.registry import Collector
from starlette.requests import Request
from starlette.responses import Response

from ..cluster import LocalHub, RedisHub
from ..i18n import negotiate
from ..rooms.memory import sizes as room_sizes
from ..rooms.stops import REASONS
from ..store.database import SECONDS_BUCKETS, SIZE_BUCKETS, BatchStats
from .pages import short_page
from .pauses import GcPauses
from .services import Services, services_of, settings_of

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"


def _buckets(counts: list[int], bounds: tuple[float, ...], total: int) -> list[tuple[str, float]]:
    return [(str(b), float(c)) for b, c in zip(bounds, counts, strict=True)] + [
        ("+Inf", float(total))
    ]


class ProcessMetrics(Collector):
    """This process's figures, as of the scrape."""

    def __init__(self, services: Services) -> None:
        self.services = services

    def collect(self) -> Iterator[Metric]:
        s = self.services
        hub = s.hub
        local = hub.local if isinstance(hub, RedisHub) else hub
        assert isinstance(local, LocalHub)
        counts = s.registry.deps.counts
        yield CounterMetricFamily("casino_moves", "Moves played in rooms held here", counts.moves)
        yield CounterMetricFamily(
            "casino_frames_delivered", "Frames handed to sockets held here", local.delivered
        )
        crossed = hub.crossed if isinstance(hub, RedisHub) else 0
        yield CounterMetricFamily(
            "casino_frames_crossed", "Frames sent to a socket on another process (Redis)", crossed
        )
        lost = hub.lost_frames if isinstance(hub, RedisHub) else 0
        yield CounterMetricFamily(
            "casino_frames_lost", "Messages from other processes seen missing", lost
        )
        yield CounterMetricFamily(
            "casino_handoffs", "Rooms given up to the process their sockets land on",
            counts.handoffs,
        )  # fmt: skip
        stops = CounterMetricFamily(
            "casino_room_stops", "Rooms stopped here, by reason (server/rooms/stops.py)",
            labels=["reason"],
        )  # fmt: skip
        for reason in REASONS:
            stops.add_metric([reason.name], counts.stops.get(reason.name, 0))
        yield stops
        yield GaugeMetricFamily("casino_rooms_held", "Rooms held here", len(s.registry.rooms))
        if s.settings.metrics_room_parts:
            parts = GaugeMetricFamily(
                "casino_room_part_bytes",
                "Bytes the live rooms hold, by part (server/rooms/memory.py)",
                labels=["part"],
            )
            for part, size in room_sizes(list(s.registry.rooms.values())).items():
                if part != "rooms":
                    parts.add_metric([part], size)
            yield parts
        yield GaugeMetricFamily("casino_sockets", "Sockets held here", len(local))
        yield GaugeMetricFamily(
            "casino_lease_held", "1 while this process holds its lease", int(s.lease.held)
        )
        yield GaugeMetricFamily(
            "casino_hub_healthy", "1 while this process reaches the others", int(hub.healthy)
        )
        yield GaugeMetricFamily(
            "casino_ai_waiting",
            "Computer decisions waiting for a worker",
            s.ai.waiting if s.ai is not None else 0,
        )
        pushes = CounterMetricFamily(
            "casino_pushes",
            "Web Push posts by outcome (sent, gone, refused, …)",
            labels=["outcome"],
        )
        for outcome, count in s.notifier.counts.outcomes.items():
            pushes.add_metric([outcome], count)
        yield pushes
        yield CounterMetricFamily(
            "casino_pushes_held", "Pushes held back by PUSH_EVERY, to go at its end",
            s.notifier.counts.deferred,
        )  # fmt: skip
        yield GaugeMetricFamily(
            "casino_pushes_under_way", "Pushes being claimed or posted now",
            s.notifier.under_way,
        )  # fmt: skip
        yield CounterMetricFamily(
            "casino_pushes_dropped", "Pushes dropped: too many under way",
            s.notifier.counts.dropped,
        )  # fmt: skip
        yield from self._writer(s.storage.db.batches)
        yield from self._pauses(s.pauses)

    def _pauses(self, pauses: GcPauses) -> Iterator[Metric]:
        histogram = HistogramMetricFamily(
            "casino_gc_pause_seconds",
            "The garbage collector's pauses, by generation (server/web/pauses.py)",
            labels=["generation"],
        )
        longest = GaugeMetricFamily(
            "casino_gc_pause_longest_seconds", "The longest pause so far, by generation",
            labels=["generation"],
        )  # fmt: skip
        for generation, got in pauses.by_generation.items():
            histogram.add_metric(
                [str(generation)], _buckets(got.seconds, SECONDS_BUCKETS, got.count),
                got.total_seconds,
            )  # fmt: skip
            longest.add_metric([str(generation)], got.longest)
        yield histogram
        yield longest

    def _writer(self, stats: BatchStats) -> Iterator[Metric]:
        sizes = HistogramMetricFamily("casino_write_batch_jobs", "Jobs per committed batch")
        sizes.add_metric([], _buckets(stats.sizes, SIZE_BUCKETS, stats.count), stats.jobs)
        yield sizes
        seconds = HistogramMetricFamily("casino_write_batch_seconds", "Seconds per batch")
        seconds.add_metric(
            [], _buckets(stats.seconds, SECONDS_BUCKETS, stats.count), stats.total_seconds
        )
        yield seconds


def allowed(host: str | None, allow: str) -> bool:
    """Loopback, or one of the comma-separated addresses or networks of ``allow``."""
    if host is None:
        return False
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    if address.is_loopback:
        return True
    for item in (part.strip() for part in allow.split(",")):
        if item and address in ipaddress.ip_network(item, strict=False):
            return True
    return False


async def metrics(request: Request) -> Response:
    if not allowed(request.client.host if request.client else None,
                   settings_of(request).metrics_allow_ips):  # fmt: skip
        lang = negotiate(request.headers.get("accept-language"))
        return short_page("error.not_found", 404, lang=lang)  # as if it were not there
    registry = CollectorRegistry(auto_describe=False)
    registry.register(ProcessMetrics(services_of(request)))
    return Response(generate_latest(registry), media_type=CONTENT_TYPE)
