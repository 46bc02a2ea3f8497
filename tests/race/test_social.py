"""SocialService: the leaderboard reply with its picture, the privacy switch, the stats picture."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from bot.core import Image, QuizService, Text, UnknownName
from bot.core.race import RaceService, SocialService
from bot.core.race import actions as rx
from bot.storage import SqlRepository
from bot.storage.social import SocialStore
from tests.fakes import FakeClock

from .conftest import Posts
from .helpers import member, race_pack

MONDAY = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)


async def play(repository: SqlRepository, clock: FakeClock) -> SocialStore:
    """Bob answers right at once in one round of a race; Cat answers wrong."""
    await QuizService(repository=repository, runner=None, clock=clock).import_pack(race_pack(others=False))
    store = SocialStore.beside(repository)
    races = RaceService(repository=repository, store=store, clock=clock, publish=Posts(), timers=False)
    await races.start(member("Ann"), rounds=3, seconds=30)
    race = await store.running_race("discord", "guild-1", "chan-1")
    assert race is not None
    await races.act(member("Bob"), rx.make(race.id, 0, rx.CHOOSE, 0))
    await races.act(member("Cat"), rx.make(race.id, 0, rx.CHOOSE, 1))
    clock.advance(seconds=30)
    await races.tick()
    return store


async def test_the_leaderboard_is_public_text_first_then_a_picture(repository: SqlRepository) -> None:
    clock = FakeClock(MONDAY)
    social = SocialService(store=await play(repository, clock), clock=clock)
    reply = await social.leaderboard(member("Ann"), mention=lambda user: f"<@{user}>")
    assert not reply.private
    message = reply.messages[0]
    assert message.title == "Leaderboard this week"
    assert "1. <@bob>: 20 pts" in message.text()
    assert "<@cat>" not in message.text()  # no points, no place
    assert isinstance(message.parts[0], Text)  # the text comes first
    image = message.parts[-1]
    assert isinstance(image, Image) and image.data.startswith(b"\x89PNG") and "<@bob> 20 points" in image.alt
    assert await social.rank(member("Bob")) == 1
    assert await social.rank(member("Cat")) is None
    named = await social.leaderboard(member("Ann"), mention=lambda u: f"<@{u}>", display_name=str.title)
    drawn = named.messages[0].parts[-1]
    assert isinstance(drawn, Image) and "1. Bob 20 points" in drawn.alt  # no mention markup in the picture


async def test_the_week_follows_the_zone_the_daily_question_set(repository: SqlRepository) -> None:
    clock = FakeClock(MONDAY)
    store = await play(repository, clock)

    async def tokyo(platform: str, scope: str) -> str | None:
        return "Asia/Tokyo" if scope == "guild-1" else None

    clock.advance(days=6, hours=14, minutes=59)  # Sunday 23:59 UTC = Monday 08:59 in Tokyo: a new week there
    in_utc = SocialService(store=store, clock=clock)
    in_tokyo = SocialService(store=store, clock=clock, zone_for=tokyo)
    assert await in_utc.rank(member("Bob")) == 1
    assert await in_tokyo.rank(member("Bob")) is None
    assert (await in_tokyo.leaderboard(member("Bob"))).messages[0].text() == "Nobody is on the leaderboard this week yet."


async def test_privacy_off_hides_the_learner(repository: SqlRepository) -> None:
    clock = FakeClock(MONDAY)
    social = SocialService(store=await play(repository, clock), clock=clock)
    reply = await social.privacy(member("Bob"), visible=False)
    assert reply.private and "hidden from leaderboards" in reply.messages[0].text()
    assert await social.rank(member("Bob")) is None
    board = await social.leaderboard(member("Ann"), period="all")
    assert "bob" not in board.messages[0].text()
    await social.privacy(member("Bob"), visible=True)
    assert await social.rank(member("Bob"), period="month") == 1


async def test_an_unknown_period_names_the_ones_that_exist(repository: SqlRepository) -> None:
    social = SocialService(store=SocialStore.beside(repository), clock=FakeClock(MONDAY))
    with pytest.raises(UnknownName, match="`week`, `month`, `all`"):
        await social.leaderboard(member("Ann"), period="year")


async def test_the_stats_picture_is_of_the_learner_asked_for(repository: SqlRepository) -> None:
    clock = FakeClock(MONDAY)
    social = SocialService(store=await play(repository, clock), clock=clock)
    image = await social.progress_picture(member("Ann"), user_id="bob", who="Bob")
    assert image.filename == "progress.png" and image.data.startswith(b"\x89PNG")
    assert "Progress of Bob" in image.alt and "100% right of 1" in image.alt
