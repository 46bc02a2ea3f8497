"""The composition root keeps time for races: `build(live=True)` resumes stored races and posts through the Outbox."""

from __future__ import annotations

import asyncio

from bot.app import build
from bot.core import requests as rq
from bot.core.race import ChannelPost, RaceService
from bot.settings import Settings
from bot.storage import SqlRepository
from bot.storage.social import SocialStore
from tests.fakes import FakeClock

from .conftest import Posts
from .helpers import member


async def test_a_live_bot_resumes_a_stored_race_and_posts_its_round_end(
    db_url: str, repository: SqlRepository, store: SocialStore
) -> None:
    # A race started days ago by a process that died: its first round's time is long up.
    old = RaceService(repository=repository, store=store, clock=FakeClock(), publish=Posts(), timers=False)
    await old.start(member("Ann"), rounds=3, seconds=10)
    await repository.close()

    settings = Settings(database_url=db_url, packs=[])
    async with build(settings, sandbox=False, live=True) as app:
        assert app.outbox is not None and app.service.races is not None
        posts: list[ChannelPost] = []

        async def publish(post: ChannelPost) -> None:
            posts.append(post)

        app.outbox.attach("discord", publish)
        for _ in range(200):
            if posts:
                break
            await asyncio.sleep(0.05)
        assert posts and posts[0].channel_id == "chan-1" and posts[0].next_round == 1
        assert posts[0].messages[0].title == "Round 1 of 3: the answer"
        reply = await app.service.handle(member("Ann"), rq.RaceStop())
        assert "stopped after 1 of 3 rounds" in reply.messages[0].text()


async def test_the_cli_builds_races_without_timers(db_url: str, repository: SqlRepository, store: SocialStore) -> None:
    old = RaceService(repository=repository, store=store, clock=FakeClock(), publish=Posts(), timers=False)
    await old.start(member("Ann"), rounds=3, seconds=10)
    await repository.close()
    async with build(Settings(database_url=db_url, packs=[]), sandbox=False) as app:
        await asyncio.sleep(0.2)
        race = await SocialStore.beside(app.repository).running_race("discord", "guild-1", "chan-1")
        assert race is not None and race.round == 0  # nobody closed it: only the running bot keeps time


async def test_leaderboard_weeks_follow_the_time_zone_set_with_the_daily_question(db_url: str) -> None:
    from bot.app import server_zone
    from bot.core import Actor
    from bot.storage.daily import DailyRepository

    settings = Settings(database_url=db_url, packs=[])
    async with build(settings, sandbox=False) as app:
        zone = server_zone(DailyRepository.beside(app.repository))
        assert await zone("discord", "guild-9") is None  # no daily question: UTC
        admin = Actor("discord", "guild-9", "boss", "Boss", is_admin=True, channel_id="chan-9")
        await app.service.handle(admin, rq.DailySet(time="09:00", timezone="Asia/Tokyo", channel_id="chan-9"))
        assert await zone("discord", "guild-9") == "Asia/Tokyo"
        assert await zone("discord", "guild-other") is None
