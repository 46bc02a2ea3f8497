"""A report is computed off the event loop: the bot keeps answering while the database counts.

A class of 400 learners and 20,000 attempts (the bench's generator, smaller) is stored; a ping
coroutine counts its turns on the loop while each of the report's reads runs, and the whole report. Were the counting
done on the loop (a blocking driver call, or the statistics over every attempt in Python), the ping
would get a turn only at the report's few awaits: a few dozen. Off the loop it gets thousands.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable
from pathlib import Path
from typing import TypeVar

import pytest

from bench.report_bench import NOW, pack_bytes, rows
from bot.core.packs import load_bytes
from bot.core.progress import MASTERED_STABILITY_DAYS
from bot.core.report import Filters
from bot.core.report.service import Reports
from bot.storage import SqlRepository
from bot.storage import tables as t
from bot.storage.reports import ReportStore
from tests.report.conftest import filled_repository

T = TypeVar("T")
TURNS = 500  # far more than the awaits of one report (about 30), far fewer than a free loop gives


async def _fill(repository: SqlRepository) -> None:
    await repository.import_pack(load_bytes("big-class.yaml", pack_bytes()).pack)
    quizzes, attempts = rows(400, 20_000)
    async with repository.db.write() as c:
        await c.execute(t.sessions.insert(), quizzes)
        await c.execute(t.attempts.insert(), attempts)


@pytest.fixture(params=["sqlite", "postgresql"])
async def big_repo(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[SqlRepository]:
    async for repository in filled_repository(request.param, tmp_path, _fill):
        yield repository


async def turns_during(work: Awaitable[T]) -> tuple[T, int]:
    """(what `work` gives, how many turns a ping coroutine got on the loop meanwhile)."""
    turns = 0
    done = asyncio.Event()

    async def ping() -> None:
        nonlocal turns
        while not done.is_set():
            turns += 1
            await asyncio.sleep(0)

    pinger = asyncio.create_task(ping())
    await asyncio.sleep(0)
    turns = 0
    try:
        result = await work
    finally:
        done.set()
        await pinger
    return result, turns


async def test_the_loop_keeps_turning_while_a_report_is_computed(big_repo: SqlRepository) -> None:
    pack = load_bytes("big-class.yaml", pack_bytes()).pack
    store = ReportStore(big_repo.db)
    filters = Filters(pack="big-class")
    # Each read on its own (the item counts, the class's rows, the gradebook's), then the whole report.
    counts, turns = await turns_during(store.report_counts(filters, now=NOW))
    assert counts.learners == 400 and sum(i.learners for i in counts.items) == 400 * 40
    assert turns >= TURNS, f"the ping got {turns} turns while the item counts were made"
    learners, turns = await turns_during(store.learner_rows(filters, now=NOW, mastered_days=MASTERED_STABILITY_DAYS))
    assert len(learners) == 400
    assert turns >= TURNS, f"the ping got {turns} turns while the class's rows were read"
    grades, turns = await turns_during(store.grade_rows("big-class", scope=None, since=None))
    assert len(grades) == 400 * 40
    assert turns >= TURNS, f"the ping got {turns} turns while the gradebook's rows were read"
    report, turns = await turns_during(Reports(store).report(pack, filters, now=NOW))
    assert report.learners == 400
    assert turns >= TURNS, f"the ping got {turns} turns while the report was computed"
