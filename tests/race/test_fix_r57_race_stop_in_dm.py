"""`race stop` in a direct message says where races run (as `race start` does), on Slack as on Discord.

It said "No race is running in this channel. Start one with ...", and a race cannot start there.
"""

from __future__ import annotations

import pytest

from bot.core.model import Actor
from bot.core.race import RaceService
from bot.core.race.errors import BadRaceOption, NoRace

SLACK_DM = Actor("slack", "T1", "U1", "Ann", channel_id="D0123456")
SLACK_CHANNEL = Actor("slack", "T1", "U1", "Ann", channel_id="C0123456")
DISCORD_DM = Actor("discord", "dm", "ann", "Ann", channel_id="900")


@pytest.mark.parametrize(
    ("actor", "place"), [(SLACK_DM, "workspace"), (DISCORD_DM, "server")], ids=["slack", "discord"]
)
async def test_stop_in_a_dm_says_what_start_says(races: RaceService, actor: Actor, place: str) -> None:
    with pytest.raises(BadRaceOption) as started:
        await races.start(actor)
    with pytest.raises(BadRaceOption) as stopped:
        await races.stop(actor)
    assert str(stopped.value) == str(started.value) == f"Races run in a channel: start one in a {place} channel."


async def test_stop_in_a_channel_without_a_race_still_says_none_is_running(races: RaceService) -> None:
    with pytest.raises(NoRace):
        await races.stop(SLACK_CHANNEL)
