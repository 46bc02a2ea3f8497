"""aiosqlite's connection with one trip to its thread per statement, for SQLAlchemy's aiosqlite dialect.

aiosqlite runs every call on the database in a thread of its own, and each call is a trip there
and back: the thread takes it from a queue, and its result wakes the event loop, which resumes the
caller only after every task already waiting in the loop's queue has had its turn. SQLAlchemy's
dialect makes four such calls for a statement (open a cursor, execute, fetch the rows, close the
cursor) and one more to roll back a connection that holds no transaction when it goes back to the
pool. Under load the group commit's transaction (`writer.py`) then spent most of its time queued
behind learners' work: 16 trips for a batch of answers, while nothing else could be written.

Here a statement's cursor, execution, rows and close are one trip, and committing or rolling back
a connection with no transaction open costs none (the thread reports whether one is open after
each call). What SQLAlchemy sees is unchanged: the same sqlite3 errors, rows, rowcount and
lastrowid, the same transactions.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any, TypeVar

import aiosqlite

_Outcome = tuple[list[Any], Any, int, int | None, bool]
T = TypeVar("T")


def _run(db: sqlite3.Connection, sql: str, parameters: Any, many: bool) -> _Outcome:
    """In the connection's thread: run one statement and take all its rows."""
    cursor = db.cursor()
    try:
        if many:
            cursor.executemany(sql, parameters)
        else:
            cursor.execute(sql, () if parameters is None else parameters)
        description = cursor.description
        rows = cursor.fetchall() if description else []
        return rows, description, cursor.rowcount, cursor.lastrowid, db.in_transaction
    finally:
        cursor.close()


def _run_all(db: sqlite3.Connection, statements: list[tuple[str, list[Any]]]) -> tuple[list[int], sqlite3.Error | None, bool]:
    """In the connection's thread: run statements in order, each for many rows, until one fails.

    Returns the rows each one run changed, the error that stopped them (the failed statement is the
    one after the last count), and whether a transaction is open.
    """
    counts: list[int] = []
    for sql, values in statements:
        cursor = db.cursor()
        try:
            cursor.executemany(sql, values)
            counts.append(cursor.rowcount)
        except sqlite3.Error as exc:
            return counts, exc, db.in_transaction
        finally:
            cursor.close()
    return counts, None, db.in_transaction


def _call(db: sqlite3.Connection, work: Callable[[sqlite3.Connection], T]) -> tuple[T, bool]:
    """In the connection's thread: call `work` with the connection; what it returns, and whether a transaction is open."""
    return work(db), db.in_transaction


def _end(db: sqlite3.Connection, commit: bool) -> bool:
    """In the connection's thread: commit or roll back; whether a transaction is still open."""
    (db.commit if commit else db.rollback)()
    return db.in_transaction


class OneTripCursor:
    """A cursor whose statement runs in one trip; its rows wait here to be fetched."""

    arraysize = 1

    def __init__(self, connection: OneTripConnection) -> None:
        self._connection = connection
        self._rows: list[Any] = []
        self._next = 0
        self.description: Any = None
        self.rowcount = -1
        self.lastrowid: int | None = None

    async def __aenter__(self) -> OneTripCursor:
        return self

    async def __aexit__(self, *_exc: object) -> None:
        return None

    async def execute(self, sql: str, parameters: Any = None) -> OneTripCursor:
        self._take(await self._connection.run(sql, parameters, many=False))
        return self

    async def executemany(self, sql: str, parameters: Sequence[Any]) -> OneTripCursor:
        self._take(await self._connection.run(sql, parameters, many=True))
        return self

    def _take(self, outcome: _Outcome) -> None:
        self._rows, self.description, self.rowcount, self.lastrowid, _open = outcome
        self._next = 0

    async def fetchone(self) -> Any:
        if self._next >= len(self._rows):
            return None
        self._next += 1
        return self._rows[self._next - 1]

    async def fetchmany(self, size: int | None = None) -> list[Any]:
        start, self._next = self._next, min(len(self._rows), self._next + (size or self.arraysize))
        return self._rows[start : self._next]

    async def fetchall(self) -> list[Any]:
        start, self._next = self._next, len(self._rows)
        return self._rows[start:]

    def __aiter__(self) -> OneTripCursor:
        return self

    async def __anext__(self) -> Any:
        row = await self.fetchone()
        if row is None:
            raise StopAsyncIteration
        return row

    async def close(self) -> None:
        self._rows = []


class OneTripConnection(aiosqlite.Connection):
    """aiosqlite's connection, with the trips cut as this module says."""

    def __init__(self, connector: Callable[[], sqlite3.Connection]) -> None:
        super().__init__(connector, iter_chunk_size=64)
        self._thread.daemon = (
            True  # as SQLAlchemy's dialect sets it: a forgotten connection never holds the process
        )
        self._open = True  # whether a transaction may be open: unknown until the thread says

    def cursor(self) -> OneTripCursor:  # type: ignore[override]  # SQLAlchemy enters it as `async with`
        return OneTripCursor(self)

    async def run(self, sql: str, parameters: Any, *, many: bool) -> _Outcome:
        self._open = True  # a statement that fails may leave one open
        outcome: _Outcome = await self._execute(_run, self._conn, sql, parameters, many)  # type: ignore[no-untyped-call]
        self._open = outcome[4]
        return outcome

    async def run_all(self, statements: list[tuple[str, list[Any]]]) -> tuple[list[int], sqlite3.Error | None]:
        """Run statements in order, each for many rows, in one trip (`_run_all`): their row counts, and the error that stopped them."""
        self._open = True
        counts, error, self._open = await self._execute(_run_all, self._conn, statements)  # type: ignore[no-untyped-call]
        return counts, error

    async def run_in_thread(self, work: Callable[[sqlite3.Connection], T]) -> T:
        """Call `work` with the sqlite3 connection in its thread, in one trip (`group_trip.py`); what it returns."""
        self._open = True
        result, self._open = await self._execute(_call, self._conn, work)  # type: ignore[no-untyped-call]
        return result  # type: ignore[no-any-return]

    async def commit(self) -> None:
        if self._open:
            self._open = await self._execute(_end, self._conn, True)  # type: ignore[no-untyped-call]

    async def rollback(self) -> None:
        if self._open:
            self._open = await self._execute(_end, self._conn, False)  # type: ignore[no-untyped-call]


def creator(path: str, **options: Any) -> Callable[[], Any]:
    """SQLAlchemy's `async_creator` for a database file: connections that make one trip per statement."""

    async def connect() -> OneTripConnection:
        connection = OneTripConnection(partial(sqlite3.connect, path, **options))
        await connection  # starts its thread and opens the file
        return connection

    return connect
