"""Database faults as a learner meets them over the fake Slack: told by kind, logged once per kind, answers kept.

Each fault is real: a tmpfs filled to the last byte, a read-only bind mount, a lock another program
holds, a PostgreSQL port nobody listens on, a SQLite trigger that refuses a write after the answer's.
"""

from __future__ import annotations

import logging
import random
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import func, select

from bot.core import QuizService
from bot.core.errors import FAULT_TEXT
from bot.core.packs import load_path
from bot.core.work import Unfinished
from bot.storage import SqlRepository, create_engine, open_repository
from bot.storage import tables as t
from tests.conftest import DEMO_PACK
from tests.disks import empty_wal, fill, read_only_view, small_disk
from tests.fakes import FakeClock, LocalRunner
from tests.ops.services import free_port
from tests.slack.conftest import LEARNER, Slack, block_text, dm
from tests.slack.helpers import answer_right, items

GENERIC = "Something went wrong"
BURST = 12


def sqlite(path: Path) -> str:
    return f"sqlite+aiosqlite:///{path}"


def told(slack: Slack) -> list[str]:
    """Every note only the learner sees (ephemeral messages and response_url answers), in order."""
    notes = [block_text(m["blocks"]) or m.get("text", "") for m in slack.fake.ephemerals]
    notes += [block_text(r.get("blocks") or []) or r.get("text", "") for r in slack.fake.responses]
    return notes


def times_told(slack: Slack, text: str) -> int:
    return sum(text in note for note in told(slack))


def fault_lines(caplog: pytest.LogCaptureFixture, kind: str) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "quizbot.faults" and r.getMessage().startswith(f"database {kind}")]


async def attempts(repository: SqlRepository) -> int:
    async with repository.engine.connect() as connection:
        return int((await connection.execute(select(func.count()).select_from(t.attempts))).scalar_one())


def wired(repository: SqlRepository, clock: FakeClock) -> QuizService:
    """The service as bot/app.py wires it: one fault log (storage's), and the notices of unfinished work (which read too)."""
    faults = repository.faults
    return QuizService(
        repository=repository, runner=LocalRunner(), clock=clock, rng=random.Random(7), faults=faults,
        work=Unfinished(repository.work, clock, faults=faults),
    )  # fmt: skip


async def service_on(repository: SqlRepository, clock: FakeClock) -> QuizService:
    service = wired(repository, clock)
    await service.import_pack(load_path(DEMO_PACK).pack)
    return service


