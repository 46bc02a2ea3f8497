"""SQLite: a single read on the driver's connection, in one trip, without SQLAlchemy's execution.

Through SQLAlchemy a read outside a transaction (`engine.connect()` and `execute`) cost 274 µs of
the bot's CPU on SQLite (`bench/sqlite_read_bench.py`, medians of three blocks, 2026-12-07), where
a trip to the database's thread and SQLite's own work took about 20: a connection wrapped and its
reset on return, a cache lookup for the compiled form, an execution context, the greenlet bridge
around every driver call, the result's wrapping. A quiz's start made four such reads (its
learner's quiz, cards, time zone and language). Here, as `pg_link.py` does on PostgreSQL, the
pool's connection is borrowed as it is (`Engine.raw_connection`, so the pool, its size and its
reset stay SQLAlchemy's), the statement is compiled once per set of parameter names
(`Prepared.form`, with the column types' converters both ways, so values read back are what
SQLAlchemy would give) and run by `OneTripConnection.run`: 134 µs a read.

A SELECT opens no transaction in the sqlite3 module, so the connection goes back to the pool with
nothing to roll back and no trip. Listeners of `before_cursor_execute` on the engine hear each
statement, with no connection. Errors come out as SQLAlchemy's would (`prepared.driver_error`).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping
from typing import Any

from sqlalchemy.ext.asyncio import AsyncEngine
from sqlalchemy.util.concurrency import greenlet_spawn

from .prepared import Prepared, announce, bound, driver_error
from .sqlite_link import OneTripConnection

Row = dict[str, Any]


async def read_alone(engine: AsyncEngine, query: Prepared, params: Mapping[str, Any]) -> list[Row]:
    """One read's rows on SQLite, each a dict of its columns, converted by their types."""
    sync = engine.sync_engine
    form = query.form(sync.dialect, tuple(params))
    raw = await greenlet_spawn(sync.raw_connection)
    try:
        driver = raw.driver_connection
        if form is not None and isinstance(driver, OneTripConnection):
            sql, binds, results = form
            args = bound(binds, params)
            announce(sync, sql, args, many=False)
            try:
                records = (await driver.run(sql, args, many=False))[0]
            except sqlite3.Error as exc:
                raise driver_error(sync, sql, args, exc, sqlite3.Error) from exc
            return [
                {name: value if convert is None else convert(value) for (name, convert), value in zip(results, record, strict=True)}
                for record in records
            ]
    finally:
        await greenlet_spawn(raw.close)
    # A parameter SQLAlchemy would fill in, or another driver: SQLAlchemy's way.
    async with engine.connect() as c:
        return [dict(row._mapping) for row in await c.execute(query.statement, params)]
