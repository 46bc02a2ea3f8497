"""Issue 10's "done when" in Slack: a schedule set once posts every day at the right local hour, across
the spring change in Berlin and a restart of the scheduler, through Bolt and the fake Slack."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from bot.adapters.slack.deliver import SlackPoster
from bot.scheduler import PlatformPosters, Scheduler
from bot.storage import DailyRepository, SqlRepository
from tests.daily.wired import Wired, wire
from tests.fakes import FakeClock, LocalRunner
from tests.slack.conftest import ADMIN, CHANNEL, Slack, block_text

BERLIN = ZoneInfo("Europe/Berlin")


@pytest.fixture
async def daily_slack(
    open_slack: Callable[..., Any], repository: SqlRepository, runner: LocalRunner, clock: FakeClock, tmp_path: Path
) -> AsyncIterator[tuple[Slack, Wired]]:
    clock.current = datetime(2026, 3, 26, 23, 0, tzinfo=UTC)  # Friday 27 March, midnight in Berlin
    wired = await wire(repository, clock, runner, tmp_path)
    async with open_slack(wired.service) as workspace:
        assert workspace.front is not None
        await wired.posters.add("slack", SlackPoster(workspace.front.api))
        yield workspace, wired


async def run_until(scheduler: Scheduler, clock: FakeClock, until: datetime, slack: Slack) -> list[datetime]:
    """Tick every quarter hour until `until`; return when each new channel post went up."""
    posted: list[datetime] = []
    while clock.now() < until:
        clock.advance(minutes=15)
        before = len([p for p in slack.fake.posts(CHANNEL) if "thread_ts" not in p])
        await scheduler.tick()
        after = len([p for p in slack.fake.posts(CHANNEL) if "thread_ts" not in p])
        posted += [clock.now()] * (after - before)
    return posted


async def test_a_schedule_set_once_posts_at_nine_in_berlin_every_day_across_the_change_and_a_restart(
    daily_slack: tuple[Slack, Wired], repository: SqlRepository, clock: FakeClock
) -> None:
    slack, wired = daily_slack
    await slack.command("daily set time:09:00 timezone:Europe/Berlin pack:demo", user=ADMIN, channel=CHANNEL)
    posted = await run_until(wired.scheduler, clock, datetime(2026, 3, 29, 12, 0, tzinfo=UTC), slack)

    # The process restarts: a new scheduler over the same database and the same workspace.
    assert slack.front is not None
    restarted = Scheduler(
        store=DailyRepository.beside(repository), packs=repository, clock=clock,
        poster=PlatformPosters({"slack": SlackPoster(slack.front.api)}), platforms=["slack"],
    )
    posted += await run_until(restarted, clock, datetime(2026, 4, 1, 0, 0, tzinfo=UTC), slack)

    assert [t.astimezone(BERLIN).date() for t in posted] == [date(2026, 3, 27) + timedelta(days=i) for i in range(5)]
    assert {(t.astimezone(BERLIN).hour, t.astimezone(BERLIN).minute) for t in posted} == {(9, 0)}
    assert [t.hour for t in posted] == [8, 8, 7, 7, 7]  # UTC: winter time, then summer time from the 29th
    titles = [block_text(p["blocks"]) for p in slack.fake.posts(CHANNEL) if "thread_ts" not in p]
    assert len(titles) == 5 and all(f"Daily question · 2026-03-{27 + i}" in t for i, t in enumerate(titles))
    # Each day's question is revealed in its thread when the next one goes up: four reveals so far.
    assert len([p for p in slack.fake.posts(CHANNEL) if "thread_ts" in p]) == 4
