"""`/quiz race stop` in a DM says where races run, as `/quiz race start` there does.

It said "No race is running in this channel. Start one with `/quiz race start`", and starting one
in a DM is refused: the learner was sent in a circle.
"""

from __future__ import annotations

from . import payloads as p
from .test_race import RaceBot, racing

__all__ = ["racing"]  # the fixture (the race wiring), used here as in test_race

WHERE = "Races run in a channel: start one in a server channel."


async def test_stopping_a_race_in_a_dm_says_where_races_run(racing: RaceBot) -> None:
    bot = racing.bot
    start = await bot.command(p.ALICE, "start", group="race", guild=False)
    assert WHERE in start.text(), start.text()
    stop = await bot.command(p.ALICE, "stop", group="race", guild=False)
    assert WHERE in stop.text() and "No race is running" not in stop.text(), stop.text()
    in_server = await bot.command(p.ALICE, "stop", group="race")  # in a channel: still "no race running here"
    assert "No race is running in this channel." in in_server.text(), in_server.text()
    bot.assert_all_acknowledged()
