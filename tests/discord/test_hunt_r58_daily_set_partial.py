"""`/quiz daily action:set` with its time or time zone left out, as Discord lets an admin do.

On Discord `/quiz daily` is one command whose options serve every action, so `time` and `timezone`
are optional there. Left out, the bot echoed an empty value: "`` is not a time", "There is no time
zone ``". An admin moving the channel's question to another hour had to type its zone again, and one
who left both out was not told what to give. Now a time or zone left out keeps the channel's
current one; with no schedule yet, the admin is told to give both, with an example.
"""

from __future__ import annotations

from . import payloads as p
from .conftest import DailyBot


def set_(**values: str) -> list[dict[str, object]]:
    return [p.option("action", "set"), *(p.option(k, v) for k, v in values.items())]


async def test_a_first_daily_question_without_its_time_says_what_to_give(daily_bot: DailyBot) -> None:
    bot = daily_bot.bot
    for options in (set_(), set_(timezone="Europe/Berlin"), set_(time="09:00")):
        text = (await bot.command(p.ADMIN, "daily", options)).text()
        assert "``" not in text, text
        assert "time:09:30 timezone:Europe/Berlin" in text and "/quiz daily action:set" in text, text


async def test_a_new_time_alone_keeps_the_channels_time_zone(daily_bot: DailyBot) -> None:
    bot = daily_bot.bot
    first = await bot.command(p.ADMIN, "daily", set_(time="09:00", timezone="Europe/Berlin"))
    assert "09:00 Europe/Berlin" in first.text(), first.text()
    moved = await bot.command(p.ADMIN, "daily", set_(time="10:15"))
    assert "10:15 Europe/Berlin" in moved.text(), moved.text()
    rezoned = await bot.command(p.ADMIN, "daily", set_(timezone="America/New_York"))
    assert "10:15 America/New_York" in rezoned.text(), rezoned.text()
    shown = await bot.command(p.ADMIN, "daily", [p.option("action", "show")])
    assert "10:15 America/New_York" in shown.text(), shown.text()
