"""SQLite: a read on the driver itself (`sqlite_read.read_alone`) gives what SQLAlchemy gives, and fails as it would."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy import bindparam, event, select
from sqlalchemy.exc import OperationalError

from bot.core.daily.learner import DEFAULT_ZONE, Learner
from bot.core.model import History, Review
from bot.storage import SqlRepository, open_repository
from bot.storage import tables as t
from bot.storage.daily_rows import put_learner
from bot.storage.prepared import Prepared
from bot.storage.sqlite_link import OneTripConnection
from bot.storage.sqlite_read import read_alone
from tests.storage import clicks

_SESSION = Prepared(select(t.sessions).where(t.sessions.c.id == bindparam("id")))


@pytest.fixture
async def repo(tmp_path: Path) -> SqlRepository:
    opened = await open_repository(f"sqlite+aiosqlite:///{tmp_path / 'q.db'}")
    await opened.create_session(clicks.new_session("s1", "ann", 2))
    yield opened
    await opened.close()


async def test_a_row_read_on_the_driver_is_the_row_sqlalchemy_reads(repo: SqlRepository) -> None:
    (direct,) = await read_alone(repo.engine, _SESSION, {"id": "s1"})
    async with repo.engine.connect() as c:
        through_sqlalchemy = dict((await c.execute(_SESSION.statement, {"id": "s1"})).one()._mapping)
    assert direct == through_sqlalchemy
    assert direct["updated_at"] == through_sqlalchemy["updated_at"] and not isinstance(direct["updated_at"], str)
    assert await read_alone(repo.engine, _SESSION, {"id": "nope"}) == []


async def test_the_read_is_heard_and_its_connection_goes_back_with_no_transaction(repo: SqlRepository) -> None:
    heard: list[tuple[object, str]] = []
    event.listen(repo.engine.sync_engine, "before_cursor_execute", lambda conn, _c, sql, *_: heard.append((conn, sql)))
    await read_alone(repo.engine, _SESSION, {"id": "s1"})
    assert [sql.split()[0] for _, sql in heard] == ["SELECT"] and heard[0][0] is None  # once, with no connection
    pool = repo.engine.sync_engine.pool
    assert pool.checkedout() == 0
    async with repo.engine.connect() as c:
        driver = (await c.get_raw_connection()).driver_connection
        assert isinstance(driver, OneTripConnection)
        assert await driver.run_in_thread(lambda db: db.in_transaction) is False


async def test_a_failing_read_raises_what_sqlalchemy_raises_and_the_next_read_works(repo: SqlRepository) -> None:
    async with repo.db.write() as c:
        await c.exec_driver_sql("ALTER TABLE sessions RENAME TO sessions_gone")
    with pytest.raises(OperationalError, match="no such table: sessions"):
        await read_alone(repo.engine, _SESSION, {"id": "s1"})
    assert repo.engine.sync_engine.pool.checkedout() == 0
    async with repo.db.write() as c:
        await c.exec_driver_sql("ALTER TABLE sessions_gone RENAME TO sessions")
    assert [row["id"] for row in await read_alone(repo.engine, _SESSION, {"id": "s1"})] == ["s1"]


async def test_a_learners_zone_is_their_own_or_the_default(repo: SqlRepository) -> None:
    assert await repo.learner_zone("discord", "ann") == DEFAULT_ZONE
    async with repo.db.write() as c:
        await put_learner(c, Learner("discord", "ann", zone="Asia/Kolkata"))
    assert await repo.learner_zone("discord", "ann") == "Asia/Kolkata"
    assert await repo.learner_zone("slack", "ann") == DEFAULT_ZONE  # another platform's Ann


async def test_history_of_packs_whose_names_need_quoting(repo: SqlRepository) -> None:
    """The packs go in as one JSON array (`json_each`): odd names match exactly, and only themselves."""
    odd = 'o\'neil "x", ü%'
    session = clicks.new_session("s2", "bob", 1)
    await repo.create_session(session)
    due = datetime(2026, 12, 7, 6, 0, tzinfo=UTC)
    await repo.save_session(session, clicks.attempt(session, "k1"), Review("discord", "bob", odd, "q0", "{}", due, True))
    assert await repo.history("discord", "bob", ["demo", odd]) == {(odd, "q0"): History(1, True, due, "{}")}
    assert await repo.history("discord", "bob", ["o'neil", "%", "demo"]) == {}
    assert await repo.history("discord", "bob", []) == {}
