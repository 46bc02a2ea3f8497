"""`/quiz leaderboard` in a DM with the bot shows no one: leaderboards are kept per server.

A DM names no server, so every Discord DM shares one scope. The leaderboard asked for in a DM
listed every learner, from any server, who had practised in their own DM with the bot, to anyone
who asked in theirs: strangers' names and points. It now says where leaderboards are.
"""

from __future__ import annotations

from . import payloads as p
from .conftest import components
from .test_race import CAT, RaceBot, racing

__all__ = ["racing"]  # the fixture (the race and leaderboard wiring), used here as in test_race


async def test_a_leaderboard_asked_for_in_a_dm_shows_no_one_elses_practice(racing: RaceBot) -> None:
    bot = racing.bot
    for learner in (p.ALICE, p.BOB):  # each practises alone, in a DM with the bot
        item = (await bot.command(learner, "start", [p.option("pack", "race-pack"), p.option("count", 1)], guild=False)).item()
        right = next(c["label"] for c in components(item) if "right" in c.get("label", ""))
        assert "✅" in (await bot.click(learner, item, right, guild=False)).text()
    board = await bot.command(CAT, "leaderboard", guild=False)
    assert p.ALICE.id not in board.text() and p.BOB.id not in board.text(), board.text()
    assert "/quiz leaderboard" in board.text() and "server channel" in board.text(), board.text()
    bot.assert_all_acknowledged()
