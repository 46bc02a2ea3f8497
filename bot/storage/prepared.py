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
driver (PostgreSQL) `Prepared.run` is plain `AsyncConnection.execute`.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from typing import Any

from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import AsyncConnection

from .database import classify
from .sqlite_link import OneTripConnection

Binds = tuple[str, tuple[tuple[str, Callable[[Any], Any] | None], ...]]


class Prepared:
    """One statement, compiled for SQLite once per set of column names it is given."""

    def __init__(self, statement: Any) -> None:
        self.statement = statement
        self._forms: dict[tuple[str, ...], Binds] = {}

    def _form(self, c: AsyncConnection, keys: tuple[str, ...]) -> Binds | None:
        """The SQL and each parameter's converter for rows with these keys; None if a parameter is not among them."""
        form = self._forms.get(keys)
        if form is None:
            dialect = c.dialect
            compiled = self.statement.compile(dialect=dialect, column_keys=list(keys))
            names = compiled.positiontup or []
            if not set(names) <= set(keys):  # a default SQLAlchemy would fill in: let it
                return None
            binds = tuple(
                (name, compiled.binds[name].type.dialect_impl(dialect).bind_processor(dialect))
                for name in names
            )
            form = self._forms[keys] = (compiled.string, binds)
        return form

    async def run(self, c: AsyncConnection, rows: Sequence[dict[str, Any]]) -> int:
        """Run the statement once for each row in the open transaction; return the rows it changed."""
        driver = (await c.get_raw_connection()).driver_connection
        form = self._form(c, tuple(rows[0])) if isinstance(driver, OneTripConnection) else None
        if form is None:
            return int((await c.execute(self.statement, list(rows))).rowcount)
        assert isinstance(driver, OneTripConnection)  # the form is made for this driver only
        sql, binds = form
        values = [
            tuple(row[name] if convert is None else convert(row[name]) for name, convert in binds)
            for row in rows
        ]
        connection = c.sync_connection
        if connection is not None:  # tell listeners, as SQLAlchemy does
            connection.dispatch.before_cursor_execute(connection, None, sql, values, None, True)
        try:
            outcome = await driver.run(sql, values, many=True)
        except sqlite3.Error as exc:
            wrapped = DBAPIError.instance(sql, values, exc, sqlite3.Error, dialect=c.dialect)
            raise classify(wrapped, c.engine.url.render_as_string(hide_password=True)) or wrapped from exc
        return outcome[2]
