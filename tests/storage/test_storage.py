"""Storage on real databases: SQLite files, and PostgreSQL on the local server."""

from __future__ import annotations

import random
import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext

from bot.core import Actor, QuizService, StorageError
from bot.core.model import Attempt, History, Owner, Review
from bot.core.packs import load_path
from bot.core.ports import Conflict
from bot.storage import open_repository
from bot.storage.tables import metadata
from tests.conftest import DEMO_PACK
from tests.fakes import FakeClock, LocalRunner
from tests.storage import clicks

ANN = Actor("discord", "guild-1", "ann", "Ann")


async def test_migrations_match_the_tables(any_url: str) -> None:
    repo = await open_repository(any_url)
    try:
        async with repo.engine.connect() as connection:
            diff = await connection.run_sync(lambda c: compare_metadata(MigrationContext.configure(c), metadata))
        assert diff == []
    finally:
        await repo.close()


async def test_quiz_progress_survives_reopening(any_url: str) -> None:
    clock = FakeClock()
    repo = await open_repository(any_url)
    service = QuizService(repository=repo, runner=LocalRunner(), clock=clock, rng=random.Random(1))
    await service.import_pack(load_path(DEMO_PACK).pack)
    await service.start(ANN, pack="demo", count=5)
    await service.submit_text(ANN, "6") if (await service.active_session(ANN)).items[0].question == "q-short" else await service.skip(ANN)  # type: ignore[union-attr]
    before = await service.active_session(ANN)
    await repo.close()

    repo = await open_repository(any_url)
    try:
        service = QuizService(repository=repo, runner=LocalRunner(), clock=clock)
        after = await service.active_session(ANN)
        assert after is not None and before is not None
        assert (after.id, after.position, after.version) == (before.id, before.position, before.version)
        assert [i.to_json() for i in after.items] == [i.to_json() for i in before.items]
    finally:
        await repo.close()


async def test_concurrent_saves_conflict_instead_of_overwriting(any_url: str) -> None:
    repo = await open_repository(any_url)
    try:
        service = QuizService(repository=repo, runner=None, clock=FakeClock())
        await service.import_pack(load_path(DEMO_PACK).pack)
        await service.start(ANN, pack="demo", count=2)
        one = await repo.active_session(Owner.user(ANN))
        assert one is not None
        two = one.copy()  # what another process read at the same moment
        one.position = 1
        await repo.save_session(one)
        two.status = "stopped"
        with pytest.raises(Conflict):
            await repo.save_session(two)
        stored = await repo.get_session(one.id)
        assert stored is not None and stored.status == "active" and stored.position == 1
    finally:
        await repo.close()


async def test_one_active_quiz_per_owner_is_enforced_by_the_database(any_url: str) -> None:
    repo = await open_repository(any_url)
    try:
        service = QuizService(repository=repo, runner=None, clock=FakeClock())
        await service.import_pack(load_path(DEMO_PACK).pack)
        await service.start(ANN, pack="demo", count=1)
        session = await repo.active_session(Owner.user(ANN))
        assert session is not None
        session.id = "another-id"
        with pytest.raises(Conflict):
            await repo.create_session(session)
    finally:
        await repo.close()


async def test_stats_count_attempts_topics_and_utc_days(any_url: str) -> None:
    repo = await open_repository(any_url)
    try:
        clock = FakeClock(datetime(2026, 11, 30, 23, 30, tzinfo=UTC))
        service = QuizService(repository=repo, runner=None, clock=clock)
        await service.import_pack(load_path(DEMO_PACK).pack)
        await service.start(ANN, pack="demo", count=1)
        session = await repo.active_session(Owner.user(ANN))
        assert session is not None
        for hours, correct, topic in ((0, True, "basics"), (1, False, "basics"), (2, True, None)):
            at = clock.now() + timedelta(hours=hours)
            attempt = Attempt("discord", "guild-1", "ann", "demo", "q-short", topic, "6", correct, 1, at, session.id)
            await repo.save_session(session, attempt)
        stats = await repo.user_stats("discord", "ann", clock.now() + timedelta(hours=3))
        assert (stats.attempts, stats.correct) == (3, 2)
        assert {(t.topic, t.attempts, t.correct) for t in stats.topics} == {("basics", 2, 1), (None, 1, 1)}
        assert stats.last_practice == datetime(2026, 12, 1, 1, 30, tzinfo=UTC)
        other = await repo.user_stats("slack", "ann", clock.now())
        assert other.attempts == 0
    finally:
        await repo.close()


async def test_corrupt_sqlite_file_gives_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "bad.db"
    path.write_bytes(b"this is not a database, just some text " * 100)
    with pytest.raises(StorageError, match="not a valid SQLite database"):
        await open_repository(f"sqlite+aiosqlite:///{path}")


