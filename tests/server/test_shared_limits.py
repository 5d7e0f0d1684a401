"""Rate limits that hold across processes (issue 8, server/edge/shared_limits.py): counted in
Redis, the same answers as the in-process limits, keys that expire, and the in-process limit
while Redis is away. Real Redis; the last tests run three real server processes on one
PostgreSQL database and one Redis."""

from __future__ import annotations

import logging
import random
import secrets
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
import redis.asyncio as aioredis

from server.config import Settings
from server.edge.limits import FailureBudget, SlidingLimit
from server.edge.shared_limits import (
    CALL_TIMEOUT,
    LocalAddressBudget,
    LocalBudget,
    LocalLimit,
    RedisLink,
    SharedAddressBudget,
    SharedBudget,
    SharedLimit,
)
from server.web.app import create_app
from tests.support.dbkit import Database
from tests.support.srvkit import ServerProc, free_port

postgres_only = pytest.mark.parametrize("backend", ["postgres"], indirect=True)


@pytest.fixture
async def client(redis_url: str) -> AsyncIterator[aioredis.Redis]:
    made = aioredis.Redis.from_url(redis_url, socket_timeout=5)
    yield made
    await made.aclose()


@pytest.fixture
def prefix() -> str:
    """A Redis namespace of the test's own (other test runs may share the Redis)."""
    return f"casino-test-{secrets.token_hex(4)}"


def link_to(client: aioredis.Redis, prefix: str) -> RedisLink:
    return RedisLink(lambda: client, prefix)


async def test_two_processes_count_together(redis_url: str, prefix: str) -> None:
    """Two links with clients of their own, as two processes would have: one count."""
    a = aioredis.Redis.from_url(redis_url)
    b = aioredis.Redis.from_url(redis_url)
    try:
        rooms_a = SharedLimit(link_to(a, prefix), "rooms", SlidingLimit(3))
        rooms_b = SharedLimit(link_to(b, prefix), "rooms", SlidingLimit(3))
        assert [
            await rooms_a.allow("10.0.0.1"),
            await rooms_b.allow("10.0.0.1"),
            await rooms_a.allow("10.0.0.1"),
        ] == [True, True, True]
        assert not await rooms_b.allow("10.0.0.1")
        assert not await rooms_a.allow("10.0.0.1")
        assert await rooms_b.allow("10.0.0.2")  # another address has its own count
        # the in-process fallbacks were never asked
        assert len(rooms_a.local) == len(rooms_b.local) == 0

        codes_a = SharedBudget(link_to(a, prefix), "codes", FailureBudget(2))
        codes_b = SharedBudget(link_to(b, prefix), "codes", FailureBudget(2))
        assert not await codes_a.exhausted()
        await codes_a.charge()
        assert not await codes_b.exhausted()
        await codes_b.charge()
        assert await codes_a.exhausted() and await codes_b.exhausted()
        await codes_a.charge()  # a spent budget takes no more
        assert await a.zcard(f"{prefix}:limit:codes") == 2
    finally:
        await a.aclose()
        await b.aclose()


async def test_misses_per_address_are_counted_together(redis_url: str, prefix: str) -> None:
    """The wrong codes of one address, over two processes: one count; ``strict`` (the
    whole server's budget is spent) refuses an address after a single miss."""
    a = aioredis.Redis.from_url(redis_url)
    b = aioredis.Redis.from_url(redis_url)
    try:
        misses_a = SharedAddressBudget(link_to(a, prefix), "misses", SlidingLimit(2))
        misses_b = SharedAddressBudget(link_to(b, prefix), "misses", SlidingLimit(2))
        assert not await misses_a.spent("10.0.0.1")
        assert not await misses_b.spent("10.0.0.1", strict=True)
        await misses_a.charge("10.0.0.1")
        assert not await misses_b.spent("10.0.0.1")
        assert await misses_b.spent("10.0.0.1", strict=True)
        await misses_b.charge("10.0.0.1")
        assert await misses_a.spent("10.0.0.1") and await misses_b.spent("10.0.0.1")
        assert not await misses_a.spent("10.0.0.2", strict=True)  # its own count
        assert await a.zcard(f"{prefix}:limit:misses:10.0.0.1") == 2
        assert len(misses_a.local) == len(misses_b.local) == 0
    finally:
        await a.aclose()
        await b.aclose()


async def test_same_answers_as_the_in_process_limit(client: aioredis.Redis, prefix: str) -> None:
    """Random addresses over two shared limiters answer as one ``SlidingLimit`` does
    (within one window: a refused attempt is not counted)."""
    rng = random.Random(8)
    link = link_to(client, prefix)
    shared = [
        SharedLimit(link, "join", SlidingLimit(4)),
        SharedLimit(link, "join", SlidingLimit(4)),
    ]
    plain = SlidingLimit(4)
    answers = []
    for _ in range(300):
        key = f"192.0.2.{rng.randrange(12)}"
        expected = plain.allow(key)
        assert await rng.choice(shared).allow(key) == expected, key
        answers.append(expected)
    assert answers.count(False) > 100 and answers.count(True) == 12 * 4
    assert link.failures == 0


