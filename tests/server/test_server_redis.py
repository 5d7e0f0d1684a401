"""Redis (``TEST_REDIS_URL``, default redis://127.0.0.1:6379/0) answers through redis-py's
asyncio client: a key round trip and a publish that a subscriber receives, what a hub
between server processes will need (issue 8)."""

from __future__ import annotations

import os
import secrets

import redis.asyncio as redis

TIMEOUT = 10.0


async def test_redis_answers_and_delivers_a_published_message(redis_url: str) -> None:
    client = redis.from_url(redis_url, socket_timeout=TIMEOUT)
    name = f"casino:test:{os.getpid()}:{secrets.token_hex(4)}"
    try:
        assert await client.ping() is True
        await client.set(name, "hola", px=60_000)
        assert await client.get(name) == b"hola"
        async with client.pubsub() as pubsub:
            await pubsub.subscribe(name)
            assert (await pubsub.get_message(timeout=TIMEOUT))["type"] == "subscribe"
            assert await client.publish(name, "jugada") == 1
            message = await pubsub.get_message(ignore_subscribe_messages=True, timeout=TIMEOUT)
            assert message is not None and message["data"] == b"jugada"
    finally:
        await client.delete(name)
        await client.aclose()
