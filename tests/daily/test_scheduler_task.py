"""The scheduler as the bot runs it: the setting, the real task woken by a change, several platforms."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

import pytest

from bot.core.daily import DailyService
from bot.core.model import Actor
from bot.scheduler import PlatformPosters, Scheduler, scheduler_for
from bot.settings import Settings
from tests.daily.support import FakePoster, Stores
from tests.fakes import FakeClock

ADMIN = Actor("discord", "g1", "admin", "Admin", is_admin=True)
SLACK_ADMIN = Actor("slack", "T1", "UADMIN", "Admin", is_admin=True)


def test_the_setting_turns_the_scheduler_off(sqlite_stores: Stores, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("QUIZBOT_SCHEDULER", "off")
    assert Settings().scheduler == "off"
    assert scheduler_for(Settings(), repository=sqlite_stores.repo, poster=FakePoster(), clock=FakeClock()) is None
    monkeypatch.setenv("QUIZBOT_SCHEDULER", "on")
    built = scheduler_for(Settings(admins="discord:boss"), repository=sqlite_stores.repo, poster=FakePoster(), clock=FakeClock())
    assert isinstance(built, Scheduler)
    monkeypatch.delenv("QUIZBOT_SCHEDULER")
    assert Settings().scheduler == "on"


async def test_the_running_task_wakes_for_a_new_schedule_and_stops_on_close(sqlite_stores: Stores) -> None:
    clock = FakeClock(datetime(2026, 6, 1, 12, 0, tzinfo=UTC))
    poster = FakePoster()
    scheduler = Scheduler(store=sqlite_stores.daily, packs=sqlite_stores.repo, clock=clock, poster=poster)
    service = DailyService(store=sqlite_stores.daily, packs=sqlite_stores.repo, clock=clock, wake=scheduler.wake)
    task = scheduler.start()
    assert scheduler.start() is task  # one task per scheduler
    await asyncio.sleep(0.05)  # it found nothing to do and sleeps (up to a minute)
    await service.set_schedule(ADMIN, channel_id="c1", time="14:00", timezone="Europe/Berlin")
    assert poster.calls == []  # set after today's time (14:00 Berlin is 12:00 UTC): starts tomorrow
    clock.current = datetime(2026, 6, 2, 12, 0, tzinfo=UTC)
    scheduler.wake()
    for _ in range(500):  # a bound, not a timing assertion: the woken task posts well within it
        if poster.of("post"):
            break
        await asyncio.sleep(0.01)
    assert [where for _, where, _ in poster.of("post")] == ["c1"]
    await scheduler.close()
    assert task.done()


async def test_each_platform_gets_its_own_deliveries(sqlite_stores: Stores) -> None:
    clock = FakeClock(datetime(2026, 6, 1, 6, 0, tzinfo=UTC))
    discord, slack = FakePoster(), FakePoster()
    scheduler = Scheduler(
        store=sqlite_stores.daily, packs=sqlite_stores.repo, clock=clock,
        poster=PlatformPosters({"discord": discord, "slack": slack}),
    )
    service = DailyService(store=sqlite_stores.daily, packs=sqlite_stores.repo, clock=clock)
    await service.set_schedule(ADMIN, channel_id="d-chan", time="09:00", timezone="Europe/Berlin")
    await service.set_schedule(SLACK_ADMIN, channel_id="C-CHAN", time="09:00", timezone="Europe/Berlin")
    teams = Actor("teams", "x", "admin", "Admin", is_admin=True)
    await service.set_schedule(teams, channel_id="t-chan", time="09:00", timezone="Europe/Berlin")
    clock.current = datetime(2026, 6, 1, 7, 0, tzinfo=UTC)
    await scheduler.tick()
    assert [w for _, w, _ in discord.of("post")] == ["d-chan"]
    assert [w for _, w, _ in slack.of("post")] == ["C-CHAN"]
    paused = await sqlite_stores.daily.get_schedule("teams", "t-chan")
    assert paused is not None and paused.paused and "does not run the teams front end" in (paused.pause_reason or "")


async def test_a_database_that_is_down_is_one_line_for_many_failed_ticks(caplog: pytest.LogCaptureFixture) -> None:
    from bot.storage import SqlRepository, create_engine
    from bot.storage.daily import DailyRepository
    from tests.ops.services import free_port

    url = f"postgresql+asyncpg://quiz:s3cret@127.0.0.1:{free_port()}/quiz"  # nobody listens: every tick fails
    slept: list[float] = []

    async def sleep(seconds: float) -> None:
        slept.append(seconds)
        if len(slept) == 5:
            raise asyncio.CancelledError  # five failed ticks are enough

    repository = SqlRepository(create_engine(url, timeout=2))
    scheduler = Scheduler(
        store=DailyRepository.beside(repository), packs=repository, clock=FakeClock(), poster=FakePoster(), sleep=sleep
    )
    caplog.set_level("INFO")
    try:
        with pytest.raises(asyncio.CancelledError):
            await scheduler.run()
    finally:
        await repository.close()
    assert len(slept) == 5 and all(s > 0 for s in slept)  # each failed tick waits before the next
    lines = [r.getMessage() for r in caplog.records if r.levelname in ("WARNING", "ERROR")]
    assert len(lines) == 1, lines
    assert "database unavailable while running the scheduler's tick" in lines[0]
    assert not any(r.exc_info for r in caplog.records)  # no traceback per tick, nor once
    assert "s3cret" not in caplog.text
