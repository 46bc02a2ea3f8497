"""The unfinished-work rows on SQLite and PostgreSQL: taken once, settled with the attempt or not at all."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from datetime import timedelta

import pytest
from sqlalchemy import event, func, select

from bot.core.answer import AnswerWrite
from bot.core.model import Attempt
from bot.core.ports import Conflict
from bot.core.work import Work
from bot.storage import SqlRepository, open_repository
from bot.storage import tables as t
from tests.storage import clicks

AT = clicks.AT
ROWS = 20


def work(n: int, *, user: str = "ann", process: str = "p1", item: str | None = None, minutes: float = 3) -> Work:
    return Work(
        id=f"w{n}",
        platform="discord",
        user_id=user,
        item=item or f"s{n}:0",
        kind="grade",
        title=f"Question {n}",
        process=process,
        started_at=AT,
        deadline=AT + timedelta(minutes=minutes),
    )


async def _attempts(repo: SqlRepository) -> int:
    async with repo.engine.connect() as c:
        return int((await c.execute(select(func.count()).select_from(t.attempts))).scalar_one())


async def test_two_processes_taking_the_same_rows_take_each_once(any_url: str) -> None:
    one, two = await open_repository(any_url), await open_repository(any_url, migrate=False)
    try:
        for n in range(ROWS):
            await one.work.begin(work(n, minutes=-1))  # already past its deadline
        later = AT + timedelta(minutes=1)
        found_one = await one.work.overdue("discord", "ann", later)
        found_two = await two.work.overdue("discord", "ann", later)
        assert {w.id for w in found_one} == {w.id for w in found_two} == {f"w{n}" for n in range(ROWS)}
        taken = await asyncio.gather(*(r.work.take(w.id, later) for w in found_one for r in (one, two)))
        assert sum(taken) == ROWS
        assert all(taken[2 * n] != taken[2 * n + 1] for n in range(ROWS))  # one of the two, never both
        assert await one.work.all() == [] and await two.work.overdue("discord", "ann", later) == []
    finally:
        await one.close()
        await two.close()


async def test_only_overdue_rows_are_taken_and_a_shutdown_marks_only_its_own(any_url: str) -> None:
    repo = await open_repository(any_url)
    repo.work.poll_s = 0  # PostgreSQL: list the learners with overdue rows on every call
    try:
        await repo.work.begin(work(1, process="mine"))
        await repo.work.begin(work(2, process="other"))
        await repo.work.begin(work(3, process="mine", user="bob"))
        assert await repo.work.overdue("discord", "ann", AT) == []
        assert not await repo.work.take("w1", AT)  # not past its deadline: a live request's row
        assert await repo.work.abandon("mine", AT) == 2
        assert [w.id for w in await repo.work.overdue("discord", "ann", AT)] == ["w1"]
        assert [w.id for w in await repo.work.overdue("discord", "bob", AT)] == ["w3"]
        assert await repo.work.take("w1", AT) and not await repo.work.take("w1", AT)
        assert await repo.work.overdue("discord", "ann", AT + timedelta(minutes=3)) == [work(2, process="other")]
    finally:
        await repo.close()


async def test_a_new_row_for_the_same_item_replaces_the_old_one(any_url: str) -> None:
    repo = await open_repository(any_url)
    try:
        await repo.work.begin(work(1, item="s1:0", process="dead", minutes=-1))
        await repo.work.begin(work(2, item="s1:0", process="live"))  # the learner sent it again
        assert [(w.id, w.process) for w in await repo.work.all()] == [("w2", "live")]
        await repo.work.end("w2")
        assert await repo.work.all() == []
    finally:
        await repo.close()


async def test_the_attempt_settles_its_row_or_is_refused_with_nothing_kept(any_url: str) -> None:
    repo = await open_repository(any_url)
    try:
        await repo.create_session(clicks.new_session("s1", "ann", 3))
        await repo.work.begin(work(1))
        session = await repo.get_session("s1")
        assert session is not None
        answered = clicks.attempt(session, "k1")
        await repo.save_session(session, _settling(answered, "w1"), clicks.card(session))
        assert await repo.work.all() == [] and await _attempts(repo) == 1

        session = await repo.get_session("s1")
        assert session is not None
        version = session.version
        with pytest.raises(Conflict):  # its row was taken: the learner was told to send it again
            await repo.save_session(session, _settling(clicks.attempt(session, "k2"), "w1"), clicks.card(session))
        assert await _attempts(repo) == 1
        stored = await repo.get_session("s1")
        assert stored is not None and stored.version == version
    finally:
        await repo.close()


async def test_concurrent_saves_each_settle_their_own_row(any_url: str) -> None:
    """On SQLite the saves share one transaction (group commit): the refused one must not sink the others."""
    repo = await open_repository(any_url)
    try:
        sessions = []
        for n in range(6):
            await repo.create_session(clicks.new_session(f"s{n}", f"u{n}", 2))
            if n != 3:  # s3's row was taken as abandoned
                await repo.work.begin(work(n, user=f"u{n}"))
            session = await repo.get_session(f"s{n}")
            assert session is not None
            sessions.append(session)
        outcomes = await asyncio.gather(
            *(repo.save_session(s, _settling(clicks.attempt(s, f"k{n}"), f"w{n}")) for n, s in enumerate(sessions)),
            return_exceptions=True,
        )
        assert [isinstance(o, Conflict) for o in outcomes] == [False, False, False, True, False, False]
        assert await repo.work.all() == [] and await _attempts(repo) == 5
        refused = await repo.get_session("s3")
        assert refused is not None and refused.version == 0
    finally:
        await repo.close()


async def test_a_request_whose_answer_settled_its_row_ends_without_a_statement(db_url: str) -> None:
    """The answer's transaction deleted the row: ending the request sends nothing (on PostgreSQL, a round trip)."""
    repo = await open_repository(db_url)
    sent: list[str] = []
    event.listen(repo.engine.sync_engine, "before_cursor_execute", lambda *a: sent.append(a[2]))
    try:
        await repo.create_session(clicks.new_session("s1", "ann", 3))
        for n in (1, 2):
            await repo.work.begin(work(n, item=f"s1:{n}"))
        session = await repo.get_session("s1")
        assert session is not None
        await repo.write_answer(AnswerWrite(attempt=_settling(clicks.attempt(session, "k1"), "w1"), session=session))
        sent.clear()
        await repo.work.end("w1")
        assert sent == []
        await repo.work.end("w2")  # not settled by an answer: deleted here
        assert len(sent) == 1 and sent[0].startswith("DELETE")
        assert await repo.work.all() == []
    finally:
        await repo.close()


