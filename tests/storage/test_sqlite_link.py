"""SQLite's driver link: one trip to aiosqlite's thread a statement, and prepared statements that store what SQLAlchemy would."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import bindparam, event, insert, select, text, update
from sqlalchemy.exc import IntegrityError

from bot.core.errors import DatabaseFault
from bot.storage import SqlRepository, open_repository
from bot.storage import tables as t
from bot.storage.database import SQLITE_CACHE_KIB, SQLITE_POOL_SIZE
from bot.storage.prepared import Prepared, run_together
from bot.storage.sqlite_link import OneTripConnection


def _attempt(n: int, *, key: str | None = None) -> dict[str, Any]:
    return {
        "platform": "discord", "scope": "g1", "user_id": f"u{n}", "pack_id": "p", "question_id": "q1", "topic": None,
        "answer": "B", "correct": n % 2 == 0, "points": 10, "at": datetime(2026, 12, 5, 9, 30, n, 123456, tzinfo=UTC),
        "session_id": None, "key": key, "mode": "quiz", "detail": None,
    }  # fmt: skip


@pytest.fixture
async def repo(tmp_path: Path) -> AsyncIterator[SqlRepository]:
    repository = await open_repository(f"sqlite+aiosqlite:///{tmp_path / 'link.db'}")
    yield repository
    await repository.close()


def _count_trips(driver: OneTripConnection) -> list[str]:
    """Record each call aiosqlite's thread runs for this connection (aiosqlite's own queueing method, observed)."""
    trips: list[str] = []
    queue = driver._execute

    async def counted(fn: Any, *args: Any, **kwargs: Any) -> Any:
        trips.append(getattr(fn, "__name__", repr(fn)))
        return await queue(fn, *args, **kwargs)

    driver._execute = counted  # type: ignore[method-assign]
    return trips


async def test_a_statement_is_one_trip_and_ending_no_transaction_is_none(repo: SqlRepository) -> None:
    async with repo.engine.connect() as c:
        driver = (await c.get_raw_connection()).driver_connection
        assert isinstance(driver, OneTripConnection)
        trips = _count_trips(driver)
        rows = (await c.execute(text("SELECT 1 UNION ALL SELECT 2"))).all()
        assert [tuple(r) for r in rows] == [(1,), (2,)]
        assert trips == ["_run"]  # cursor, execute, rows and close: one trip (aiosqlite's cursor took four)
        await c.rollback()  # nothing was written: no transaction to end
        assert trips == ["_run"]
        await c.execute(insert(t.settings).values(key="k", value="v"))
        await c.commit()
        assert trips == ["_run", "_run", "_end"]
    async with repo.engine.connect() as c:
        assert (await c.execute(select(t.settings.c.value))).scalar_one() == "v"


async def test_prepared_rows_are_stored_as_sqlalchemy_stores_them(repo: SqlRepository) -> None:
    prepared = Prepared(insert(t.attempts))
    async with repo.engine.begin() as c:
        assert await prepared.run(c, [_attempt(1), _attempt(2)]) == 2
        await c.execute(insert(t.attempts), [_attempt(3), _attempt(4)])  # SQLAlchemy's own execution, to compare
    async with repo.engine.connect() as c:
        stored = (await c.execute(text("SELECT user_id, correct, at, mode FROM attempts ORDER BY user_id"))).all()
        typed = (await c.execute(select(t.attempts.c.at, t.attempts.c.correct).order_by(t.attempts.c.user_id))).all()
    assert [tuple(r) for r in stored] == [
        ("u1", 0, "2026-12-05 09:30:01.123456", "quiz"),
        ("u2", 1, "2026-12-05 09:30:02.123456", "quiz"),
        ("u3", 0, "2026-12-05 09:30:03.123456", "quiz"),
        ("u4", 1, "2026-12-05 09:30:04.123456", "quiz"),
    ]
    assert typed[0] == (datetime(2026, 12, 5, 9, 30, 1, 123456, tzinfo=UTC), False)


async def test_a_prepared_update_counts_the_rows_its_condition_matched(repo: SqlRepository) -> None:
    change = Prepared(update(t.settings).where(t.settings.c.key == bindparam("b_key")).values(value=bindparam("value")))
    async with repo.engine.begin() as c:
        await c.execute(insert(t.settings), [{"key": "a", "value": "1"}, {"key": "b", "value": "1"}])
        assert await change.run(c, [{"b_key": "a", "value": "2"}, {"b_key": "nobody", "value": "2"}]) == 1
    async with repo.engine.connect() as c:
        assert dict((await c.execute(select(t.settings.c.key, t.settings.c.value))).all()) == {"a": "2", "b": "1"}


async def test_a_prepared_statement_fails_as_sqlalchemy_would_and_keeps_nothing(repo: SqlRepository) -> None:
    prepared = Prepared(insert(t.attempts))
    with pytest.raises(IntegrityError):  # the attempt's key is stored: the same click delivered twice
        async with repo.engine.begin() as c:
            await prepared.run(c, [_attempt(1, key="k1")])
            await prepared.run(c, [_attempt(2, key="k1")])
    async with repo.engine.connect() as c:
        assert (await c.execute(text("SELECT count(*) FROM attempts"))).scalar_one() == 0  # the first one rolled back too
    with pytest.raises(DatabaseFault) as fault:  # a database that refuses writes: the fault the bot tells apart
        async with repo.engine.begin() as c:
            await c.execute(text("PRAGMA query_only = ON"))
            try:
                await prepared.run(c, [_attempt(3)])
            finally:
                await c.execute(text("PRAGMA query_only = OFF"))
    assert fault.value.kind == "read-only"
    assert isinstance(fault.value.__cause__, sqlite3.OperationalError)


async def test_statements_run_together_are_one_trip_and_the_first_failure_stops_them(repo: SqlRepository) -> None:
    """`run_together`: each statement's count in order, an empty one skipped, all in one trip; a failure names its statement."""
    change = Prepared(update(t.settings).where(t.settings.c.key == bindparam("b_key")).values(value=bindparam("value")))
    attempts, settings = Prepared(insert(t.attempts)), Prepared(insert(t.settings))
    seen: list[str] = []
    event.listen(repo.engine.sync_engine, "before_cursor_execute", lambda *a: seen.append(a[2].split()[0]))
    async with repo.engine.begin() as c:
        await c.execute(insert(t.settings), [{"key": "a", "value": "1"}, {"key": "b", "value": "1"}])
        driver = (await c.get_raw_connection()).driver_connection
        assert isinstance(driver, OneTripConnection)
        trips = _count_trips(driver)
        counts = await run_together(
            c, [(change, [{"b_key": "a", "value": "2"}, {"b_key": "nobody", "value": "2"}]), (settings, []), (attempts, [_attempt(1), _attempt(2)])]
        )  # fmt: skip
        assert counts == [1, 0, 2]
        assert trips == ["_run_all"]
        assert seen == ["INSERT", "UPDATE", "INSERT"]  # listeners hear each statement run, as from SQLAlchemy
    with pytest.raises(IntegrityError) as failed:  # the second statement's key is stored: the third never runs
        async with repo.engine.begin() as c:
            await run_together(
                c, [(change, [{"b_key": "b", "value": "3"}]), (attempts, [_attempt(3, key="k"), _attempt(4, key="k")]), (settings, [{"key": "c", "value": "1"}])]
            )  # fmt: skip
    assert "INSERT INTO attempts" in str(failed.value.statement)
    async with repo.engine.connect() as c:
        assert dict((await c.execute(select(t.settings.c.key, t.settings.c.value))).all()) == {"a": "2", "b": "1"}
        assert (await c.execute(text("SELECT count(*) FROM attempts"))).scalar_one() == 2


