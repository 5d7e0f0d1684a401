"""What counts as an outage: the database or Redis could not be reached (not a bug, not a
refusal; a connection the pool could not give in time counts too). The player is told the
server is reconnecting, and nothing acknowledged is lost."""

from __future__ import annotations

from redis.exceptions import RedisError
from sqlalchemy.exc import DBAPIError, InterfaceError, OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeout


def is_outage(exc: BaseException) -> bool:
    if isinstance(
        exc,
        (
            OperationalError,
            InterfaceError,
            PoolTimeout,
            RedisError,
            ConnectionError,
            TimeoutError,
            OSError,
        ),  # fmt: skip
    ):
        return True
    return isinstance(exc, DBAPIError) and exc.connection_invalidated
