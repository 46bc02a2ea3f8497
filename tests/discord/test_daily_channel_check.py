"""`/quiz daily set` on Discord asks first whether the bot can post in the channel, and says what is missing.

The bot's permissions come from discord.py's cache (a GUILD_CREATE handed to the client, as the
gateway sends it) or, for a channel the cache lacks, from the fake Discord's channel, guild and
member endpoints. A refused channel is answered privately and stores nothing.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from bot.core.daily import service as daily_service

from . import payloads as p
from .conftest import Answer, DailyBot, study_guild
from .fake_discord import FakeDiscord
from .test_daily import daily_set, option, private

SET = daily_set(time="11:00", timezone="Europe/Berlin", pack="study")


def checks(answer: Answer) -> list[str]:
    """The paths of the reads the bot made of Discord while answering."""
    return [c.path for c in answer.calls if c.method == "GET"]


async def stored(daily_bot: DailyBot) -> Any:
    return await daily_bot.wired.daily._store.get_schedule("discord", p.CHANNEL_ID)


async def test_a_channel_where_the_bot_may_post_is_set_after_asking_discord(daily_bot: DailyBot) -> None:
    done = await daily_bot.bot.command(p.ADMIN, "daily", SET)
    assert "Daily question set" in done.text() and "could not check" not in done.text()
    assert f"/channels/{p.CHANNEL_ID}" in checks(done)  # not in the cache: asked of Discord
    assert await stored(daily_bot) is not None


async def test_a_channel_without_embed_links_is_refused_and_nothing_is_stored(daily_bot: DailyBot, fake: FakeDiscord) -> None:
    study_guild(fake, everyone=p.MEMBER_PERMISSIONS)  # view and send, but no Embed Links
    refused = await daily_bot.bot.command(p.ADMIN, "daily", SET)
    text = refused.text()
    assert private(refused) and f"I can't post in <#{p.CHANNEL_ID}>" in text, text
    assert "lacks the **Embed Links** permission there" in text and "Send Messages" not in text
    assert "Nothing was changed." in text and "Daily question set" not in text
    assert await stored(daily_bot) is None
    shown = await daily_bot.bot.command(p.ADMIN, "daily", [option("action", "show")])
    assert "has no daily question" in shown.text()
    daily_bot.bot.assert_all_acknowledged()


async def test_permissions_are_read_from_the_cache_with_the_channels_overwrites(daily_bot: DailyBot, fake: FakeDiscord) -> None:
    guild = copy.deepcopy(study_guild(fake))
    # @everyone may not send messages in the study channel (so no embeds either): the gateway's view of it.
    guild["channels"][0]["permission_overwrites"] = [p.overwrite(p.GUILD_ID, deny=p.SEND_MESSAGES)]
    await daily_bot.bot.event("GUILD_CREATE", guild)
    refused = await daily_bot.bot.command(p.ADMIN, "daily", SET)
    assert "lacks the **Send Messages**, **Embed Links** permissions there" in refused.text(), refused.text()
    assert checks(refused) == []  # all from the cache: no call to Discord
    assert await stored(daily_bot) is None


async def test_a_channel_the_bot_cannot_see_or_that_is_gone_is_refused(daily_bot: DailyBot, fake: FakeDiscord) -> None:
    fake.hidden_channels.add(p.CHANNEL_ID)  # Discord answers 403 Missing Access
    hidden = await daily_bot.bot.command(p.ADMIN, "daily", SET)
    assert f"I can't post in <#{p.CHANNEL_ID}>" in hidden.text() and "**View Channel**" in hidden.text()
    fake.guilds[p.GUILD_ID]["channels"] = []  # deleted: 404 Unknown Channel
    gone = await daily_bot.bot.command(p.ADMIN, "daily", SET)
    assert "Discord knows no channel with that id that the bot can see" in gone.text(), gone.text()
    assert await stored(daily_bot) is None


async def test_a_refusal_keeps_the_schedule_that_was_set(daily_bot: DailyBot, fake: FakeDiscord) -> None:
    bot = daily_bot.bot
    await bot.command(p.ADMIN, "daily", daily_set(time="09:00", timezone="UTC", pack="study"))
    before = await stored(daily_bot)
    study_guild(fake, everyone=p.VIEW_CHANNEL)  # the bot's send permission was taken away since
    refused = await bot.command(p.ADMIN, "daily", daily_set(time="10:00", timezone="Europe/Berlin"))
    assert "I can't post in" in refused.text() and "Nothing was changed." in refused.text()
    assert await stored(daily_bot) == before


async def test_when_discord_cannot_be_asked_the_setting_is_taken_with_a_warning(
    daily_bot: DailyBot, fake: FakeDiscord, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake.fail("GET", rf"^/guilds/{p.GUILD_ID}$", 400, {"message": "Bad Request", "code": 0})  # an error, not an answer
    done = await daily_bot.bot.command(p.ADMIN, "daily", SET)
    text = done.text()
    assert "Daily question set" in text and f"I could not check that I can post in <#{p.CHANNEL_ID}>" in text, text
    assert await stored(daily_bot) is not None
    # Discord failing (discord.py retries a 500 for longer than the check waits): the same, once the wait is over.
    monkeypatch.setattr(daily_service, "CHECK_SECONDS", 0.3)
    fake.fail("GET", rf"^/channels/{p.CHANNEL_ID}$", 500, {"message": "Internal Server Error", "code": 0}, times=10)
    again = await daily_bot.bot.command(p.ADMIN, "daily", daily_set(time="12:00", timezone="Europe/Berlin"))
    assert "Daily question set" in again.text() and "I could not check" in again.text()
    assert (await stored(daily_bot)).at_text == "12:00"


async def test_a_thread_needs_send_messages_in_threads_and_a_category_is_no_place_to_post(
    daily_bot: DailyBot, fake: FakeDiscord
) -> None:
    guild = copy.deepcopy(study_guild(fake))  # @everyone may send messages, but not in threads
    category = {**p.text_channel("810000000000000007"), "type": 4, "name": "Study rooms"}
    guild["channels"].append(category)
    guild["threads"] = [p.thread_channel()]
    await daily_bot.bot.event("GUILD_CREATE", guild)
    in_thread = await daily_bot.bot.command(p.ADMIN, "daily", SET, channel=p.thread_channel())
    assert f"I can't post in <#{p.THREAD_ID}>" in in_thread.text(), in_thread.text()
    assert "lacks the **Send Messages in Threads** permission there" in in_thread.text()
    picked = {"channels": {category["id"]: {"id": category["id"], "name": "Study rooms", "type": 4, "permissions": "0"}}}
    channel = {"name": "channel", "type": 7, "value": category["id"]}
    on_category = await daily_bot.bot.command(p.ADMIN, "daily", [*SET, channel], resolved=picked)
    assert "it is not a text channel" in on_category.text(), on_category.text()
    assert await daily_bot.wired.daily._store.list_schedules("discord", p.GUILD_ID) == []
