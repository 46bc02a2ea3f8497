"""`/quiz daily action:now` in a DM says that admin commands work in a server channel, as set and off do.

In a DM Discord names no server, so nobody is an admin there. `set` and `off` said so; `now` gave
only the bare "Only admins may post the daily question.", which a server's admin reads as wrong.
"""

from __future__ import annotations

from . import payloads as p
from .conftest import DailyBot

IN_DM = "Admin commands work in a server channel, not in a direct message."
NOW = [p.option("action", "now")]


async def test_an_admin_posting_the_daily_question_from_a_dm_is_told_where_admin_commands_work(daily_bot: DailyBot) -> None:
    bot = daily_bot.bot
    in_dm = await bot.command(p.ADMIN, "daily", NOW, guild=False)
    assert "Only admins may post the daily question." in in_dm.text() and IN_DM in in_dm.text(), in_dm.text()
    in_server = await bot.command(p.ALICE, "daily", NOW)  # a member in the server: no word about DMs
    assert "Only admins may post the daily question." in in_server.text() and IN_DM not in in_server.text(), in_server.text()
    bot.assert_all_acknowledged()
