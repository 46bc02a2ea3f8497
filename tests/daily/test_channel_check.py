"""`/quiz daily set` asks the platform's poster whether the bot can post in the channel (`ChannelCheck`).

A refusal stores nothing and says why; a check that fails or hangs never blocks the setting, which
then says it could not check. A platform with no poster to ask (the terminal) is not asked. The posters are the scheduler's
(`PlatformPosters`), where each front end adds its own.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from bot.core import requests as rq
from bot.core.daily import CantPost, PostAccess
from bot.core.daily import service as daily_service
from bot.core.model import Actor
from bot.storage import SqlRepository
from tests.daily.support import FakePoster
from tests.daily.wired import Wired, wire
from tests.fakes import FakeClock, LocalRunner

ADMIN = Actor("discord", "g1", "ada", "Ada", is_admin=True, channel_id="c1")
SET = rq.DailySet(time="11:00", timezone="UTC")


class Failing(FakePoster):
    async def can_post(self, platform: str, channel_id: str) -> PostAccess:
        raise RuntimeError("the platform's client broke")


class Hanging(FakePoster):
    async def can_post(self, platform: str, channel_id: str) -> PostAccess:
        await asyncio.Event().wait()
        raise AssertionError("never")


@pytest.fixture
async def wired(repository: SqlRepository, clock: FakeClock, runner: LocalRunner, tmp_path: Path) -> Wired:
    return await wire(repository, clock, runner, tmp_path)


async def test_a_channel_the_poster_refuses_is_not_stored(wired: Wired) -> None:
    await wired.posters.add("discord", FakePoster(broken={"c1"}))
    with pytest.raises(CantPost, match=r"^I can't post in <#c1>: c1 refuses the bot's messages\. Nothing was changed\.$"):
        await wired.service.handle(ADMIN, SET)
    assert await wired.daily._store.get_schedule("discord", "c1") is None
    done = await wired.service.handle(ADMIN, rq.DailySet(time="11:00", timezone="UTC", channel_id="c2"))
    assert done.messages[0].title == "Daily question set" and "could not check" not in done.messages[0].text()


@pytest.mark.parametrize("poster", [Failing, Hanging])
async def test_a_check_that_fails_or_hangs_takes_the_setting_and_says_so(
    wired: Wired, poster: type[FakePoster], monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(daily_service, "CHECK_SECONDS", 0.2)
    await wired.posters.add("discord", poster())
    done = await wired.service.handle(ADMIN, SET)
    text = done.messages[0].text()
    assert done.messages[0].title == "Daily question set" and "I could not check that I can post in <#c1>" in text
    assert await wired.daily._store.get_schedule("discord", "c1") is not None
    assert "whether the bot can post" in caplog.text


async def test_a_platform_without_a_poster_is_not_asked(wired: Wired) -> None:
    await wired.posters.add("slack", FakePoster(broken={"c1"}))  # another platform's
    done = await wired.service.handle(ADMIN, SET)
    assert done.messages[0].title == "Daily question set" and "could not check" not in done.messages[0].text()
