"""Discord sharding: processes with DISCORD_SHARD_COUNT=2 and DISCORD_SHARDS 0 or 1 split the gateway."""

from __future__ import annotations

import asyncio

from pydantic import SecretStr

from bot.adapters.discord import create_client
from bot.adapters.discord.api import use_api
from bot.app import App
from bot.core import QuizService
from bot.settings import Settings
from bot.storage import open_repository
from tests.discord.fake_discord import BOT_TOKEN, FakeDiscord
from tests.fakes import FakeClock, LocalRunner


async def test_two_processes_identify_with_their_own_shards(fake_discord: FakeDiscord, db_url: str) -> None:
    repository = await open_repository(db_url)
    service = QuizService(repository=repository, runner=LocalRunner(), clock=FakeClock())
    use_api(fake_discord.api_url)
    clients = []
    for shard in ("0", "1"):
        settings = Settings(
            database_url=db_url, discord_token=SecretStr(BOT_TOKEN), discord_api_url=fake_discord.api_url,
            packs=[], discord_shard_count=2, discord_shards=shard,
        )  # fmt: skip
        clients.append(create_client(App(settings=settings, repository=repository, service=service, runner=None), settings))
    tasks = [asyncio.create_task(client.start(BOT_TOKEN)) for client in clients]
    try:
        async def identified() -> None:
            while len(fake_discord.identify) < 2:
                await asyncio.sleep(0.05)

        await asyncio.wait_for(identified(), 30)
        assert sorted(tuple(i["shard"]) for i in fake_discord.identify) == [(0, 2), (1, 2)]
        assert [c.shard_ids for c in clients] == [[0], [1]]  # type: ignore[attr-defined]
    finally:
        for client in clients:
            await client.close()
        await asyncio.gather(*tasks, return_exceptions=True)
        await repository.close()


async def test_without_shard_settings_the_client_is_not_sharded(fake_discord: FakeDiscord, db_url: str) -> None:
    settings = Settings(database_url=db_url, discord_token=SecretStr(BOT_TOKEN), packs=[])
    repository = await open_repository(db_url)
    try:
        client = create_client(App(settings=settings, repository=repository, service=None, runner=None), settings)  # type: ignore[arg-type]
        assert not hasattr(client, "shard_ids") and client.shard_count is None
        await client.close()
    finally:
        await repository.close()