async def test_the_window_slides_and_keys_expire(client: aioredis.Redis, prefix: str) -> None:
    link = link_to(client, prefix)
    limit = SharedLimit(link, "qr", SlidingLimit(2, window=0.4))
    assert await limit.allow("k") and await limit.allow("k")
    assert not await limit.allow("k")
    key = f"{prefix}:limit:qr:k"
    assert 0 < await client.pttl(key) <= 400  # Redis forgets it a window after its last
    deadline = time.monotonic() + 5
    while not await limit.allow("k"):  # the oldest leaves the window
        assert time.monotonic() < deadline, "the window did not slide"
    assert await client.zcard(key) <= 2
    while await client.exists(key):
        assert time.monotonic() < deadline, "the key did not expire"

    budget = SharedBudget(link, "codes", FailureBudget(1, window=0.4))
    await budget.charge()
    assert await budget.exhausted()
    while await budget.exhausted():
        assert time.monotonic() < deadline, "the budget did not come back"


async def test_redis_away_counts_in_this_process_and_says_so_once(
    client: aioredis.Redis, prefix: str, caplog: pytest.LogCaptureFixture
) -> None:
    """Redis on a closed port: no exception, the in-process limit answers, one warning for
    the whole outage, no waiting after the first call; when Redis answers again the limit
    is shared again (and that is logged)."""
    gone = aioredis.Redis.from_url(f"redis://127.0.0.1:{free_port()}/0")
    current = [gone]
    link = RedisLink(lambda: current[0], prefix)
    limit = SharedLimit(link, "rooms", SlidingLimit(2))
    budget = SharedBudget(link, "codes", FailureBudget(1))
    caplog.set_level(logging.WARNING, logger="server.limits")
    try:
        started = time.monotonic()
        answers = [await limit.allow("10.0.0.9") for _ in range(5)]
        first_five = time.monotonic() - started
        assert answers == [True, True, False, False, False]  # SlidingLimit(2)'s answers
        assert not await budget.exhausted()
        await budget.charge()
        assert await budget.exhausted()
        assert first_five < CALL_TIMEOUT + 0.5, first_five  # one wait at most, not five
        assert link.failures == 8
        warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
        assert len(warnings) == 1 and "count in this process" in warnings[0].getMessage()

        current[0] = client  # Redis is back
        deadline = time.monotonic() + 5
        while link.down_since is not None:  # tried again at most once a second
            assert time.monotonic() < deadline, "the limit never went back to Redis"
            await limit.allow("10.0.0.10")
        assert await client.exists(f"{prefix}:limit:rooms:10.0.0.10")
        assert "shared again" in caplog.records[-1].getMessage()
        assert len(caplog.records) == 2
    finally:
        await gone.aclose()


def test_without_redis_the_limits_are_this_process_own() -> None:
    """No REDIS_URL: the in-process limits of before, behind the async interface."""
    alone = create_app(Settings(), migrate=False)
    assert isinstance(alone.state.limits.rooms, LocalLimit)
    assert isinstance(alone.state.limits.invite_failures, LocalBudget)
    assert isinstance(alone.state.limits.invite_misses, LocalAddressBudget)
    shared = create_app(Settings(redis_url="redis://127.0.0.1:6379/0"), migrate=False)
    for name in ("rooms", "join", "qr", "games", "replays"):
        assert isinstance(getattr(shared.state.limits, name), SharedLimit)
    for name in ("invite_failures", "rejoin_failures"):
        assert isinstance(getattr(shared.state.limits, name), SharedBudget)
    assert isinstance(shared.state.limits.invite_misses, SharedAddressBudget)
    assert shared.state.limits.invite_misses.local.limit == Settings().invite_misses_per_min
    assert shared.state.limits.rooms.local.limit == Settings().rate_rooms_per_min


# -- three real processes -------------------------------------------------------------------

ROOMS = 4
CODES = 3


@pytest.fixture
def three(tmp_path: Path, db: Database, redis_url: str, prefix: str) -> Iterator[list[ServerProc]]:
    """Three servers on one PostgreSQL database and one Redis, small limits; started one
    after the other (the first one migrates the database)."""
    env = {
        "REDIS_URL": redis_url,
        "REDIS_PREFIX": prefix,
        "AI_WORKERS": "1",
        "RATE_ROOMS_PER_MIN": str(ROOMS),
        "CODE_FAILURES_PER_MIN": str(CODES),
        "RATE_JOIN_PER_MIN": "1000",
    }
    procs: list[ServerProc] = []
    try:
        for _ in range(3):
            procs.append(ServerProc(tmp_path, env, db).start())
        yield procs
    finally:
        for proc in procs:
            proc.stop()


@postgres_only
def test_a_flood_over_three_processes_is_still_a_flood(three: list[ServerProc]) -> None:
    """Room creations from one address spread over three processes: ROOMS in all, not
    ROOMS each; wrong invite codes spread over them spend one budget."""
    statuses = []
    for i in range(ROOMS + 3):
        r = three[i % 3].post("/api/rooms", {"mode": "computer", "level": "facil", "name": "Ana"})
        statuses.append(r.status_code)
        if r.status_code == 429:
            assert r.json()["error"]["code"] == "rate_limited"
            assert r.json()["error"]["message"].startswith("Demasiados intentos")
    assert statuses == [201] * ROOMS + [429] * 3, statuses

    wrong = [three[i % 3].get(f"/api/invites/NOPE{i}").status_code for i in range(CODES + 3)]
    assert wrong == [404] * CODES + [429] * 3, wrong
    for proc in three:
        assert proc.alive()
        assert "Traceback" not in proc.read_log()
