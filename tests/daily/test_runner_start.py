"""`quizbot run` starts the scheduler once every front end of the process can post, and not when it is off."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from pathlib import Path

import pytest

from bot.app import App, build
from bot.core import QuizService
from bot.core import requests as rq
from bot.core.daily import DailyService
from bot.core.daily.errors import NotServed
from bot.core.model import Actor
from bot.runner import start_scheduler
from bot.scheduler import PlatformPosters, Scheduler
from bot.settings import Settings
from tests.daily.support import FakePoster, Stores
from tests.fakes import FakeClock

ADMIN = Actor("discord", "g1", "admin", "Admin", is_admin=True)


async def test_the_scheduler_waits_for_the_front_ends_then_runs(sqlite_stores: Stores) -> None:
    clock = FakeClock(datetime(2026, 6, 2, 12, 0, tzinfo=UTC))
    posters = PlatformPosters({})
    scheduler = Scheduler(store=sqlite_stores.daily, packs=sqlite_stores.repo, clock=clock, poster=posters)
    daily = DailyService(store=sqlite_stores.daily, packs=sqlite_stores.repo, clock=clock, wake=scheduler.wake)
    service = QuizService(repository=sqlite_stores.repo, runner=None, clock=clock, daily=daily)
    settings = Settings(database_url="sqlite+aiosqlite://", scheduler="on")
    app = App(settings=settings, repository=sqlite_stores.repo, service=service, runner=None, posters=posters, scheduler=scheduler)
    clock.current = datetime(2026, 6, 1, 11, 0, tzinfo=UTC)
    await daily.set_schedule(ADMIN, channel_id="c1", time="14:00", timezone="Europe/Berlin")
    clock.current = datetime(2026, 6, 2, 12, 0, tzinfo=UTC)  # due now: 14:00 in Berlin

    assert start_scheduler(app, Settings(database_url="sqlite+aiosqlite://", scheduler="off"), ["discord"]) is None
    starter = start_scheduler(app, settings, ["discord"])
    assert starter is not None
    for _ in range(20):
        await asyncio.sleep(0)
    assert not starter.done()  # no Discord poster yet: nothing may run (it would pause the schedule)
    poster = FakePoster()
    await posters.add("discord", poster)
    await asyncio.wait_for(starter, 10)
    for _ in range(500):  # a bound, not a timing assertion
        if poster.of("post"):
            break
        await asyncio.sleep(0.01)
    assert [where for _, where, _ in poster.of("post")] == ["c1"]
    schedule = await daily.show_schedule(ADMIN, channel_id="c1")
    assert "paused" not in schedule.messages[0].text()
    await scheduler.close()


async def test_the_app_built_for_some_front_ends_schedules_only_theirs(tmp_path: Path) -> None:
    settings = Settings(database_url=f"sqlite+aiosqlite:///{tmp_path / 'app.db'}", scheduler="on")
    async with build(settings, sandbox=False, shipped_packs=False, platforms=["slack"]) as app:
        assert app.scheduler is not None and app.scheduler.platforms == frozenset({"slack"})
        with pytest.raises(NotServed):
            await app.service.handle(Actor("discord", "g1", "a", "A", is_admin=True, channel_id="c1"), rq.DailyNow())
