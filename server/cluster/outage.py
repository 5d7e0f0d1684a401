"""What counts as an outage: the database or Redis could not be reached (not a bug, not a
refusal; a connection the pool could not give in time counts too). The player is told the
server is reconnecting, and nothing acknowledged is lost."""

from __future__ import annotations

from redis.exceptions import RedisError
from sqlalchemy.exc import DBAPIError, InterfaceError, OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeout

TIMED_OUT = frozenset({"55P03", "57014", "25P03"})  # lock, statement, idle transaction


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
    if not isinstance(exc, DBAPIError):
        return False
    # PostgreSQL ended a wait of ours: a lock held too long (a stopped peer's), a statement
    # or a transaction past its limit; the database was slow or stuck, nothing was written
    return exc.connection_invalidated or getattr(exc.orig, "sqlstate", None) in TIMED_OUT
