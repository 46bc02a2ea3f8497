"""`/quiz daily set` in Slack asks conversations.info first: a channel the bot cannot post in is refused
with what to do (invite the bot, unarchive, check the channel), and nothing is stored.
"""

from __future__ import annotations

import pytest

from tests.daily.wired import Wired
from tests.slack.conftest import ADMIN, CHANNEL, Slack, block_text

SET = f"daily set time:09:00 timezone:Europe/Berlin channel:<#{CHANNEL}|quiz>"


def told(slack: Slack, since: int) -> str:
    return "\n".join(str(r.get("text", "")) + block_text(r.get("blocks") or []) for r in slack.fake.responses[since:])


async def schedules(wired: Wired) -> list[object]:
    return list(await wired.daily._store.list_schedules("slack", "T0001"))


async def test_a_channel_the_bot_is_in_is_set_after_asking_slack(daily_slack: tuple[Slack, Wired]) -> None:
    slack, wired = daily_slack
    n = len(slack.fake.responses)
    await slack.command(SET, user=ADMIN)
    assert "Daily question set" in told(slack, n) and "could not check" not in told(slack, n)
    assert [c.args["channel"] for c in slack.fake.calls_to("conversations.info")] == [CHANNEL]
    assert len(await schedules(wired)) == 1


async def test_a_channel_without_the_bot_is_refused_with_the_invite_to_type(daily_slack: tuple[Slack, Wired]) -> None:
    slack, wired = daily_slack
    slack.fake.closed_channels.add(CHANNEL)
    n = len(slack.fake.responses)
    await slack.command(SET, user=ADMIN, channel=CHANNEL)
    text = told(slack, n)
    assert f"I can't post in <#{CHANNEL}>: the bot is not a member of the channel." in text, text
    assert "`/invite @quizbot`" in text and "Nothing was changed." in text and "Daily question set" not in text
    assert await schedules(wired) == []
    assert slack.fake.calls_to("chat.postMessage") == []  # nothing was posted to find out


@pytest.mark.parametrize(
    ("where", "said"),
    [
        ("archived_channels", "the channel is archived. Unarchive it, or choose another channel."),
        ("missing_channels", "Slack knows no channel with that id that the bot can see"),
    ],
)
async def test_an_archived_or_unknown_channel_is_refused(daily_slack: tuple[Slack, Wired], where: str, said: str) -> None:
    slack, wired = daily_slack
    getattr(slack.fake, where).add(CHANNEL)
    n = len(slack.fake.responses)
    await slack.command(SET, user=ADMIN)
    text = told(slack, n)
    assert f"I can't post in <#{CHANNEL}>: {said}" in text, text
    assert await schedules(wired) == []


async def test_a_refusal_keeps_the_schedule_that_was_set(daily_slack: tuple[Slack, Wired]) -> None:
    slack, wired = daily_slack
    await slack.command(SET, user=ADMIN)
    [before] = await schedules(wired)
    slack.fake.closed_channels.add(CHANNEL)  # the bot was removed since
    n = len(slack.fake.responses)
    await slack.command(f"daily set time:10:00 timezone:UTC channel:<#{CHANNEL}|quiz>", user=ADMIN)
    assert "the bot is not a member of the channel" in told(slack, n)
    assert await schedules(wired) == [before]


@pytest.mark.parametrize("error", ["missing_scope", "internal_error"])
async def test_when_slack_cannot_be_asked_the_setting_is_taken_with_a_warning(
    daily_slack: tuple[Slack, Wired], error: str
) -> None:
    slack, wired = daily_slack
    slack.fake.fail("conversations.info", error=error)  # no channels:read scope, or Slack failing
    n = len(slack.fake.responses)
    await slack.command(SET, user=ADMIN)
    text = told(slack, n)
    assert "Daily question set" in text and f"I could not check that I can post in <#{CHANNEL}>" in text, text
    assert len(await schedules(wired)) == 1
