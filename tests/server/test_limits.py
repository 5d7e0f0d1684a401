"""The HTTP rate limiter (issue 9, item 4): the same answers as a plain sliding window, in
O(1) amortised work per call however many addresses there are. A fake clock; no server (the
figures are in benchmarks/security.py)."""

from __future__ import annotations

import random
from collections import OrderedDict

from server.edge.limits import EVICT_PER_CALL, FailureBudget, SlidingLimit, client_key


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class CountingHits(OrderedDict):  # type: ignore[type-arg]
    """Counts the entries a limiter looks at while it forgets quiet keys."""

    looked = 0

    def items(self):  # type: ignore[no-untyped-def]
        for item in super().items():
            CountingHits.looked += 1
            yield item


def test_same_answers_as_a_plain_sliding_window() -> None:
    rng = random.Random(9)
    clock = Clock()
    limit = SlidingLimit(3, 60, clock=clock)
    plain: dict[str, list[float]] = {}
    for _ in range(20_000):
        clock.now += rng.choice([0.01, 0.5, 3.0, 20.0])
        key = f"10.0.0.{rng.randrange(40)}"
        recent = [t for t in plain.get(key, []) if t > clock.now - 60]
        expected = len(recent) < 3
        if expected:
            recent.append(clock.now)
        plain[key] = recent
        assert limit.allow(key) == expected


def test_many_addresses_cost_little_each() -> None:
    """24,000 addresses a minute, then more: each call looks at a bounded number of keys
    (the old limiter looked at all of them on every call past 10,000)."""
    clock = Clock()
    limit = SlidingLimit(30, 60, clock=clock)
    limit.hits = CountingHits(limit.hits)
    for i in range(48_000):
        clock.now += 60 / 24_000  # 24,000 new addresses a minute
        assert limit.allow(f"a{i}")
    looked_per_call = CountingHits.looked / 48_000
    assert looked_per_call <= EVICT_PER_CALL + 1, looked_per_call
    assert len(limit) <= 24_000 + EVICT_PER_CALL  # the ones of the last minute, about


def test_quiet_addresses_are_forgotten_and_memory_is_capped() -> None:
    clock = Clock()
    limit = SlidingLimit(5, 60, max_keys=1000, clock=clock)
    for i in range(5000):
        limit.allow(f"k{i}")
    assert len(limit) <= 1000
    clock.now += 61
    for _ in range(1000 // EVICT_PER_CALL + 1):
        limit.allow("late")
    assert len(limit) == 1


def test_ipv6_counts_by_64() -> None:
    assert (
        client_key("2001:db8:1:2::1") == client_key("2001:db8:1:2:ffff::9") == "2001:db8:1:2::/64"
    )
    assert client_key("2001:db8:1:3::1") != client_key("2001:db8:1:2::1")
    assert client_key("::ffff:192.0.2.7") == "192.0.2.7"
    assert client_key("192.0.2.7") == "192.0.2.7"
    assert client_key(None) == "?"


def test_failure_budget() -> None:
    clock = Clock()
    budget = FailureBudget(3, 60, clock=clock)
    for _ in range(3):
        assert not budget.exhausted()
        budget.charge()
    assert budget.exhausted()
    clock.now += 61
    assert not budget.exhausted()


def test_a_sliding_limit_can_be_looked_at_without_counting() -> None:
    """``has_room``: whether the key has fewer than ``limit`` events (its own limit, or a
    tighter one), counting nothing; the misses of one address are that address's own."""
    clock = Clock()
    misses = SlidingLimit(3, 60, clock=clock)
    assert misses.has_room("192.0.2.1") and misses.has_room("192.0.2.1", 1)
    misses.allow("192.0.2.1")
    assert misses.has_room("192.0.2.1") and not misses.has_room("192.0.2.1", 1)
    misses.allow("192.0.2.1")
    misses.allow("192.0.2.1")
    assert not misses.has_room("192.0.2.1")
    assert misses.has_room("192.0.2.2", 1)  # another address has missed nothing
    for _ in range(10):
        misses.has_room("192.0.2.1")  # looking counts nothing
    clock.now += 61
    assert misses.has_room("192.0.2.1", 1)
