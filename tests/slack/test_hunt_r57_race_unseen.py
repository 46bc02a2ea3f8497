"""Hunt: `/quiz race` in a channel the bot is not in started a race nobody could see, holding the channel.

Slack lets anyone type `/quiz` in any channel, the bot a member or not. The race was started first and
announced after: the announcement failed (not_in_channel), the starter read "Slack refused my reply;
please try again", and trying again, even once the bot was invited, said a race was already running
here. `/quiz leaderboard` there got the same generic words. Now a public request in a channel the bot
is not in is refused first, saying to invite the bot, and nothing starts.
"""

from __future__ import annotations

from tests.slack.conftest import CHANNEL, Slack, block_text
from tests.slack.test_race import RaceSlack, racing

__all__ = ["racing"]  # the fixture, used here as in test_race


def last_note(slack: Slack) -> str:
    return block_text(slack.fake.responses[-1]["blocks"])


async def test_a_race_in_a_channel_without_the_bot_is_refused_and_holds_nothing(racing: RaceSlack) -> None:
    slack, fake = racing.slack, racing.fake
    fake.closed_channels.add(CHANNEL)
    await slack.command("race race-pack 3 10", channel=CHANNEL)
    note = last_note(slack)
    assert "please try again" not in note and "/invite" in note, note
    fake.closed_channels.discard(CHANNEL)  # the bot is invited
    await slack.command("race race-pack 3 10", channel=CHANNEL)
    assert "already running" not in last_note(slack)
    assert "A race starts!" in racing.channel_text()


async def test_the_leaderboard_in_a_channel_without_the_bot_says_to_invite_it(racing: RaceSlack) -> None:
    slack, fake = racing.slack, racing.fake
    fake.closed_channels.add(CHANNEL)
    await slack.command("leaderboard", channel=CHANNEL)
    note = last_note(slack)
    assert "please try again" not in note and "/invite" in note, note
    assert fake.calls_to("chat.postMessage") == []
