"""What counts as an outage: the database or Redis could not be reached (not a bug, not a
refusal). The player is told the server is reconnecting, and nothing acknowledged is lost."""

from __future__ import annotations

from redis.exceptions import RedisError
from sqlalchemy.exc import DBAPIError, InterfaceError, OperationalError


def is_outage(exc: BaseException) -> bool:
    if isinstance(
        exc,
        (OperationalError, InterfaceError, RedisError, ConnectionError, TimeoutError, OSError),
    ):
        return True
    return isinstance(exc, DBAPIError) and exc.connection_invalidated
