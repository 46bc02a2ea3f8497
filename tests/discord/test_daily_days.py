"""Issue 10 on Discord over days, through discord.py and the fake Discord: a schedule set once posts every
day at the right local hour across the autumn change in New York and a restart of the scheduler; a
channel the bot may no longer post in pauses the schedule and tells its admin once; a learner whose
direct messages are closed is tried twice, then not again."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from bot.scheduler import PlatformPosters, Scheduler
from bot.storage import DailyRepository
from tests.daily.support import add_cards
from tests.fakes import FakeClock

from . import payloads as p
from .conftest import DailyBot
from .fake_discord import FakeDiscord

NEW_YORK = ZoneInfo("America/New_York")


@pytest.fixture
def clock(clock: FakeClock) -> FakeClock:
    """The days start on Friday 30 October, at midnight in New York."""
    clock.current = datetime(2026, 10, 30, 4, 0, tzinfo=UTC)
    return clock


def posts(fake: FakeDiscord) -> list[Any]:
    """The channel's day posts (not the reveals, which reply to them)."""
    return [
        c for c in fake.calls
        if c.method == "POST" and c.path == f"/channels/{p.CHANNEL_ID}/messages" and "message_reference" not in c.body
    ]


async def run_until(scheduler: Scheduler, clock: FakeClock, until: datetime, fake: FakeDiscord) -> list[datetime]:
    """Tick every quarter hour until `until`; return when each new channel post went up."""
    posted: list[datetime] = []
    while clock.now() < until:
        clock.advance(minutes=15)
        before = len(posts(fake))
        await scheduler.tick()
        posted += [clock.now()] * (len(posts(fake)) - before)
    return posted


async def test_a_schedule_set_once_posts_at_seven_fifteen_in_new_york_across_the_change_and_a_restart(
    daily_bot: DailyBot, fake: FakeDiscord, clock: FakeClock
) -> None:
    bot, wired, poster, repository = daily_bot
    done = await bot.command(
        p.ADMIN, "daily", [p.option("action", "set"), p.option("time", "07:15"), p.option("timezone", "America/New_York"),
                           p.option("pack", "demo")],
    )
    assert "Daily question set" in done.text()
    posted = await run_until(wired.scheduler, clock, datetime(2026, 11, 1, 0, 0, tzinfo=UTC), fake)

    # The process restarts: a new scheduler over the same database and the same client.
    restarted = Scheduler(
        store=DailyRepository.beside(repository), packs=repository, clock=clock,
        poster=PlatformPosters({"discord": poster}), platforms=["discord"],
    )
    posted += await run_until(restarted, clock, datetime(2026, 11, 4, 0, 0, tzinfo=UTC), fake)

    local = [t.astimezone(NEW_YORK) for t in posted]
    assert [t.date() for t in local] == [date(2026, 10, 30) + timedelta(days=i) for i in range(5)]
    assert {(t.hour, t.minute) for t in local} == {(7, 15)}
    assert [t.hour for t in posted] == [11, 11, 12, 12, 12]  # UTC: daylight time, then standard from 1 November
    titles = [c.body["embeds"][0]["title"] for c in posts(fake)]
    assert titles[0].startswith("Daily question · 2026-10-30") and titles[-1].startswith("Daily question · 2026-11-03")
    reveals = [c for c in fake.calls if c.method == "POST" and "message_reference" in (c.body or {})]
    assert len(reveals) == 4  # each day's question answered under it when the next one goes up


def dms_to(fake: FakeDiscord, user: p.User) -> list[Any]:
    """Every message sent (or tried) in the direct-message channel the fake opens with `user`."""
    return [c for c in fake.calls if c.method == "POST" and c.path == f"/channels/7{user.id[-17:]}/messages"]


async def test_a_channel_closed_to_the_bot_pauses_and_a_closed_dm_is_tried_twice(
    daily_bot: DailyBot, fake: FakeDiscord, clock: FakeClock
) -> None:
    bot, wired, _, repository = daily_bot
    await bot.command(
        p.ADMIN, "daily", [p.option("action", "set"), p.option("time", "07:15"), p.option("timezone", "America/New_York")],
    )
    await add_cards(repository, "discord", p.BOB.id, ["q-short", "q-choice"], clock.now() - timedelta(hours=1))
    on = await bot.command(p.BOB, "remind", [p.option("time", "08:00"), p.option("timezone", "America/New_York")])
    assert "Reminder on" in on.text()
    # The bot lost access to the channel, and Bob does not take direct messages from it.
    fake.fail("POST", rf"^/channels/{p.CHANNEL_ID}/messages$", 403, {"message": "Missing Access", "code": 50001}, times=10)
    fake.fail(
        "POST", rf"^/channels/7{p.BOB.id[-17:]}/messages$", 403,
        {"message": "Cannot send messages to this user", "code": 50007}, times=10,
    )
    await run_until(wired.scheduler, clock, datetime(2026, 11, 3, 4, 0, tzinfo=UTC), fake)  # four days

    assert len(posts(fake)) == 1  # the one refused post; none after the pause
    [told] = dms_to(fake, p.ADMIN)
    text = str(told.body)
    assert "Daily question paused" in text and "403 Missing Access" in text
    assert len(dms_to(fake, p.BOB)) == 2  # days one and two, then never again
    stats = await bot.command(p.BOB, "stats")
    assert "stopped: direct messages failed twice" in stats.text()
    shown = await bot.command(p.ADMIN, "daily", [p.option("action", "show")])
    assert "paused: the bot cannot post there (403 Missing Access)" in shown.text()
