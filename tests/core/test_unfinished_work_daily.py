"""Code sent to a channel's daily question is tracked like a quiz's: cut off by a restart, its learner is told.

Two QuizServices (two bot processes) share one SQLite repository with daily practice wired as the
composition root wires it; the sandbox holds the job until the test kills the first "process".
"""

from __future__ import annotations

import asyncio
import random

import pytest
from sqlalchemy import func, select

from bot.core import Actor, QuizService
from bot.core import requests as rq
from bot.core.daily import DailyService
from bot.core.packs import load_path
from bot.core.work import MARGIN, Unfinished
from bot.scheduler import PlatformPosters, Scheduler
from bot.storage import DailyRepository, SqlRepository
from bot.storage import tables as t
from tests.conftest import DEMO_PACK
from tests.core.test_unfinished_work import CODE, HeldRunner, notes
from tests.daily.support import FakePoster
from tests.fakes import FakeClock

ADMIN = Actor("discord", "g1", "ada", "Ada", is_admin=True, channel_id="c1")
ANN = Actor("discord", "g1", "ann", "Ann", channel_id="c1")


def process(repository: SqlRepository, clock: FakeClock, runner: HeldRunner) -> tuple[QuizService, Scheduler, PlatformPosters]:
    posters = PlatformPosters({})
    store = DailyRepository.beside(repository)
    scheduler = Scheduler(store=store, packs=repository, clock=clock, poster=posters)
    daily = DailyService(store=store, packs=repository, clock=clock, wake=scheduler.wake)
    service = QuizService(
        repository=repository, runner=runner, clock=clock, rng=random.Random(7), daily=daily,
        post_now=scheduler.post_now, work=Unfinished(repository.work, clock),
    )
    return service, scheduler, posters


async def test_code_on_a_daily_post_cut_off_by_a_restart_is_told_once(
    repository: SqlRepository, clock: FakeClock
) -> None:
    first_runner = HeldRunner()
    first, scheduler, posters = process(repository, clock, first_runner)
    second, _, _ = process(repository, clock, HeldRunner())
    await first.import_pack(load_path(DEMO_PACK).pack)
    await posters.add("discord", FakePoster())
    await first.handle(ADMIN, rq.DailySet(time="11:00", timezone="UTC", pack="demo", difficulty="hard"))
    await first.handle(ADMIN, rq.DailyNow())
    [post] = await scheduler._store.open_posts("discord", "c1")
    opened = await first.handle(ANN, rq.Act(f"qz:{post.id}:0:a"))
    assert opened.form is not None  # the code form of the post's code question
    grading = asyncio.create_task(first.handle(ANN, rq.Act(opened.form.action, (CODE,))))
    await asyncio.wait_for(first_runner.started.wait(), 5)
    grading.cancel()  # the first process dies
    with pytest.raises(asyncio.CancelledError):
        await grading

    assert notes(await second.handle(ANN, rq.Stats())) == []  # its deadline has not passed yet
    clock.advance(seconds=60 + MARGIN.total_seconds())
    told = await second.handle(ANN, rq.Stats())
    assert len(notes(told)) == 1 and told.messages[0].text().startswith(
        "🔄 The bot restarted before it finished grading your answer to **Define total as the sum"
    )
    assert notes(await second.handle(ANN, rq.Stats())) == []
    async with repository.engine.connect() as c:
        assert (await c.execute(select(func.count()).select_from(t.attempts))).scalar_one() == 0
    assert await repository.work.all() == []