async def test_a_burst_of_readers_shares_the_kept_connections(repo: SqlRepository) -> None:
    opened: list[object] = []
    event.listen(repo.engine.sync_engine, "connect", lambda connection, _record: opened.append(connection))

    async def read() -> int:
        async with repo.engine.connect() as c:
            await asyncio.sleep(0.01)  # all of them hold a connection at once
            return int((await c.execute(text("SELECT 1"))).scalar_one())

    assert await asyncio.gather(*(read() for _ in range(60))) == [1] * 60
    assert len(opened) <= SQLITE_POOL_SIZE  # the rest waited their turn; nothing opened for the burst and closed after it
    assert repo.engine.sync_engine.pool.checkedin() == len(opened) + 1  # kept: the one the repository opened, and these


async def test_each_connection_keeps_a_small_page_cache(repo: SqlRepository) -> None:
    async def cache_size() -> int:
        async with repo.engine.connect() as c:
            await asyncio.sleep(0.01)  # held at once: several connections answer
            return int((await c.execute(text("PRAGMA cache_size"))).scalar_one())

    assert set(await asyncio.gather(*(cache_size() for _ in range(5)))) == {-SQLITE_CACHE_KIB}


async def test_an_in_memory_database_is_one_kept_connection() -> None:
    repository = await open_repository("sqlite+aiosqlite://")
    try:
        async with repository.engine.begin() as c:
            await c.execute(insert(t.settings).values(key="k", value="v"))
        async with repository.engine.connect() as c:
            assert (await c.execute(select(t.settings.c.value))).scalar_one() == "v"
    finally:
        await repository.close()
