"""`/quiz stats user:@someone` showed that person's reminder: the hour and the time zone they live in.

Anyone may look at someone else's progress (attempts, accuracy by topic, streak, what is due), but
the reminder is a daily-review setting that tells where and when that person is: it belongs to
them alone, like their Reset buttons. The viewer also read "open your DMs" about another person's
closed DMs. Now only your own stats show your reminder.
"""

from __future__ import annotations

from typing import Any

from . import payloads as p
from .conftest import DailyBot


def user_option(user: p.User) -> dict[str, Any]:
    return {"options": [{"name": "user", "type": 6, "value": user.id}], "resolved": {"users": {user.id: user.json()}}}


async def test_someone_elses_stats_leave_out_their_reminder(daily_bot: DailyBot) -> None:
    bot = daily_bot.bot
    on = await bot.command(p.BOB, "remind", [p.option("time", "07:45"), p.option("timezone", "Asia/Kathmandu")])
    assert "Reminder on" in on.text(), on.text()
    started = await bot.command(p.BOB, "start", [p.option("pack", "demo")])
    assert "Question 1 of" in started.text(), started.text()
    await bot.command(p.BOB, "skip")

    own = await bot.command(p.BOB, "stats")
    assert "07:45 Asia/Kathmandu" in own.text(), own.text()  # your own reminder stays on your card

    extra = user_option(p.BOB)
    theirs = await bot.command(p.ALICE, "stats", extra["options"], resolved=extra["resolved"])
    assert "Daily practice" in theirs.text() and "Streak" in theirs.text(), theirs.text()
    assert "Asia/Kathmandu" not in theirs.text() and "07:45" not in theirs.text(), theirs.text()
