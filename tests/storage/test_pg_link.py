"""PostgreSQL: the click's statements on asyncpg itself read and write what SQLAlchemy would, and fail as it would."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

import asyncpg
import pytest
from sqlalchemy import Boolean, event, insert, select, text

from bot.core.errors import DatabaseFault
from bot.core.model import History
from bot.core.ports import Conflict
from bot.storage import SqlRepository, pg_link
from bot.storage import tables as t
from bot.storage.prepared import Prepared
from bot.storage.sessions import SessionStore
from tests.storage.conftest import PG_ADMIN


@pytest.fixture
def repo(pg_quiz_repo: SqlRepository) -> SqlRepository:
    return pg_quiz_repo


def _store(repo: SqlRepository) -> SessionStore:
    assert isinstance(repo.sessions, SessionStore)  # PostgreSQL: no cache in front
    return repo.sessions


async def test_a_row_read_directly_is_the_row_sqlalchemy_reads(repo: SqlRepository) -> None:
    direct = await _store(repo).get_row("s1")
    async with repo.engine.connect() as c:
        through_sqlalchemy = dict((await c.execute(select(t.sessions).where(t.sessions.c.id == "s1"))).one()._mapping)
    assert direct == through_sqlalchemy
    assert direct["updated_at"].tzinfo is not None  # the column type's converter ran (UTC, aware)
    assert await _store(repo).get_row("nope") is None


async def test_a_write_stores_what_sqlalchemy_stores_and_a_duplicate_is_an_integrity_error(repo: SqlRepository) -> None:
    at = datetime(2026, 12, 5, 7, 30, 15, 123456, tzinfo=UTC)
    row = {"platform": "slack", "user_id": "u1", "pack_id": "p", "question_id": "q", "card": "{}", "due": at,
           "correct": True, "answers": 1}  # fmt: skip
    statement = Prepared(insert(t.reviews))
    async with pg_link.direct(repo.engine) as d:
        assert await d.changed(statement, row) == 1
        with pytest.raises(Exception) as caught:
            await d.changed(statement, row)
    assert type(caught.value).__name__ == "IntegrityError" and "duplicate key" in str(caught.value)
    async with repo.engine.connect() as c:
        stored = (await c.execute(select(t.reviews.c.due, t.reviews.c.correct))).one()
    assert stored.due == at and stored.correct is True  # autocommit: kept though the next statement failed


async def test_a_stale_save_alone_is_refused_and_changes_nothing(repo: SqlRepository) -> None:
    first, second = await repo.get_session("s1"), await repo.get_session("s1")
    assert first is not None and second is not None
    first.position = 1
    await repo.save_session(first)  # one statement: version 0 -> 1
    second.position = 3
    with pytest.raises(Conflict):
        await repo.save_session(second)  # read at version 0: stale
    stored = await _store(repo).get_row("s1")
    assert stored is not None and (stored["version"], stored["position"]) == (1, 1)


async def test_a_connection_the_server_closed_is_replaced(repo: SqlRepository) -> None:
    database = repo.engine.url.database
    assert await _store(repo).get_row("s1") is not None  # the pool holds an open connection now
    admin = await asyncpg.connect(PG_ADMIN)
    try:
        closed = await admin.fetchval(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()",
            database,
        )
    finally:
        await admin.close()
    assert closed >= 1
    with pytest.raises(DatabaseFault) as caught:
        await _store(repo).get_row("s1")
    assert caught.value.kind == "unavailable" and "password" not in str(caught.value)
    assert (await _store(repo).get_row("s1") or {}).get("id") == "s1"  # the pool opened a new connection


async def test_a_statement_cut_off_by_cancellation_leaves_no_broken_connection(repo: SqlRepository) -> None:
    sleep = Prepared(text("SELECT pg_sleep(CAST(:s AS FLOAT)) IS NULL AS slept").columns(slept=Boolean()))

    async def slow() -> None:
        async with pg_link.direct(repo.engine) as d:
            await d.rows(sleep, {"s": 2})

    task = asyncio.create_task(slow())
    await asyncio.sleep(0.3)  # the statement is running on the server
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    for _ in range(30):  # every pooled connection in turn, the one the cancelled statement had among them
        assert (await _store(repo).get_row("s1") or {}).get("id") == "s1"


async def test_borrows_cancelled_at_any_moment_all_go_back_to_the_pool(repo: SqlRepository) -> None:
    pool = repo.engine.sync_engine.pool
    reads = Prepared(text("SELECT id FROM sessions WHERE id = :id"))

    async def read() -> None:
        async with pg_link.direct(repo.engine) as d:
            await d.rows(reads, {"id": "s1"})

    for delay in range(40):  # cancelled before, during and after the borrow, its statement and its return
        tasks = [asyncio.create_task(read()) for _ in range(8)]
        for _ in range(delay % 10):
            await asyncio.sleep(0)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        assert pool.checkedout() == 0, f"{pool.checkedout()} left out of the pool (cancelled after {delay % 10} turns)"
    assert (await _store(repo).get_row("s1") or {}).get("id") == "s1"


async def test_a_code_answers_work_row_is_begun_and_ended_in_one_statement_each(repo: SqlRepository) -> None:
    from tests.storage.test_unfinished_work import work  # the same row as the unfinished-work tests

    transactions: list[object] = []

    def began(connection: object) -> None:
        transactions.append(connection)

    event.listen(repo.engine.sync_engine, "begin", began)
    try:
        assert await repo.work.begin(work(1)) is True
        assert await repo.work.begin(work(2, item="s1:0", process="p2")) is False  # another live row: kept
        assert [w.id for w in await repo.work.all()] == ["w1"]
        await repo.work.end("w1")
    finally:
        event.remove(repo.engine.sync_engine, "begin", began)
    assert await repo.work.all() == []
    assert len(transactions) == 1  # only `all()`'s read: no BEGIN ... COMMIT around the begin and end


async def test_a_quiz_starts_reads_run_on_asyncpg_itself_and_read_what_was_stored(repo: SqlRepository) -> None:
    """The learner's cards (the packs as one array parameter) and a setting: no SQLAlchemy execute, same values."""
    at = datetime(2026, 12, 6, 9, 15, 30, 123456, tzinfo=UTC)
    async with repo.engine.begin() as c:
        await c.execute(insert(t.reviews), [
            {"platform": "slack", "user_id": "ann", "pack_id": pack, "question_id": q, "card": '{"s": 1}', "due": at,
             "correct": q == "q0", "answers": 2}
            for pack in ("demo", "other", "third") for q in ("q0", "q1")
        ] + [{"platform": "slack", "user_id": "bob", "pack_id": "demo", "question_id": "q0", "card": "{}", "due": at,
              "correct": True, "answers": 1}])  # fmt: skip
    await repo.set_setting("slack:language:ann", "de")
    executed: list[object] = []

    def seen(conn: object, cursor: object, statement: str, params: object, context: object, many: bool) -> None:
        executed.append(conn)

    event.listen(repo.engine.sync_engine, "before_cursor_execute", seen)
    try:
        history = await repo.history("slack", "ann", ["demo", "third", "none"])
        language = await repo.get_setting("slack:language:ann")
        missing = await repo.get_setting("slack:language:bob")
    finally:
        event.remove(repo.engine.sync_engine, "before_cursor_execute", seen)
    assert sorted(history) == [("demo", "q0"), ("demo", "q1"), ("third", "q0"), ("third", "q1")]
    assert history["demo", "q0"] == History(2, True, at, '{"s": 1}') and history["third", "q1"].last_correct is False
    assert history["demo", "q0"].due.tzinfo is not None  # the column type's converter ran
    assert (language, missing) == ("de", None)
    assert executed == [None, None, None]  # three statements, each on the driver itself (no connection)
    assert await repo.history("slack", "ann", []) == {}
