"""What every store shares: the engine, whether it is SQLite, the one write path, and the fault log."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Mapping
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any, Protocol

from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from bot.core.faults import FaultLog

from . import pg_link
from .prepared import Prepared
from .sqlite_read import read_alone


async def read_rows(engine: AsyncEngine, query: Prepared, params: Mapping[str, Any]) -> list[dict[str, Any]]:
    """One read's rows, each a dict of its columns, on the driver itself: asyncpg (`pg_link`) or SQLite's thread (`sqlite_read`)."""
    if engine.dialect.name != "sqlite":
        async with pg_link.direct(engine) as d:
            return await d.rows(query, params)
    return await read_alone(engine, query, params)


@asynccontextmanager
async def read_connection(engine: AsyncEngine) -> AsyncIterator[AsyncConnection]:
    """A connection for reading, with no transaction kept open after the block.

    On PostgreSQL the connection is in autocommit: each statement is its own transaction, as it
    would see under READ COMMITTED anyway, without a BEGIN and a ROLLBACK round trip around it.
    """
    async with engine.connect() as connection:
        if engine.dialect.name != "sqlite":
            await connection.execution_options(isolation_level="AUTOCOMMIT")
        yield connection


class Database:
    """Hand out connections to read and transactions to write.

    SQLite has one writer at a time: queueing writers on an asyncio lock here avoids busy-waiting
    in the driver. Every store of one repository shares one Database, so they share that queue.
    """

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine
        self.sqlite = engine.dialect.name == "sqlite"
        self.write_lock = asyncio.Lock()
        # Where a write in the background logs its failure (`anchors.py`): bot/app.py makes it the
        # process's one fault log, so a kind of failure is one line per interval, wherever it happens.
        self.faults = FaultLog()

    def read(self) -> AbstractAsyncContextManager[AsyncConnection]:
        """A connection for reading (`read_connection`: in autocommit on PostgreSQL)."""
        return read_connection(self.engine)

    async def rows(self, query: Prepared, params: Mapping[str, Any]) -> list[dict[str, Any]]:
        """Run one read and return its rows, each a dict of its columns.

        On PostgreSQL on asyncpg itself (`pg_link.py`: about half the CPU of SQLAlchemy's execute,
        which also switches the connection to AUTOCOMMIT first); on SQLite in one trip to the
        connection's thread (`sqlite_read.py`: about half).
        """
        return await read_rows(self.engine, query, params)

    @asynccontextmanager
    async def write(self) -> AsyncIterator[AsyncConnection]:
        """Yield a connection in a transaction, committed when the block ends and rolled back on error."""
        if self.sqlite:
            async with self.write_lock, self.engine.begin() as connection:
                yield connection
        else:
            async with self.engine.begin() as connection:
                yield connection


class HasDatabase(Protocol):
    """A repository whose stores share one `Database` (its engine and SQLite's write queue)."""

    @property
    def db(self) -> Database: ...


class Base:
    """A store of its own over one engine (daily practice, races): the same write path as `Database`."""

    def __init__(self, engine: AsyncEngine, *, write_lock: asyncio.Lock | None = None) -> None:
        self._engine = engine
        self._sqlite = engine.dialect.name == "sqlite"
        # SQLite has one writer at a time: queueing writers here avoids busy-waiting in the driver.
        self._write_lock = write_lock or asyncio.Lock()

    @property
    def engine(self) -> AsyncEngine:
        return self._engine

    def _read(self) -> AbstractAsyncContextManager[AsyncConnection]:
        """A connection for reading (`read_connection`): on PostgreSQL no BEGIN, no ROLLBACK around the reads."""
        return read_connection(self._engine)

    async def _rows(self, query: Prepared, params: Mapping[str, Any]) -> list[dict[str, Any]]:
        """One read's rows (`Database.rows`): on PostgreSQL on asyncpg itself, a third of SQLAlchemy's CPU."""
        return await read_rows(self._engine, query, params)

    @asynccontextmanager
    async def _write(self) -> AsyncIterator[AsyncConnection]:
        if self._sqlite:
            async with self._write_lock, self._engine.begin() as connection:
                yield connection
        else:
            async with self._engine.begin() as connection:
                yield connection
