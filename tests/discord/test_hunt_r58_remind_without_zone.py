"""`/quiz remind time:08:00` without `timezone`, which Discord offers as an optional option.

Discord lists `timezone` as optional (the learner may already have one, from an earlier reminder or
`/quiz daily action:settings`), but the bot answered "There is no time zone ``", echoing an empty
name. A learner moving their reminder an hour later was refused. Without `timezone` the reminder
keeps the learner's own time zone (UTC when they never set one).
"""

from __future__ import annotations

from . import payloads as p
from .conftest import DailyBot


async def test_a_reminder_moved_without_naming_the_zone_keeps_the_learners_zone(daily_bot: DailyBot) -> None:
    bot = daily_bot.bot
    first = await bot.command(p.ALICE, "remind", [p.option("time", "07:00"), p.option("timezone", "Europe/Berlin")])
    assert "07:00 (Europe/Berlin)" in first.text(), first.text()
    moved = await bot.command(p.ALICE, "remind", [p.option("time", "08:00")])
    text = moved.text()
    assert "There is no time zone" not in text, text
    assert "08:00 (Europe/Berlin)" in text, text


async def test_a_first_reminder_without_a_zone_is_in_utc_and_says_so(daily_bot: DailyBot) -> None:
    bot = daily_bot.bot
    answer = await bot.command(p.BOB, "remind", [p.option("time", "06:30")], locale="de")
    text = answer.text()
    assert "``" not in text and "06:30 (UTC)" in text, text