async def test_locked_sqlite_file_gives_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "locked.db"
    holder = sqlite3.connect(path)
    holder.execute("CREATE TABLE x (y)")
    holder.execute("BEGIN EXCLUSIVE")
    try:
        with pytest.raises(StorageError, match="locked by another program"):
            await open_repository(f"sqlite+aiosqlite:///{path}")
    finally:
        holder.rollback()
        holder.close()


async def test_unreachable_postgres_hides_the_password() -> None:
    url = "postgresql+asyncpg://quiz:s3cret-pass@127.0.0.1:1/nowhere"
    with pytest.raises(StorageError) as caught:
        await open_repository(url)
    assert "s3cret-pass" not in str(caught.value) and "***" in str(caught.value)


async def test_remembering_an_items_message_is_right_when_another_process_saved_in_between(pg_url: str) -> None:
    """PostgreSQL: the anchor's save starts from what this process stored last, a guess checked by the version.

    Another process (a second repository on the same database) moved the quiz on, then saved it again
    at the same position: both guesses this process holds are behind, and the anchor is still stored,
    on the row as the other process left it. (An anchor waits for the quiz's next save, or `WAIT`:
    `write_anchors` is that moment, at once.)
    """
    from bot.core import queries as q
    from bot.core.model import Anchor

    here, there = await open_repository(pg_url), await open_repository(pg_url)
    try:
        service = QuizService(repository=here, runner=None, clock=FakeClock())
        await service.import_pack(load_path(DEMO_PACK).pack)
        await service.start(ANN, pack="demo", count=3)
        mine = await here.active_session(Owner.user(ANN))
        assert mine is not None and mine.position == 0
        await service.ask(q.RememberQuiz(mine.id, Anchor(channel="C1", message="m0"), 0))  # stored by this process
        await here.write_anchors()  # what waited for the quiz's next save: written for the other process

        theirs = await there.get_session(mine.id)
        assert theirs is not None
        theirs.position = 1  # the learner's answer, stored by the other process
        await there.save_session(theirs)
        await service.ask(q.RememberQuiz(mine.id, Anchor(channel="C1", message="m1"), 1))
        await here.write_anchors()
        stored = await there.get_session(mine.id)
        assert stored is not None and (stored.position, stored.anchor.message) == (1, "m1")

        stored.status = "active"
        stored.filters = {**stored.filters}  # a change at the same position (the version moves on)
        await there.save_session(stored)
        await service.ask(q.RememberQuiz(mine.id, Anchor(channel="C1", message="m1-again"), 1))
        await here.write_anchors()
        final = await there.get_session(mine.id)
        assert final is not None and (final.position, final.anchor.message, final.version) == (1, "m1-again", stored.version + 1)

        # an anchor for an item the quiz has moved past is not written, whatever this process guessed
        await service.ask(q.RememberQuiz(mine.id, Anchor(channel="C1", message="m0-late"), 0))
        await here.write_anchors()
        assert (await there.get_session(mine.id)).anchor.message == "m1-again"  # type: ignore[union-attr]
    finally:
        await here.close()
        await there.close()


async def test_history_returns_each_card_as_stored(any_url: str) -> None:
    """One entry per question of the learner's asked packs, due as an aware UTC time to the microsecond.

    On SQLite the cards come back in one JSON row (`one_row.ManyRows`): the text, the times, the
    flags and the counts must read back as the row-by-row query gives them on PostgreSQL (where the
    packs are one array parameter, read on asyncpg itself).
    """
    repo = await open_repository(any_url)
    try:
        session = clicks.new_session("s1", "ann", 3)
        await repo.create_session(session)
        due = [datetime(2026, 12, 5, 7, 8, 9, 123456, tzinfo=UTC), datetime(2027, 1, 2, 3, 4, 5, tzinfo=UTC)]
        card = '{"state": 2, "note": "quote \\" and ü"}'
        for n, (when, right) in enumerate(zip(due, [True, False], strict=True)):
            item = session.items[n]
            item.attempts, item.done, item.correct = 1, True, right
            made = Attempt("discord", "guild", "ann", "demo", item.question, None, "A", right, 1, clicks.AT, "s1", f"k{n}")
            await repo.save_session(session, made, Review("discord", "ann", "demo", item.question, card, when, right))
            session.position += 1
        other = Review("discord", "bob", "demo", "q0", "{}", due[0], True)  # another learner's card: not Ann's history
        bob = clicks.new_session("s2", "bob", 1)
        await repo.create_session(bob)
        await repo.save_session(bob, clicks.attempt(bob, "kb"), other)

        history = await repo.history("discord", "ann", ["demo", "other-pack"])
        assert history == {
            ("demo", "q0"): History(1, True, due[0], card),
            ("demo", "q1"): History(1, False, due[1], card),
        }
        assert all(type(h.last_correct) is bool and h.due is not None and h.due.tzinfo is not None for h in history.values())
        assert await repo.history("discord", "ann", ["other-pack"]) == {}
    finally:
        await repo.close()
