"""The HTTP rate limits and wrong-code budgets behind one async interface (``RateLimit``,
``Budget``), counted in Redis when there is one (``REDIS_URL``), so that a flood spread over
several processes is still one flood; in this process otherwise (``server/edge/limits.py``).

In Redis each key is an exact sliding log, not a two-window approximation: a sorted set of
the accepted events' times (Redis's own clock, so the processes' clocks need not agree), the
ones older than the window dropped and the count taken in one Lua script, one round trip a
call. So the answers are those of ``limits.SlidingLimit`` and ``limits.FailureBudget``. A set
holds at most ``limit`` members (30 or so) and expires a window after its last event: Redis
never grows without bound.

When Redis does not answer (down, restarting, too slow), each limit counts in this process
instead until it does: a player never sees an error for it, the outage is logged once (and
its end), and Redis is tried again at most once a second meanwhile, so an outage costs
requests no waiting. During it a flood over N processes gets N times the limit.

Not shared, on purpose: a websocket's message rate (``app.TokenBucket``) belongs to its one
connection, which lives in one process; the open-socket caps (``connections.ConnectionGate``)
are per process, and behind a load balancer every socket comes from the balancer's address,
so the per-address cap is the balancer's job (deploy/haproxy.cfg).
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from collections.abc import Callable
from typing import Protocol

from redis.asyncio import Redis
from redis.commands.core import AsyncScript
from redis.exceptions import RedisError

from .limits import FailureBudget, SlidingLimit

log = logging.getLogger("server.limits")

CALL_TIMEOUT = 0.5  # seconds a limit waits for Redis before it counts in this process
RETRY_AFTER = 1.0  # seconds after a failure before Redis is tried again

# KEYS[1]: the sorted set; ARGV: limit, window (µs), "add" (count it if there is room) or
# "peek" (only look), a random tag (two events in one microsecond are two members).
# Returns 1 if there was room (before this event), else 0.
SLIDING_LOG = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local window = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', string.format('%.0f', now - window))
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[1]) then
  return 0
end
if ARGV[3] == 'add' then
  redis.call('ZADD', KEYS[1], string.format('%.0f', now), t[1] .. '.' .. t[2] .. '-' .. ARGV[4])
  redis.call('PEXPIRE', KEYS[1], math.ceil(window / 1000))
end
return 1
"""


class RateLimit(Protocol):
    async def allow(self, key: str) -> bool:
        """Counts an attempt by ``key`` unless it already has ``limit`` in the window."""
        ...


class Budget(Protocol):
    async def exhausted(self) -> bool: ...

    async def charge(self) -> None:
        """Counts one failure (while the budget is not spent)."""
        ...


class AddressBudget(Protocol):
    """The wrong codes of each address. ``strict``: the whole server's budget is spent, so
    a single miss in the window is enough to refuse the address."""

    async def spent(self, key: str, *, strict: bool = False) -> bool: ...

    async def charge(self, key: str) -> None:
        """Counts one wrong code of ``key`` (while it has room)."""
        ...


class LocalLimit:
    """``SlidingLimit`` (this process) as a ``RateLimit``."""

    def __init__(self, limit: SlidingLimit) -> None:
        self.local = limit

    async def allow(self, key: str) -> bool:
        return self.local.allow(key)


class LocalBudget:
    """``FailureBudget`` (this process) as a ``Budget``."""

    def __init__(self, budget: FailureBudget) -> None:
        self.local = budget

    async def exhausted(self) -> bool:
        return self.local.exhausted()

    async def charge(self) -> None:
        self.local.charge()


class LocalAddressBudget:
    """``SlidingLimit`` (this process) as an ``AddressBudget``."""

    def __init__(self, limit: SlidingLimit) -> None:
        self.local = limit

    async def spent(self, key: str, *, strict: bool = False) -> bool:
        return not self.local.has_room(key, 1 if strict else None)

    async def charge(self, key: str) -> None:
        self.local.allow(key)


