"""PostgreSQL stores a plain click in one statement, with the same all-or-nothing outcomes as a transaction."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import delete, event, func, select, update

from bot.core.answer import AnswerWrite, PracticeDay
from bot.core.ports import Conflict
from bot.storage import SqlRepository
from bot.storage import tables as t
from bot.storage.daily_tables import daily_learners
from tests.storage import clicks


@pytest.fixture
def repo(pg_quiz_repo: SqlRepository) -> SqlRepository:
    return pg_quiz_repo


def _counting(repo: SqlRepository) -> list[str]:
    seen: list[str] = []

    def before(_c: Any, _cursor: Any, statement: str, *_rest: Any) -> None:
        seen.append(" ".join(statement.split())[:18])

    event.listen(repo.engine.sync_engine, "before_cursor_execute", before)
    return seen


async def _click(repo: SqlRepository, key: str, *, version: int | None = None) -> None:
    session = await repo.get_session("s1")
    assert session is not None
    if version is not None:
        session.version = version
    made = clicks.attempt(session, key)
    card = clicks.card(session)
    session.items[session.position].done = True
    session.position += 1
    day = PracticeDay("discord", "ann", clicks.AT)
    await repo.write_answer(AnswerWrite(session=session, attempt=made, card=card, day=day))


async def _count(repo: SqlRepository, table: Any) -> int:
    async with repo.engine.connect() as c:
        return int((await c.execute(select(func.count()).select_from(table))).scalar_one())


async def test_a_second_click_of_the_day_is_one_statement(repo: SqlRepository) -> None:
    await _click(repo, "k1")  # the learner's first answer of the day: a transaction with their row
    seen = _counting(repo)
    await _click(repo, "k2")
    writes = [s for s in seen if not s.startswith("SELECT sessions")]
    assert writes == ["WITH known AS ( SE"]
    assert await _count(repo, t.attempts) == 2
    async with repo.engine.connect() as c:
        row = (await c.execute(select(daily_learners.c.streak_current, daily_learners.c.streak_last_day))).one()
        answers = (await c.execute(select(func.sum(t.reviews.c.answers)))).scalar_one()
    assert row.streak_current == 1 and row.streak_last_day == clicks.AT.date()
    assert answers == 2
    stored = await repo.get_session("s1")
    assert stored is not None and stored.position == 2 and stored.version == 2


async def test_a_repeated_key_or_a_stale_version_keeps_nothing(repo: SqlRepository) -> None:
    await _click(repo, "k1")
    with pytest.raises(Conflict):
        await _click(repo, "k1")  # the same delivery again: its attempt key is stored
    with pytest.raises(Conflict):
        await _click(repo, "k3", version=0)  # another process saved the quiz since
    assert await _count(repo, t.attempts) == 1
    stored = await repo.get_session("s1")
    assert stored is not None and stored.position == 1 and stored.version == 1


async def test_a_learner_changed_elsewhere_is_stored_in_a_transaction(repo: SqlRepository) -> None:
    await _click(repo, "k1")
    async with repo.engine.begin() as c:  # another process deleted the learner's data
        await c.execute(delete(daily_learners))
    seen = _counting(repo)
    await _click(repo, "k2")
    assert seen.count("WITH known AS ( SE") == 1 and "INSERT INTO attemp" in seen  # tried, wrote nothing; a transaction
    assert await _count(repo, t.attempts) == 2
    assert await _count(repo, daily_learners) == 1  # the day is counted again
    async with repo.engine.begin() as c:  # another process moved the learner's zone
        await c.execute(update(daily_learners).values(zone="Pacific/Kiritimati", streak_last_day=None))
    await _click(repo, "k3")
    async with repo.engine.connect() as c:
        last = (await c.execute(select(daily_learners.c.streak_last_day))).scalar_one()
    assert last is not None  # stored by the transaction, in the learner's new zone
    assert await _count(repo, t.attempts) == 3
