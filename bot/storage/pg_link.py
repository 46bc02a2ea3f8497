"""PostgreSQL: the click's statements run on asyncpg's own connection, each its own transaction.

A click on PostgreSQL runs one or two single statements: the session's read (none for a guessed
click) and the answer's one statement (`one_statement.py`); where the next item was posted rides
with the next save, or is written with others' (`anchors.py`). A quiz's start reads here too
(`Database.rows`: the learner's active quiz, cards and language setting). Through
SQLAlchemy's `execute` a session's read cost 330 µs of the bot's CPU (a cache lookup for the
compiled form, an execution context, the asyncpg adapter's own statement cache and cursor, the
result's wrapping, and an AUTOCOMMIT switch on checkout); on the driver's connection it costs 190
(`bench/pg_statement_bench.py`; docs/reference/measured.md; 296 and 139 on 2026-12-05).

`Direct` borrows a pooled connection from the engine's pool (so the pool, its size, its idle ping and
its invalidation stay SQLAlchemy's) and runs statements on asyncpg directly. SQLAlchemy's adapter
never sees them, so it opens no transaction: each statement commits alone, as in autocommit. It
takes the connection with `Engine.raw_connection` (the pool's checkout, with the engine's handling
of a failed connect), not as an `AsyncConnection`, which these statements never used: borrowed and
given back that way cost 72 µs of CPU, this way 37 (`bench/pg_statement_bench.py`, medians of four
blocks of 2,000, 2026-12-05). `before_cursor_execute` listeners on the engine still see each
statement, with no connection (`conn` is None). The
SQL is compiled once per set of parameter names (`Prepared.form`, with the dialect's casts) and
values go through the column types' own converters, both ways, so what is stored and read back is
what SQLAlchemy would store and read.

Errors come out as SQLAlchemy's would: asyncpg's error translated by SQLAlchemy's adapter and
wrapped in its `DBAPIError` class (a duplicate key is an `IntegrityError`), or the `DatabaseFault`
that `database.classify` makes of it. A connection the server closed is invalidated, so the pool
opens a new one.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from typing import Any

from sqlalchemy.engine import Engine
from sqlalchemy.ext.asyncio import AsyncEngine
from sqlalchemy.util.concurrency import greenlet_spawn

from .database import classify
from .prepared import Prepared, announce, bound, driver_error

Row = dict[str, Any]


class Direct:
    """One pooled PostgreSQL connection, used through asyncpg itself; every statement commits alone."""

    def __init__(self, engine: Engine, raw: Any) -> None:
        self._engine = engine
        self._raw = raw  # the pool's connection (SQLAlchemy's proxy of it)
        self._adapter = raw.dbapi_connection  # SQLAlchemy's adapter: its error translation
        self._driver = raw.driver_connection  # asyncpg's Connection

    async def rows(self, prepared: Prepared, params: Mapping[str, Any]) -> list[Row]:
        """Run a statement that returns rows; each row as a dict of its columns, converted by their types."""
        sql, args, results = self._bound(prepared, params)
        try:
            records = await self._driver.fetch(sql, *args)
        except Exception as exc:
            raise await self._translated(exc, sql, args) from exc
        return [
            {name: value if convert is None else convert(value) for (name, convert), value in zip(results, record.values(), strict=True)}
            for record in records
        ]

    async def changed(self, prepared: Prepared, params: Mapping[str, Any]) -> int:
        """Run a statement that changes rows; the number it changed."""
        sql, args, _ = self._bound(prepared, params)
        try:
            status: str = await self._driver.execute(sql, *args)
        except Exception as exc:
            raise await self._translated(exc, sql, args) from exc
        return int(status.rsplit(" ", 1)[-1])  # "UPDATE 1", "INSERT 0 1"

    def _bound(self, prepared: Prepared, params: Mapping[str, Any]) -> tuple[str, tuple[Any, ...], Any]:
        form = prepared.form(self._engine.dialect, tuple(params))
        if form is None:
            raise ValueError(f"the statement needs parameters SQLAlchemy would fill in: {sorted(params)}")
        sql, binds, results = form
        args = bound(binds, params)
        announce(self._engine, sql, args, many=False)
        return sql, args, results

    async def _translated(self, exc: Exception, sql: str, args: tuple[Any, ...]) -> BaseException:
        """The error SQLAlchemy would have raised for asyncpg's `exc`; a closed connection is invalidated."""
        dialect = self._engine.dialect
        dbapi_error = dialect.loaded_dbapi.Error
        try:
            self._adapter._handle_exception(exc)  # raises asyncpg's error as the DB-API error SQLAlchemy maps it to
        except dbapi_error as translated:
            disconnect = bool(dialect.is_disconnect(translated, self._adapter, None))
            if disconnect:
                await greenlet_spawn(self._raw.invalidate, translated)
            return driver_error(self._engine, sql, args, translated, dbapi_error, disconnect=disconnect)
        except Exception as other:  # not the driver's (a timeout): as SQLAlchemy's handle_error sees it
            return classify(other, self._engine.url.render_as_string(hide_password=True)) or other
        return exc  # pragma: no cover (the adapter always raises)


@asynccontextmanager
async def direct(engine: AsyncEngine) -> AsyncIterator[Direct]:
    """Borrow a PostgreSQL connection from the engine's pool for statements run on asyncpg directly."""
    sync = engine.sync_engine
    raw = await greenlet_spawn(sync.raw_connection)
    try:
        yield Direct(sync, raw)
    finally:
        # Not run to completion in a task of its own, as SQLAlchemy's `AsyncConnection` does on exit
        # (with such a task the borrow measured 66 µs against 52 without): giving this connection
        # back never waits, so no cancellation can cut it short. SQLAlchemy's adapter holds no
        # transaction on it (each statement here commits alone), so the pool's reset sends nothing.
        await greenlet_spawn(raw.close)
