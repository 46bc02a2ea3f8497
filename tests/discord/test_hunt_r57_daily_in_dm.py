"""A server admin who sets or turns off the daily question in a DM with the bot is told why it is refused.

In a DM Discord names no server, so nobody is an admin there. The refusal said only "Only admins
may set the channel's daily question", which an admin reads as wrong; the pack and report commands
add "Admin commands work in a server channel, not in a direct message", and so must these.
"""

from __future__ import annotations

import pytest

from . import payloads as p
from .conftest import DailyBot

IN_DM = "Admin commands work in a server channel, not in a direct message."
SET = [p.option("action", "set"), p.option("time", "07:00"), p.option("timezone", "Europe/Berlin")]


@pytest.mark.parametrize("options", [SET, [p.option("action", "off")]], ids=["set", "off"])
async def test_an_admin_in_a_dm_is_told_admin_commands_work_in_a_server(daily_bot: DailyBot, options: list) -> None:
    bot = daily_bot.bot
    in_dm = await bot.command(p.ADMIN, "daily", options, guild=False)
    assert "Only admins may" in in_dm.text() and IN_DM in in_dm.text(), in_dm.text()
    in_server = await bot.command(p.ALICE, "daily", options)  # a member in the server: no word about DMs
    assert "Only admins may" in in_server.text() and IN_DM not in in_server.text(), in_server.text()
    bot.assert_all_acknowledged()
