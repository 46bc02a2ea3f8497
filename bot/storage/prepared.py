"""Statements of the answer path compiled once for SQLite and run without SQLAlchemy's execution.

Every save of an answer runs the same three statements (the session's conditional update, the
attempt, the review card). Through SQLAlchemy each run looks its compiled form up by a cache key
built from the statement, makes an execution context, converts every value by name and wraps the
cursor in a result: on SQLite that was more of the bot's CPU than SQLite's own work. Here the
statement is compiled once per set of columns, its values are converted by SQLAlchemy's own
converters (the column types' bind processors, so what is stored is the same), and the driver runs
it in one trip (`sqlite_link.OneTripConnection.run`), inside the transaction SQLAlchemy opened.

Errors come out as SQLAlchemy's would: the driver's error wrapped in its `DBAPIError` class, or
the `DatabaseFault` that `database.classify` makes of it (full, read-only, busy). On any other
driver (PostgreSQL) `Prepared.run` is plain `AsyncConnection.execute`; PostgreSQL's single
statements outside a transaction use the same compiled forms (`Prepared.form`) on asyncpg itself
(`pg_link.py`).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from sqlalchemy.engine import Dialect, Engine
from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import AsyncConnection

from .database import classify
from .sqlite_link import OneTripConnection

Converters = tuple[tuple[str, Callable[[Any], Any] | None], ...]  # each name, and its type's converter
Form = tuple[str, Converters, Converters]  # the SQL, its parameters in order, the columns it returns


class Prepared:
    """One statement, compiled once per dialect and set of parameter names it is given."""

    def __init__(self, statement: Any) -> None:
        self.statement = statement
        self._forms: dict[tuple[str, tuple[str, ...]], Form | None] = {}

    def form(self, dialect: Dialect, keys: tuple[str, ...]) -> Form | None:
        """The SQL, each parameter's converter and each returned column's, for parameters with these keys.

        None when the statement has a parameter that is neither among the keys nor a constant (a
        column default SQLAlchemy would fill in): such a statement goes through SQLAlchemy.
        """
        key = (dialect.name, keys)
        if key not in self._forms:
            compiled = self.statement.compile(dialect=dialect, column_keys=list(keys))
            binds = []
            for name in compiled.positiontup or []:
                bind = compiled.binds[name]
                if name in keys:
                    binds.append((name, bind.type.dialect_impl(dialect).bind_processor(dialect)))
                elif bind.callable is None and bind.value is not None:  # a constant written in the statement
                    binds.append((name, _constant(bind.type.dialect_impl(dialect).bind_processor(dialect), bind.value)))
                else:
                    self._forms[key] = None
                    return None
            results = tuple(
                (column.key, column.type.dialect_impl(dialect).result_processor(dialect, None))
                for column in getattr(self.statement, "selected_columns", ())
            )
            self._forms[key] = (compiled.string, tuple(binds), results)
        return self._forms[key]

    async def run(self, c: AsyncConnection, rows: Sequence[dict[str, Any]]) -> int:
        """Run the statement once for each row in the open transaction; return the rows it changed."""
        return (await run_together(c, [(self, rows)]))[0]


async def run_together(c: AsyncConnection, steps: Sequence[tuple[Prepared, Sequence[dict[str, Any]]]]) -> list[int]:
    """Run each statement once for each of its rows, in order, in the open transaction; the rows each changed.

    A statement with no rows is not run (0). On SQLite they all go to the database's thread in one
    trip: inside a group commit's transaction each trip back waits its turn behind the learners' work
    in the event loop, and flat out in bench/core_bench.py the transaction held the writer about twice
    as long as SQLite took. The first that fails raises, as it would alone; the others are not run.
    """
    driver = (await c.get_raw_connection()).driver_connection
    forms = [p.form(c.dialect, tuple(rows[0])) if rows and isinstance(driver, OneTripConnection) else None for p, rows in steps]
    if not isinstance(driver, OneTripConnection) or any(form is None for form, (_, rows) in zip(forms, steps, strict=True) if rows):
        return [int((await c.execute(p.statement, list(rows))).rowcount) if rows else 0 for p, rows in steps]
    batch: list[tuple[str, list[Any]]] = []
    for form, (_, rows) in zip(forms, steps, strict=True):
        if form is not None:
            sql, binds, _ = form
            values = [bound(binds, row) for row in rows]
            announce(c, sql, values, many=True)
            batch.append((sql, values))
    counts, error = await driver.run_all(batch)
    if error is not None:
        sql, values = batch[len(counts)]
        raise driver_error(c, sql, values, error, sqlite3.Error) from error
    ran = iter(counts)
    return [next(ran) if rows else 0 for _, rows in steps]


def bound(binds: Converters, params: Mapping[str, Any]) -> tuple[Any, ...]:
    """The statement's parameters in order, each converted by its type."""
    return tuple(params.get(name) if convert is None else convert(params.get(name)) for name, convert in binds)


def announce(c: AsyncConnection | Engine, sql: str, params: Any, *, many: bool) -> None:
    """Tell `before_cursor_execute` listeners of a statement run on the driver, as SQLAlchemy does.

    On a connection taken from the engine's pool itself (`pg_link`), the engine's listeners hear it,
    with no connection.
    """
    if isinstance(c, Engine):
        c.dispatch.before_cursor_execute(None, None, sql, params, None, many)
        return
    connection = c.sync_connection
    if connection is not None:
        connection.dispatch.before_cursor_execute(connection, None, sql, params, None, many)


def driver_error(
    c: AsyncConnection | Engine, sql: str, params: Any, error: Exception, dbapi_error: type[Exception], *, disconnect: bool = False
) -> BaseException:
    """What SQLAlchemy raises for the driver's `error`: its `DBAPIError` class, or the `DatabaseFault` `classify` makes of it."""
    wrapped = DBAPIError.instance(sql, params, error, dbapi_error, connection_invalidated=disconnect, dialect=c.dialect)
    return classify(wrapped, c.engine.url.render_as_string(hide_password=True), disconnect=disconnect) or wrapped


def _constant(convert: Callable[[Any], Any] | None, value: Any) -> Callable[[Any], Any]:
    """A converter that ignores its argument: the statement's constant, converted once."""
    converted = value if convert is None else convert(value)
    return lambda _: converted
