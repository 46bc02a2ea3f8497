"""Hunt: `/quiz daily set` on a thread of a forum channel (a forum post).

A forum post is a thread the bot posts in like any other (Send Messages in Threads in the forum);
its parent, the forum, is not itself a channel messages are sent to. The check must not call the
post "not a text channel" because of its parent.
"""

from __future__ import annotations

import copy

from . import payloads as p
from .conftest import DailyBot, study_guild
from .fake_discord import FakeDiscord
from .test_daily import daily_set

FORUM_ID = "810000000000000009"
SET = daily_set(time="11:00", timezone="Europe/Berlin", pack="study")
THREADS = p.MEMBER_PERMISSIONS | p.EMBED_LINKS | (1 << 38)  # and Send Messages in Threads


def forum_post() -> dict[str, object]:
    return {**p.thread_channel(), "parent_id": FORUM_ID, "name": "question of the day"}


async def test_a_forum_post_where_the_bot_may_post_is_taken(daily_bot: DailyBot, fake: FakeDiscord) -> None:
    guild = copy.deepcopy(study_guild(fake, everyone=THREADS))
    forum = {**p.text_channel(FORUM_ID), "type": 15, "name": "questions", "available_tags": [], "flags": 0}
    guild["channels"].append(forum)
    guild["threads"] = [forum_post()]
    await daily_bot.bot.event("GUILD_CREATE", guild)
    done = await daily_bot.bot.command(p.ADMIN, "daily", SET, channel=forum_post())
    assert "Daily question set" in done.text() and "not a text channel" not in done.text(), done.text()
    assert await daily_bot.wired.daily._store.get_schedule("discord", p.THREAD_ID) is not None


async def test_a_forum_post_without_thread_permission_names_it(daily_bot: DailyBot, fake: FakeDiscord) -> None:
    guild = copy.deepcopy(study_guild(fake))  # may send messages, not in threads
    forum = {**p.text_channel(FORUM_ID), "type": 15, "name": "questions", "available_tags": [], "flags": 0}
    guild["channels"].append(forum)
    guild["threads"] = [forum_post()]
    await daily_bot.bot.event("GUILD_CREATE", guild)
    refused = await daily_bot.bot.command(p.ADMIN, "daily", SET, channel=forum_post())
    assert "lacks the **Send Messages in Threads** permission there" in refused.text(), refused.text()


async def test_a_forum_post_not_in_the_cache_is_checked_through_discords_api(daily_bot: DailyBot, fake: FakeDiscord) -> None:
    guild = study_guild(fake, everyone=THREADS)  # what Discord answers; no GUILD_CREATE reached the client
    guild["channels"].append({**p.text_channel(FORUM_ID), "type": 15, "name": "questions", "available_tags": [], "flags": 0})
    guild["threads"] = [forum_post()]
    done = await daily_bot.bot.command(p.ADMIN, "daily", SET, channel=forum_post())
    assert "Daily question set" in done.text() and "not a text channel" not in done.text(), done.text()
    assert "could not check" not in done.text(), done.text()
