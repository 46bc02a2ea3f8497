"""An admin's daily-question settings that name no real place or time are refused, and nothing is stored."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.core import requests as rq
from bot.core.daily import BadSetting
from bot.core.model import Actor
from bot.storage import SqlRepository
from tests.daily.wired import Wired, wire
from tests.fakes import FakeClock, LocalRunner
from tests.slack.conftest import ADMIN, CHANNEL, LEARNER, Slack, block_text, dm


def told(slack: Slack, since: int) -> str:
    return "\n".join(str(r.get("text", "")) + block_text(r.get("blocks") or []) for r in slack.fake.responses[since:])


@pytest.mark.parametrize("zone", ["localtime", "Factory", "posixrules"])
async def test_a_zone_that_is_no_place_is_refused_for_the_channel_and_the_reminder(
    daily_slack: tuple[Slack, Wired], zone: str
) -> None:
    slack, wired = daily_slack
    n = len(slack.fake.responses)
    await slack.command(f"daily set time:09:00 timezone:{zone}", user=ADMIN, channel=CHANNEL)
    assert f"There is no time zone `{zone}`." in told(slack, n)
    assert await wired.daily._store.list_schedules("slack", "T0001") == []
    n = len(slack.fake.responses)
    await slack.command(f"remind time:08:00 timezone:{zone}", user=LEARNER)
    assert f"There is no time zone `{zone}`." in told(slack, n)
    assert (await wired.daily._store.get_learner("slack", LEARNER)).reminder is None


async def test_the_daily_question_cannot_be_set_in_a_direct_message(daily_slack: tuple[Slack, Wired]) -> None:
    slack, wired = daily_slack
    n = len(slack.fake.responses)
    await slack.command("daily set time:09:00 timezone:Europe/Berlin", user=ADMIN)  # in the DM with the bot
    assert "posted in a channel, not in a direct message" in told(slack, n)
    assert await wired.daily._store.list_schedules("slack", "T0001") == []
    n = len(slack.fake.responses)
    await slack.command("daily now", user=ADMIN)
    assert "has no daily question" in told(slack, n)
    assert slack.fake.posts(dm(ADMIN)) == []  # nothing was posted in the DM
    n = len(slack.fake.responses)
    await slack.command(f"daily set time:09:00 timezone:Europe/Berlin channel:<#{CHANNEL}|quiz>", user=ADMIN)
    assert "Daily question set" in told(slack, n)  # naming a channel from the DM is fine


async def test_an_operator_in_a_discord_dm_cannot_set_a_daily_question(
    repository: SqlRepository, clock: FakeClock, runner: LocalRunner, tmp_path: Path
) -> None:
    wired = await wire(repository, clock, runner, tmp_path, admins=frozenset({"discord:op"}))
    operator = Actor("discord", "dm", "op", "Op", channel_id="555")
    with pytest.raises(BadSetting, match="not in a direct message"):
        await wired.service.handle(operator, rq.DailySet(time="09:00", timezone="UTC"))
    assert await wired.daily._store.get_schedule("discord", "555") is None


async def test_an_admin_of_another_server_cannot_overwrite_a_channels_schedule(
    repository: SqlRepository, clock: FakeClock, runner: LocalRunner, tmp_path: Path
) -> None:
    wired = await wire(repository, clock, runner, tmp_path)
    ours = Actor("discord", "g1", "ada", "Ada", is_admin=True, channel_id="c1")
    theirs = Actor("discord", "g2", "eve", "Eve", is_admin=True, channel_id="c9")
    await wired.service.handle(ours, rq.DailySet(time="09:00", timezone="UTC"))
    with pytest.raises(BadSetting, match="set by another server"):
        await wired.service.handle(theirs, rq.DailySet(time="23:00", timezone="Asia/Tokyo", channel_id="c1"))
    kept = await wired.daily._store.get_schedule("discord", "c1")
    assert kept is not None and (kept.scope, kept.zone, kept.at_text, kept.set_by) == ("g1", "UTC", "09:00", "ada")
