"""Rate limits: for the HTTP API, who is asking (``client_key``), how often each one may ask
(``SlidingLimit``, which also counts an address's wrong codes) and how many wrong codes the
whole server accepts (``FailureBudget``); for a websocket, how many messages a second it may
send (``TokenBucket``).

Every call is O(1) amortised, however many addresses there are: keys are kept in the order
they were last seen, so the quiet ones are always at the front and are dropped from there.
"""

from __future__ import annotations

import ipaddress
import time
from collections import OrderedDict

from ..window import Clock, SlidingWindow

EVICT_PER_CALL = 16  # quiet keys dropped per call at most (each call adds at most one)


def client_key(host: str | None) -> str:
    """The address a limit counts: IPv4 as is, IPv6 by its /64 (one household, one phone
    line: they are handed out whole), an IPv4-mapped IPv6 address as its IPv4."""
    if not host:
        return "?"
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return host
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network((ip, 64), strict=False))
    return str(ip)


class SlidingLimit:
    """At most ``limit`` events per key in any ``window`` seconds: one ``SlidingWindow`` per
    key. At most ``max_keys`` keys are remembered: beyond that the least recently seen one is
    forgotten."""

    def __init__(
        self,
        limit: int,
        window: float = 60.0,
        *,
        max_keys: int = 100_000,
        clock: Clock = time.monotonic,
    ) -> None:
        self.limit = limit
        self.window = window
        self.max_keys = max_keys
        self.clock = clock
        self.hits: OrderedDict[str, SlidingWindow] = OrderedDict()  # least recently seen first

    def __len__(self) -> int:
        return len(self.hits)

    def allow(self, key: str) -> bool:
        self._evict()
        window = self.hits.get(key)
        if window is None:
            window = self.hits[key] = SlidingWindow(self.limit, self.window, clock=self.clock)
        else:
            self.hits.move_to_end(key)
        return window.allow()

    def has_room(self, key: str, limit: int | None = None) -> bool:
        """Whether ``key`` has fewer than ``limit`` events in the window (by default its
        own limit; a tighter one when asked), counting nothing."""
        self._evict()
        window = self.hits.get(key)
        if window is None:
            return (self.limit if limit is None else limit) > 0
        return window.has_room(limit)

    def _evict(self) -> None:
        cutoff = self.clock() - self.window
        for _ in range(EVICT_PER_CALL):
            if not self.hits:
                return
            key, window = next(iter(self.hits.items()))
            last = window.last()
            if last is not None and last > cutoff and len(self.hits) < self.max_keys:
                return
            del self.hits[key]


class FailureBudget(SlidingWindow):
    """At most ``limit`` failures in any ``window`` seconds over the whole server
    (``charge`` counts one): once spent, attempts are refused until old failures leave the
    window. It bounds guessing by any number of addresses together."""

    __slots__ = ()

    def __init__(self, limit: int, window: float = 60.0, *, clock: Clock = time.monotonic) -> None:
        super().__init__(limit, window, clock=clock)

    def exhausted(self) -> bool:
        return not self.has_room()


class TokenBucket:
    """A socket's messages: ``rate`` a second with bursts of ``burst``; ``refused`` counts
    the refusals of the current flood (a minute without one starts a new count)."""

    def __init__(self, rate: float, burst: int) -> None:
        self.rate = rate
        self.burst = float(burst)
        self.tokens = float(burst)
        self.stamp = time.monotonic()
        self.refused = 0
        self.first_refusal = 0.0

    def allow(self) -> bool:
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        if now - self.first_refusal > 60:  # a new flood: count afresh
            self.refused = 0
            self.first_refusal = now
        self.refused += 1
        return False