async def test_a_burst_of_answers_on_a_full_disk_is_told_full_and_logged_once(
    tmp_path: Path, open_slack: Callable[[QuizService], Any], clock: FakeClock, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    with small_disk(tmp_path / "disk") as disk:
        repository = await open_repository(sqlite(disk / "quiz.db"))
        try:
            service = await service_on(repository, clock)
            async with open_slack(service) as slack:
                await slack.command("start demo difficulty:easy count:2")
                first = items(slack, dm(LEARNER))[0]
                empty_wal(disk / "quiz.db")
                filler = fill(disk)
                for _ in range(BURST):
                    await answer_right(slack, dm(LEARNER), first["ts"])
                notes = told(slack)
                assert times_told(slack, FAULT_TEXT["full"]) == BURST, notes
                assert not any(GENERIC in note for note in notes)
                assert len(fault_lines(caplog, "full")) == 1, caplog.text  # one line for the burst, not one per click
                assert not any(r.exc_info for r in caplog.records) and "Traceback" not in caplog.text
                assert await attempts(repository) == 0

                filler.unlink()  # space again: the same click is stored, nothing to restart
                await answer_right(slack, dm(LEARNER), first["ts"])
                assert "Correct!" in block_text(slack.fake.message(dm(LEARNER), first["ts"])["blocks"])
                assert await attempts(repository) == 1
        finally:
            await repository.close()


async def test_a_read_only_disk_is_told_read_only(
    tmp_path: Path, open_slack: Callable[[QuizService], Any], clock: FakeClock, caplog: pytest.LogCaptureFixture
) -> None:
    data = tmp_path / "data"
    running = await open_repository(sqlite(data / "quiz.db"))  # its files stay open, as a running bot's do
    try:
        await service_on(running, clock)
        with read_only_view(data, tmp_path / "read-only") as view:
            repository = SqlRepository(create_engine(sqlite(view / "quiz.db")))
            try:
                async with open_slack(wired(repository, clock)) as slack:
                    for _ in range(3):
                        await slack.command("start demo")
                    assert times_told(slack, FAULT_TEXT["read-only"]) == len(told(slack)) == 3
                    assert len(fault_lines(caplog, "read-only")) == 1, caplog.text
                    assert not any(r.exc_info for r in caplog.records)
            finally:
                await repository.close()
    finally:
        await running.close()


async def test_a_lock_another_program_holds_is_told_busy(
    db_url: str, tmp_path: Path, open_slack: Callable[[QuizService], Any], clock: FakeClock, caplog: pytest.LogCaptureFixture
) -> None:
    migrated = await open_repository(db_url)
    await migrated.close()
    repository = SqlRepository(create_engine(db_url, busy=0.2))
    try:
        service = await service_on(repository, clock)
        async with open_slack(service) as slack:
            await slack.command("start demo difficulty:easy count:2")
            first = items(slack, dm(LEARNER))[0]
            holder = sqlite3.connect(tmp_path / "quizbot.db", isolation_level=None)
            holder.execute("BEGIN EXCLUSIVE")
            try:
                for _ in range(3):
                    await answer_right(slack, dm(LEARNER), first["ts"])
            finally:
                holder.execute("ROLLBACK")
                holder.close()
            assert times_told(slack, FAULT_TEXT["busy"]) == 3
            assert len(fault_lines(caplog, "busy")) == 1, caplog.text
            await answer_right(slack, dm(LEARNER), first["ts"])  # the lock is gone: the answer is stored
            assert await attempts(repository) == 1
    finally:
        await repository.close()


async def test_a_database_server_that_is_down_is_told_unavailable(
    open_slack: Callable[[QuizService], Any], clock: FakeClock, caplog: pytest.LogCaptureFixture
) -> None:
    url = f"postgresql+asyncpg://quiz:s3cret@127.0.0.1:{free_port()}/quiz"  # nobody listens: connections are refused
    repository = SqlRepository(create_engine(url, timeout=2))
    try:
        async with open_slack(wired(repository, clock)) as slack:
            await slack.command("start demo")
            await slack.command("stats")
            assert times_told(slack, FAULT_TEXT["unavailable"]) == len(told(slack)) == 2
        lines = fault_lines(caplog, "unavailable")
        assert len(lines) == 1 and "cannot be reached" in lines[0] and "s3cret" not in caplog.text
        assert not any(r.exc_info for r in caplog.records)  # the notices of unfinished work failed too: no traceback
    finally:
        await repository.close()


async def test_nothing_after_the_answers_commit_fails_the_answer(
    repository: SqlRepository, db_url: str, tmp_path: Path, open_slack: Callable[[QuizService], Any], clock: FakeClock,
    caplog: pytest.LogCaptureFixture,
) -> None:
    service = await service_on(repository, clock)

    def broken_counter(attempt: Any) -> None:
        raise RuntimeError("the metrics registry broke")

    service.answers.count_with(broken_counter)
    with sqlite3.connect(tmp_path / "quizbot.db") as db:  # remembering where an item was posted now fails
        db.execute(
            "CREATE TRIGGER no_anchor BEFORE UPDATE ON sessions "
            "WHEN NEW.position = OLD.position AND NEW.status = OLD.status "  # not an answer's save: it moves the quiz on
            "BEGIN SELECT abs(-9223372036854775807 - 1); END"  # an error at run time ("integer overflow"), not a refused row
        )
    db.close()
    async with open_slack(service) as slack:
        await slack.command("start demo difficulty:easy count:2")
        first = items(slack, dm(LEARNER))[0]
        await answer_right(slack, dm(LEARNER), first["ts"])
        assert "Correct!" in block_text(slack.fake.message(dm(LEARNER), first["ts"])["blocks"])
        assert len(items(slack, dm(LEARNER))) == 2  # the next item is shown
        assert told(slack) == []  # no apology, no "try again" for an answer that was stored
        assert await attempts(repository) == 1
        await repository.write_anchors()  # what waits for the quiz's next save (the second item's message)
    logged = caplog.text
    assert "while answering RememberQuiz" not in logged  # remembering it refuses nothing: it only waits
    assert logged.count("while storing where items were posted") == 1  # the write that failed, in the log
    assert logged.count("while counting an answer") == 1
