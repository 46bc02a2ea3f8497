"""Fix: the reminder's Start pressed twice on Discord threw away the review the first press started.

The second press stopped it ("Your previous quiz was stopped; the review starts.") and started
another, so the item the first press showed answered "This quiz was stopped". The second press now
shows the running review again, and the first press's item still takes the answer.
"""

from __future__ import annotations

from datetime import UTC, datetime

from tests.fakes import FakeClock

from . import payloads as p
from .conftest import DailyBot
from .fake_discord import FakeDiscord
from .test_daily import CAROL, channel_posts, daily_set, option


async def test_the_reminders_start_pressed_twice_keeps_the_first_review(daily_bot: DailyBot, fake: FakeDiscord, clock: FakeClock) -> None:
    bot, wired, *_ = daily_bot
    await bot.command(p.ADMIN, "daily", daily_set(time="10:00", timezone="Europe/Berlin", pack="study"))
    clock.advance(minutes=5)
    await bot.command(p.ADMIN, "daily", [option("action", "now")])
    post = fake.messages[channel_posts(fake, 0)[-1].message_id]
    await bot.click(CAROL, post, "B")
    await bot.click(CAROL, post, "B")  # wrong twice: the card is due again soon
    await bot.command(CAROL, "remind", [option("time", "18:00"), option("timezone", "Europe/Berlin")])
    clock.current = datetime(2026, 12, 1, 17, 0, tzinfo=UTC)  # 18:00 in Berlin
    start = len(fake.calls)
    await wired.scheduler.tick()
    [dm] = [c for c in fake.calls[start:] if c.method == "POST" and c.path == f"/channels/{CAROL.dm_channel}/messages"]
    reminder = fake.messages[dm.message_id]

    first = await bot.click(CAROL, reminder, "Start", guild=False)
    item = first.item()
    second = await bot.click(CAROL, reminder, "Start", guild=False)  # a double click: its own interaction
    assert "was stopped" not in second.text() and "already running" in second.text(), second.text()
    answered = await bot.click(CAROL, item, "A", guild=False)  # the item the first press showed
    assert "Correct" in answered.text() and "was stopped" not in answered.text(), answered.text()
