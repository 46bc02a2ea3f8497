"""PostgreSQL stores a plain click in one statement, with the same all-or-nothing outcomes as a transaction."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from datetime import datetime, timedelta
from typing import Any

import asyncpg
import pytest
from sqlalchemy import delete, event, func, select, update

from bot.core.answer import AnswerWrite, Leech, PracticeDay
from bot.core.daily.learner import Learner
from bot.core.ports import Conflict, WorkTaken
from bot.core.work import Work
from bot.storage import SqlRepository, open_repository
from bot.storage import tables as t
from bot.storage.daily import DailyRepository
from bot.storage.daily_tables import daily_cards, daily_days, daily_learners
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


async def _click(
    repo: SqlRepository,
    key: str,
    *,
    version: int | None = None,
    work: str | None = None,
    at: datetime = clicks.AT,
    reviews: int = 0,
    new: int = 0,
    leech: Leech | None = None,
) -> None:
    """Answer Ann's current item of "s1"; with `work`, a code answer settling that row and its item's rows."""
    session = await repo.get_session("s1")
    assert session is not None
    if version is not None:
        session.version = version
    made = replace(clicks.attempt(session, key), work=work)
    card = clicks.card(session)
    settles = f"s1:{session.position}" if work is not None else None
    session.current.done = True  # type: ignore[union-attr]
    session.position += 1
    day = PracticeDay("discord", "ann", at, reviews=reviews, new=new)
    await repo.write_answer(AnswerWrite(session=session, attempt=made, card=card, day=day, settles=settles, leech=leech))


def _work(work_id: str, position: int, process: str) -> Work:
    at = clicks.AT
    return Work(work_id, "discord", "ann", f"s1:{position}", "grade", None, process, at, at + timedelta(minutes=3))


async def _count(repo: SqlRepository, table: Any) -> int:
    async with repo.engine.connect() as c:
        return int((await c.execute(select(func.count()).select_from(table))).scalar_one())


async def test_a_second_click_of_the_day_is_one_statement(repo: SqlRepository) -> None:
    await _click(repo, "k1")  # the learner's first answer ever: their row made with it
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


async def _streak(repo: SqlRepository) -> tuple[int, int, Any]:
    async with repo.engine.connect() as c:
        dl = daily_learners.c
        row = (await c.execute(select(dl.streak_current, dl.streak_longest, dl.streak_last_day))).one()
    return row.streak_current, row.streak_longest, row.streak_last_day


async def test_the_days_first_answer_reads_the_streak_and_moves_it_in_the_answers_statement(pg_url: str) -> None:
    yesterday = clicks.AT - timedelta(days=1)
    first = await open_repository(pg_url)
    await first.create_session(clicks.new_session("s1", "ann", 5))
    await _click(first, "k1", at=yesterday)  # the learner's first answer ever: their row made with it
    await first.close()
    again, other = await open_repository(pg_url, migrate=False), await open_repository(pg_url, migrate=False)
    try:  # processes that have stored nothing of Ann (started since, or another one)
        seen = _counting(again)
        await _click(again, "k2")
        writes = [s for s in seen if not s.startswith("SELECT sessions")]
        assert writes == ["SELECT daily_learn", "WITH known AS ( SE"]  # no BEGIN, no COMMIT, no transaction
        assert await _streak(again) == (2, 2, clicks.AT.date())
        seen = _counting(other)
        await _click(other, "k3")  # the day is stored already (by the other process): the streak stays
        assert [s for s in seen if not s.startswith("SELECT sessions")] == ["SELECT daily_learn", "WITH known AS ( SE"]
        assert await _streak(other) == (2, 2, clicks.AT.date())
        seen = _counting(again)
        await _click(again, "k4")  # this process stored the day: one statement
        assert [s for s in seen if not s.startswith("SELECT sessions")] == ["WITH known AS ( SE"]
        assert await _count(again, t.attempts) == 4
    finally:
        await again.close()
        await other.close()


async def _waiting_for_a_lock(watcher: asyncpg.Connection) -> int:
    """How many of this database's connections wait for a lock, once one does (at most about 5 s)."""
    waiting = 0
    for _ in range(500):
        waiting = await watcher.fetchval(
            "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()"
        )
        if waiting:
            break
        await asyncio.sleep(0.01)
    return int(waiting)