class RedisLink:
    """The Redis client the shared limits use (``client()``: the app's, None while there is
    none) and whether it answers; one per process, so an outage is logged once."""

    def __init__(
        self,
        client: Callable[[], Redis | None],
        prefix: str = "casino",
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.client = client
        self.prefix = prefix
        self.clock = clock
        self.down_since: float | None = None  # the outage's start, while Redis is away
        self.retry_at = 0.0
        self.failures = 0  # calls that fell back to this process (for tests and logs)
        self._script: AsyncScript | None = None  # registered on the client it was made for

    def key(self, *parts: str) -> str:
        return ":".join((self.prefix, "limit", *parts))

    async def sliding_log(self, key: str, limit: int, window: float, mode: str) -> bool | None:
        """The script's answer, or None: Redis is away (count in this process)."""
        client = self.client()
        now = self.clock()
        if client is None:
            return None
        if self.down_since is not None and now < self.retry_at:
            self.failures += 1
            return None
        script = self._script
        if script is None or script.registered_client is not client:
            script = self._script = client.register_script(SLIDING_LOG)
        try:
            async with asyncio.timeout(CALL_TIMEOUT):
                answer = await script(
                    keys=[key], args=[limit, round(window * 1_000_000), mode, secrets.token_hex(4)]
                )
        except (RedisError, OSError, TimeoutError) as exc:
            if self.down_since is None:
                self.down_since = now
                log.warning(
                    "Redis does not answer (%s: %s): rate limits count in this "
                    "process until it is back",
                    type(exc).__name__,
                    exc,
                )
            self.retry_at = now + RETRY_AFTER
            self.failures += 1
            return None
        if self.down_since is not None:
            log.warning(
                "Redis answers again after %.1f s: rate limits are shared again",
                now - self.down_since,
            )
            self.down_since = None
        return bool(answer)


class SharedLimit:
    """A ``RateLimit`` counted in Redis (``RedisLink``), falling back to ``local`` when
    Redis is away. ``name`` tells the limits apart in Redis."""

    def __init__(self, link: RedisLink, name: str, local: SlidingLimit) -> None:
        self.link = link
        self.name = name
        self.local = local

    async def allow(self, key: str) -> bool:
        shared = await self.link.sliding_log(
            self.link.key(self.name, key), self.local.limit, self.local.window, "add"
        )
        return self.local.allow(key) if shared is None else shared


class SharedBudget:
    """A ``Budget`` counted in Redis, falling back to ``local`` when Redis is away."""

    def __init__(self, link: RedisLink, name: str, local: FailureBudget) -> None:
        self.link = link
        self.name = name
        self.local = local

    async def exhausted(self) -> bool:
        room = await self.link.sliding_log(
            self.link.key(self.name), self.local.limit, self.local.window, "peek"
        )
        return self.local.exhausted() if room is None else not room

    async def charge(self) -> None:
        counted = await self.link.sliding_log(
            self.link.key(self.name), self.local.limit, self.local.window, "add"
        )
        if counted is None:
            self.local.charge()


class SharedAddressBudget:
    """An ``AddressBudget`` counted in Redis, falling back to ``local`` when Redis is away."""

    def __init__(self, link: RedisLink, name: str, local: SlidingLimit) -> None:
        self.link = link
        self.name = name
        self.local = local

    async def spent(self, key: str, *, strict: bool = False) -> bool:
        limit = 1 if strict else self.local.limit
        room = await self.link.sliding_log(
            self.link.key(self.name, key), limit, self.local.window, "peek"
        )
        return not self.local.has_room(key, limit) if room is None else not room

    async def charge(self, key: str) -> None:
        counted = await self.link.sliding_log(
            self.link.key(self.name, key), self.local.limit, self.local.window, "add"
        )
        if counted is None:
            self.local.allow(key)


def rate_limit(link: RedisLink | None, name: str, limit: int, window: float = 60.0) -> RateLimit:
    """Shared through ``link`` if there is one, else this process's own."""
    local = SlidingLimit(limit, window)
    return LocalLimit(local) if link is None else SharedLimit(link, name, local)


def failure_budget(link: RedisLink | None, name: str, limit: int, window: float = 60.0) -> Budget:
    local = FailureBudget(limit, window)
    return LocalBudget(local) if link is None else SharedBudget(link, name, local)


def address_budget(
    link: RedisLink | None, name: str, limit: int, window: float = 60.0
) -> AddressBudget:
    local = SlidingLimit(limit, window)
    return LocalAddressBudget(local) if link is None else SharedAddressBudget(link, name, local)
