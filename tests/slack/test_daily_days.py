"""Issue 10 in Slack over days, through Bolt and the fake Slack: a schedule set once posts every day at
the right local hour across the spring change in Berlin and a restart of the scheduler; a channel the
bot may no longer post in pauses the schedule and tells its admin once; a learner whose direct
messages are closed is tried twice, then not again."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from bot.adapters.slack.posts import SlackPoster
from bot.scheduler import PlatformPosters, Scheduler
from bot.storage import DailyRepository, SqlRepository
from tests.daily.support import add_cards
from tests.daily.wired import Wired
from tests.fakes import FakeClock
from tests.slack.conftest import ADMIN, CHANNEL, LEARNER, Slack, block_text, dm

BERLIN = ZoneInfo("Europe/Berlin")


@pytest.fixture
def clock(clock: FakeClock) -> FakeClock:
    """The days start on Friday 27 March, at midnight in Berlin."""
    clock.current = datetime(2026, 3, 26, 23, 0, tzinfo=UTC)
    return clock


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


async def test_a_channel_closed_to_the_bot_pauses_and_a_closed_dm_is_tried_twice(
    daily_slack: tuple[Slack, Wired], repository: SqlRepository, clock: FakeClock
) -> None:
    slack, wired = daily_slack
    await slack.command("daily set time:09:00 timezone:Europe/Berlin", user=ADMIN, channel=CHANNEL)
    await add_cards(repository, "slack", LEARNER, ["q-short", "q-choice"], clock.now() - timedelta(hours=1))
    await slack.command("remind time:08:00 timezone:Europe/Berlin", user=LEARNER)
    slack.fake.closed_channels |= {CHANNEL, dm(LEARNER)}  # the bot was removed; the learner closed DMs
    await run_until(wired.scheduler, clock, datetime(2026, 3, 31, 0, 0, tzinfo=UTC), slack)  # four days

    tried = [c.args for c in slack.fake.calls_to("chat.postMessage")]
    assert len([a for a in tried if a.get("channel") == CHANNEL]) == 1  # none after the pause
    told = slack.fake.posts(dm(ADMIN))
    assert len(told) == 1 and "Daily question paused" in block_text(told[0]["blocks"])
    assert "not_in_channel" in block_text(told[0]["blocks"])
    assert len([a for a in tried if a.get("channel") == dm(LEARNER)]) == 2  # days one and two, then never again
    n = len(slack.fake.responses)
    await slack.command("stats", user=LEARNER)
    assert "stopped: direct messages failed twice" in "\n".join(
        str(r.get("text", "")) + block_text(r.get("blocks") or []) for r in slack.fake.responses[n:]
    )