async def test_a_learners_row_changed_after_its_read_keeps_the_change_and_counts_the_day_on_it(pg_url: str) -> None:
    first = await open_repository(pg_url)
    await first.create_session(clicks.new_session("s1", "ann", 5))
    await _click(first, "k1", at=clicks.AT - timedelta(days=1))
    await first.close()
    repo = await open_repository(pg_url, migrate=False)
    plain = pg_url.replace("+asyncpg", "")
    holder, watcher = await asyncpg.connect(plain), await asyncpg.connect(plain)
    try:
        async with holder.transaction():  # another process holds Ann's row, then changes her streak
            await holder.execute("SELECT 1 FROM daily_learners WHERE user_id = 'ann' FOR UPDATE")
            click = asyncio.create_task(_click(repo, "k2"))  # reads the row (1 day), then waits for the lock
            assert await _waiting_for_a_lock(watcher) == 1
            await holder.execute("UPDATE daily_learners SET streak_current = 5, streak_longest = 5 WHERE user_id = 'ann'")
        await click
        assert await _streak(repo) == (6, 6, clicks.AT.date())  # the day counted on the row as changed, not as read
        assert await _count(repo, t.attempts) == 2
    finally:
        await holder.close()
        await watcher.close()
        await repo.close()


async def test_a_learners_very_first_answer_makes_their_row_in_the_answers_statement(repo: SqlRepository) -> None:
    seen = _counting(repo)
    await _click(repo, "k1")
    assert [s for s in seen if not s.startswith("SELECT sessions")] == ["SELECT daily_learn", "WITH lk AS ( SELEC"]
    _day, expected = PracticeDay("discord", "ann", clicks.AT).apply(Learner("discord", "ann"))
    assert await DailyRepository.beside(repo).get_learner("discord", "ann") == expected  # as the transaction makes it
    assert await _streak(repo) == (1, 1, clicks.AT.date()) and await _count(repo, t.attempts) == 1
    seen.clear()
    await _click(repo, "k2")  # the row and the day are known now: the plain one statement
    assert [s for s in seen if not s.startswith("SELECT sessions")] == ["WITH known AS ( SE"]


async def test_a_very_first_answer_on_a_stale_quiz_makes_no_row(repo: SqlRepository) -> None:
    with pytest.raises(Conflict):
        await _click(repo, "k1", version=3)  # not the version stored: another process saved the quiz meanwhile
    assert await _count(repo, daily_learners) == 0 and await _count(repo, t.attempts) == 0


async def test_a_row_another_process_makes_meanwhile_keeps_its_streak_and_counts_the_day_on_it(repo: SqlRepository, pg_url: str) -> None:
    plain = pg_url.replace("+asyncpg", "")
    holder, watcher = await asyncpg.connect(plain), await asyncpg.connect(plain)
    yesterday = (clicks.AT - timedelta(days=1)).date()
    try:
        async with holder.transaction():  # another process makes Ann's row (5 days by yesterday), not yet committed
            await holder.execute(
                "INSERT INTO daily_learners (platform, user_id, zone, review_cap, new_cap, packs, remind_failures,"
                " remind_stopped, streak_current, streak_longest, streak_freezes, streak_last_day, streak_frozen_days,"
                " updated_at) VALUES ('discord', 'ann', 'UTC', 20, 5, '[]', 0, false, 5, 5, 0, $1, 0, now())",
                yesterday,
            )
            click = asyncio.create_task(_click(repo, "k1"))  # reads no row, then waits on the row's insert
            assert await _waiting_for_a_lock(watcher) == 1
        await click
        assert await _streak(repo) == (6, 6, clicks.AT.date())  # the other row kept, the day counted on it
        assert await _count(repo, t.attempts) == 1 and await _count(repo, daily_learners) == 1
    finally:
        await holder.close()
        await watcher.close()


async def _review_rows(repo: SqlRepository) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    async with repo.engine.connect() as c:
        days = (await c.execute(select(daily_days.c.day, daily_days.c.reviews, daily_days.c.new).order_by(daily_days.c.day))).all()
        cards = (await c.execute(select(daily_cards.c.question_id, daily_cards.c.failures, daily_cards.c.suspended).order_by("question_id"))).all()
    return [tuple(r) for r in days], [tuple(r) for r in cards]