async def test_a_refused_answer_leaves_its_row_for_the_requests_end(any_url: str) -> None:
    repo = await open_repository(any_url)
    try:
        await repo.create_session(clicks.new_session("s1", "ann", 3))
        await repo.work.begin(work(1))
        stale = await repo.get_session("s1")
        fresh = await repo.get_session("s1")
        assert stale is not None and fresh is not None
        await repo.save_session(fresh)  # another change first: the answer's save is refused
        with pytest.raises(Conflict):
            await repo.write_answer(AnswerWrite(attempt=_settling(clicks.attempt(stale, "k1"), "w1"), session=stale))
        assert [w.id for w in await repo.work.all()] == ["w1"]
        await repo.work.end("w1")
        assert await repo.work.all() == [] and await _attempts(repo) == 0
    finally:
        await repo.close()


def _settling(attempt: Attempt, work_id: str) -> Attempt:
    return replace(attempt, work=work_id)


async def test_on_postgresql_rows_abandoned_elsewhere_are_seen_at_the_next_poll(pg_url: str) -> None:
    here, elsewhere = await open_repository(pg_url), await open_repository(pg_url, migrate=False)
    here.work.poll_s = 3600
    try:
        assert await here.work.overdue("discord", "ann", AT) == []  # polled: nobody has overdue rows
        await elsewhere.work.begin(work(1, process="gone"))
        assert await elsewhere.work.abandon("gone", AT) == 1
        assert await here.work.overdue("discord", "ann", AT) == []  # not asked again before the next poll
        here.work.poll_s = 0  # the interval is over
        assert [w.id for w in await here.work.overdue("discord", "ann", AT)] == ["w1"]
        assert await here.work.overdue("discord", "bob", AT) == []
    finally:
        await here.close()
        await elsewhere.close()


async def test_a_stored_answer_settles_every_processs_row_for_its_item(any_url: str) -> None:
    """Another process was grading the same delivery when it was killed: its row must not outlive the stored answer."""
    repo = await open_repository(any_url)
    try:
        await repo.create_session(clicks.new_session("s1", "ann", 3))
        await repo.work.begin(work(1, item="s1:0", process="killed"))  # the killed process's row, still live
        await repo.work.begin(work(2, item="s1:1", process="killed"))  # another item: kept
        await repo.work.begin(work(3, item="s1:0", user="bob", process="killed"))  # another learner: kept
        session = await repo.get_session("s1")
        assert session is not None
        answered = clicks.attempt(session, "k1")  # graded here untracked (the other process held the item's row)
        unit = AnswerWrite(session=session, attempt=answered, card=clicks.card(session), settles="s1:0")
        await repo.write_answer(unit)
        assert sorted(w.id for w in await repo.work.all()) == ["w2", "w3"] and await _attempts(repo) == 1
    finally:
        await repo.close()


async def test_answers_stored_together_settle_each_their_items_rows(any_url: str) -> None:
    """On SQLite concurrent answers share one transaction (group commit): each settles its own item's rows."""
    repo = await open_repository(any_url)
    try:
        sessions = []
        for n in range(4):
            await repo.create_session(clicks.new_session(f"s{n}", f"u{n}", 2))
            await repo.work.begin(work(n, user=f"u{n}", item=f"s{n}:0", process="killed"))
            await repo.work.begin(work(10 + n, user=f"u{n}", item=f"s{n}:1", process="killed"))
            session = await repo.get_session(f"s{n}")
            assert session is not None
            sessions.append(session)
        await asyncio.gather(
            *(repo.write_answer(AnswerWrite(session=s, attempt=clicks.attempt(s, f"k{n}"), settles=f"s{n}:0")) for n, s in enumerate(sessions))
        )
        assert sorted(w.id for w in await repo.work.all()) == [f"w{10 + n}" for n in range(4)] and await _attempts(repo) == 4
    finally:
        await repo.close()
