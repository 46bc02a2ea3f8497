"""Command sync: at once to development guilds; globally only when the command tree changed."""

from __future__ import annotations

from bot.adapters.discord.api import HASH_KEY

from . import payloads as p
from .conftest import BotRunner
from .fake_discord import APP_ID, FakeDiscord

GLOBAL = r"^/applications/\d+/commands$"


async def test_global_sync_happens_only_when_the_tree_changed(
    start_bot: BotRunner, fake: FakeDiscord
) -> None:
    bot = await start_bot.start()
    assert bot.client.sync_result == "global"
    await start_bot.stop(bot)
    bot = await start_bot.start()
    assert bot.client.sync_result == "unchanged"
    assert len(fake.find("PUT", GLOBAL)) == 1  # not again on a plain restart
    # A new version of the bot whose commands differ: the stored hash no longer matches.
    await bot.client.handler.store.set_setting(HASH_KEY.format(application_id=APP_ID), "an older tree")
    await start_bot.stop(bot)
    bot = await start_bot.start()
    assert bot.client.sync_result == "global"
    assert len(fake.find("PUT", GLOBAL)) == 2


async def test_development_guilds_are_synced_at_every_start(start_bot: BotRunner, fake: FakeDiscord) -> None:
    for _ in range(2):
        bot = await start_bot.start(guild_ids=[int(p.GUILD_ID)])
        assert bot.client.sync_result == "guilds"
        await start_bot.stop(bot)
    assert len(fake.find("PUT", rf"^/applications/\d+/guilds/{p.GUILD_ID}/commands$")) == 2
    assert not fake.find("PUT", GLOBAL)


async def test_a_guild_that_refuses_the_sync_does_not_stop_the_bot(
    start_bot: BotRunner, fake: FakeDiscord
) -> None:
    fake.fail("PUT", r"/guilds/", 403, {"message": "Missing Access", "code": 50001})
    bot = await start_bot.start(guild_ids=[int(p.GUILD_ID)])
    answer = await bot.command(p.ALICE, "help")
    assert "/quiz start" in answer.text()