async def test_a_daily_review_answer_counts_its_day_and_its_cards_failures_in_the_one_statement(pg_url: str) -> None:
    repo = await open_repository(pg_url)
    await repo.create_session(clicks.new_session("s1", "ann", 5))
    try:
        await _click(repo, "k1")  # the learner's first answer ever: their row made with it
        seen = _counting(repo)
        await _click(repo, "k2", reviews=1, leech=Leech("demo", "q1", 1, False))
        await _click(repo, "k3", new=1, leech=Leech("demo", "q2", 8, True))
        await _click(repo, "k4", reviews=1)
        assert [s for s in seen if not s.startswith("SELECT sessions")] == ["WITH known AS ( SE"] * 3
        day = clicks.AT.date()
        assert await _review_rows(repo) == ([(day, 2, 1)], [("q1", 1, False), ("q2", 8, True)])
        with pytest.raises(Conflict):  # the same delivery again: nothing counted twice
            await _click(repo, "k4", reviews=1, leech=Leech("demo", "q1", 2, False))
        assert await _review_rows(repo) == ([(day, 2, 1)], [("q1", 1, False), ("q2", 8, True)])
    finally:
        await repo.close()
    later = await open_repository(pg_url, migrate=False)  # the next day, in a process that stored nothing of Ann
    try:
        seen = _counting(later)
        await _click(later, "k5", at=clicks.AT + timedelta(days=1), reviews=1, leech=Leech("demo", "q1", 2, False))
        assert [s for s in seen if not s.startswith("SELECT sessions")] == ["SELECT daily_learn", "WITH known AS ( SE"]
        tomorrow = day + timedelta(days=1)
        assert await _review_rows(later) == ([(day, 2, 1), (tomorrow, 1, 0)], [("q1", 2, False), ("q2", 8, True)])
        assert await _streak(later) == (2, 2, tomorrow)
        assert await _count(later, t.attempts) == 5
    finally:
        await later.close()


async def test_a_code_answer_settles_its_work_rows_in_the_one_statement(repo: SqlRepository) -> None:
    await _click(repo, "k1")
    await repo.work.begin(_work("mine", 1, "p1"))
    await repo.work.begin(_work("other", 2, "p2"))  # another item's: stays
    seen = _counting(repo)
    await _click(repo, "k2", work="mine")
    writes = [s for s in seen if not s.startswith("SELECT sessions")]
    assert writes == ["WITH known AS ( SE"]
    assert [w.id for w in await repo.work.all()] == ["other"]
    assert await _count(repo, t.attempts) == 2


async def test_a_code_answer_whose_work_row_was_taken_stores_nothing(repo: SqlRepository) -> None:
    await _click(repo, "k1")
    await repo.work.begin(_work("mine", 1, "p1"))
    assert await repo.work.take("mine", clicks.AT + timedelta(minutes=5))  # the learner was told to send it again
    assert await repo.work.begin(_work("theirs", 1, "p2"))  # the answer sent again, grading elsewhere
    with pytest.raises(WorkTaken):
        await _click(repo, "k2", work="mine")
    assert await _count(repo, t.attempts) == 1
    assert [w.id for w in await repo.work.all()] == ["theirs"]
    stored = await repo.get_session("s1")
    assert stored is not None and stored.position == 1 and stored.version == 1


async def test_a_code_answer_and_another_process_taking_its_row_never_both_win(pg_url: str) -> None:
    """Each round: the answer is stored and its row not taken, or the row taken and the answer refused."""
    mine, other = await open_repository(pg_url), await open_repository(pg_url, migrate=False)
    try:
        await mine.create_session(clicks.new_session("s1", "ann", 25))
        await _click(mine, "k0")  # the day stored: the answers below are one statement each
        outcomes = []
        for n in range(1, 21):
            await mine.work.begin(_work(f"w{n}", n, "p1"))
            answered, taken = await asyncio.gather(
                _click(mine, f"k{n}", work=f"w{n}"), other.work.take(f"w{n}", clicks.AT + timedelta(minutes=5)),
                return_exceptions=True,
            )
            assert (answered is None) != (taken is True), (n, answered, taken)
            assert answered is None or isinstance(answered, WorkTaken)
            outcomes.append(answered is None)
            if answered is not None:  # refused: the quiz is still at this item; skip it for the next round
                session = await mine.get_session("s1")
                assert session is not None
                session.position += 1
                await mine.save_session(session)
        assert await _count(mine, t.attempts) == 1 + sum(outcomes)
        assert await mine.work.all() == []
    finally:
        await mine.close()
        await other.close()
