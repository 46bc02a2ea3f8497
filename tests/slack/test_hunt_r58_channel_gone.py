"""Hunt: a quiz running in a channel thread was stuck for good once the bot could no longer post there.

Someone removed the bot from the channel (or archived the channel) while a learner's quiz ran in
one of its threads. The learner's next answer was stored, but its reply could not be posted: they
read "Slack refused my reply (not_in_channel); please try again". Trying again (`/quiz current`,
even from the DM) failed the same way, every time; the next question was never seen. The reply now
goes to the learner's direct messages, after a word on why, and the quiz goes on there.
"""

from __future__ import annotations

import pytest

from tests.slack.conftest import CHANNEL, LEARNER, Slack, block_text, dm
from tests.slack.helpers import is_item, items


def told(slack: Slack) -> str:
    private = [*slack.fake.ephemerals, *slack.fake.responses]
    return "\n".join(block_text(m.get("blocks") or []) for m in [*private, *slack.fake.posts(dm(LEARNER))])


@pytest.mark.parametrize("gone", ["closed_channels", "archived_channels"])
async def test_an_answer_after_the_bot_lost_the_channel_goes_on_in_the_dm(slack: Slack, gone: str) -> None:
    await slack.command("start demo difficulty:easy count:2", channel=CHANNEL)
    first = items(slack, CHANNEL)[-1]
    getattr(slack.fake, gone).add(CHANNEL)  # the bot was removed from the channel, or it was archived
    await slack.click(CHANNEL, first["ts"], label="Skip")
    assert "please try again" not in told(slack), told(slack)
    in_dm = slack.fake.posts(dm(LEARNER))
    assert any("Skipped" in block_text(m["blocks"]) for m in in_dm), told(slack)
    assert is_item(in_dm[-1]) and "Question 2 of 2" in block_text(in_dm[-1]["blocks"])
    note = block_text(in_dm[0]["blocks"])  # first, before the grade: why the quiz is here now
    assert "can't post in <#C0QUIZ>" in note and "your quiz goes on here" in note, note

    await slack.command("current", channel=CHANNEL)  # the quiz lives in the DM now
    assert "please try again" not in told(slack), told(slack)
    assert "Question 2 of 2" in block_text(slack.fake.posts(dm(LEARNER))[-1]["blocks"])
