"""The hot path's statements straight on the driver's cursor: each compiled once per dialect
(and per number of ``IN`` items) to the driver's own SQL, with its parameters in order, then
run with the connection's DBAPI cursor, in the connection's transaction (the engine's
cursor events fire as they do for ``execute``; a driver's error is raised as ``execute``
raises it).

SQLAlchemy's ``Connection.execute`` costs more than the statement itself on SQLite (the
compiled-cache lookup, an execution context, parameter processing: about two thirds of a
small write's CPU). The statements run here are the ones of every move (``store/rooms.py``),
whose values need no processing (str, int, float, bool, None: the driver takes them as they
are). The SQL text is SQLAlchemy's own, compiled for the dialect, so the writes are exactly
those ``execute`` would make: the same conditions (version and epoch), in the same
transaction, committed by the same commit.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, NoReturn

from sqlalchemy import Connection
from sqlalchemy.sql import ClauseElement


class Compiled:
    """One statement's driver SQL and the order of its named parameters."""

    __slots__ = ("sql", "names")

    def __init__(self, statement: ClauseElement, conn: Connection) -> None:
        compiled = statement.compile(dialect=conn.dialect)
        self.sql = compiled.string
        order = getattr(compiled, "positiontup", None)  # SQLCompiler's, for positional styles
        if order is None:  # a named paramstyle: not one of ours (qmark, numeric_dollar)
            raise ValueError(f"{conn.dialect.name}: positional parameters expected")
        self.names = tuple(order)

    def row(self, params: dict[str, Any]) -> tuple[Any, ...]:
        return tuple(params[name] for name in self.names)


class DriverStatements:
    """Statements compiled per dialect on first use (``key``: the caller's name for one)."""

    def __init__(self) -> None:
        self._compiled: dict[tuple[str, Any], Compiled] = {}

    def compiled(self, conn: Connection, key: Any, make: Any) -> Compiled:
        """The compiled form of ``make()`` (a statement) for ``conn``'s dialect."""
        found = self._compiled.get((conn.dialect.name, key))
        if found is None:
            found = self._compiled[(conn.dialect.name, key)] = Compiled(make(), conn)
        return found


def fetch(conn: Connection, compiled: Compiled, params: dict[str, Any]) -> list[Sequence[Any]]:
    """The rows of a query, as the driver gives them (by position)."""
    row = compiled.row(params)
    cursor = conn.connection.dbapi_connection.cursor()  # type: ignore[union-attr]
    try:
        sql, row = _before(conn, cursor, compiled.sql, row, False)
        cursor.execute(sql, row)
        rows = list(cursor.fetchall())
        _after(conn, cursor, sql, row, False)
        return rows
    except BaseException as exc:
        _raise(conn, exc, compiled, row, cursor)
    finally:
        cursor.close()


def run_many(conn: Connection, compiled: Compiled, rows: Iterable[dict[str, Any]]) -> int:
    """Runs the statement once per row; the rows it changed in all (-1: the driver does not
    say)."""
    values = [compiled.row(r) for r in rows]
    cursor = conn.connection.dbapi_connection.cursor()  # type: ignore[union-attr]
    try:
        sql, values = _before(conn, cursor, compiled.sql, values, True)
        cursor.executemany(sql, values)
        _after(conn, cursor, sql, values, True)
        return int(cursor.rowcount)
    except BaseException as exc:
        _raise(conn, exc, compiled, values, cursor)
    finally:
        cursor.close()


def _before(conn: Connection, cursor: Any, sql: str, params: Any, many: bool) -> tuple[str, Any]:
    """The engine's ``before_cursor_execute`` listeners, as ``execute`` calls them (they may
    change the statement: ``retval=True``)."""
    if conn._has_events or conn.engine._has_events:
        for fn in conn.dispatch.before_cursor_execute:
            sql, params = fn(conn, cursor, sql, params, None, many)
    return sql, params


def _after(conn: Connection, cursor: Any, sql: str, params: Any, many: bool) -> None:
    if conn._has_events or conn.engine._has_events:
        conn.dispatch.after_cursor_execute(conn, cursor, sql, params, None, many)


def _raise(
    conn: Connection, exc: BaseException, compiled: Compiled, params: Any, cursor: Any
) -> NoReturn:
    """A driver's error as ``execute`` raises it: wrapped in SQLAlchemy's DBAPIError, the
    connection invalidated when the dialect says the error lost it (what the writer and
    ``is_outage`` tell outages by)."""
    conn._handle_dbapi_exception(exc, compiled.sql, params, cursor, None)
