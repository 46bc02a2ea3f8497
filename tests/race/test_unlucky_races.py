"""Races as unlucky learners meet them: small packs, items removed mid-race, restarts, other platforms."""

from __future__ import annotations

import asyncio
from typing import Any

from bot.core import QuizService
from bot.core.packs import Pack
from bot.core.race import ChannelPost, Outbox, Race, RaceService
from bot.core.race import actions as rx
from bot.core.race.ports import Change
from bot.storage import SqlRepository
from bot.storage.social import SocialStore
from tests.fakes import FakeClock

from .conftest import Posts
from .helpers import member, race_pack

ANN, BOB = member("Ann"), member("Bob")


async def running(store: SocialStore, channel: str = "chan-1", platform: str = "discord") -> Race:
    race = await store.running_race(platform, "guild-1", channel)
    assert race is not None
    return race


async def test_without_a_rounds_option_a_small_pack_races_through_what_it_has(
    races: RaceService, repository: SqlRepository
) -> None:
    await QuizService(repository=repository, runner=None, clock=FakeClock()).import_pack(race_pack(4, pack_id="small", others=False))
    reply = await races.start(ANN, pack="small")
    assert "**4 rounds**" in reply.messages[0].text()  # not "you asked for 10 rounds": nobody asked


async def test_an_item_removed_mid_race_ends_the_race_with_a_notice_in_the_channel(
    races: RaceService, repository: SqlRepository, store: SocialStore, clock: FakeClock, posts: Posts
) -> None:
    await races.start(ANN, pack="race-pack", rounds=3, seconds=10)
    race = await running(store)
    await races.act(BOB, rx.make(race.id, 0, rx.CHOOSE, 0))
    updated = race_pack(6).model_dump()
    updated["version"] = 2
    gone = {race.items[0].question, race.items[1].question}  # the open round's item and the next one
    updated["questions"] = [q for q in updated["questions"] if q["id"] not in gone]
    await QuizService(repository=repository, runner=None, clock=FakeClock()).import_pack(Pack.model_validate(updated))
    races._packs.clear()  # past the pack cache's half minute

    clock.advance(seconds=11)
    assert await races.tick() == 1
    assert await store.running_race("discord", "guild-1", "chan-1") is None
    stored = await store.get_race(race.id)
    assert stored is not None and stored.status == "stopped"
    (post,) = posts.posts
    texts = [m.text() for m in post.messages]
    assert f"`race-pack/{race.items[0].question}` was removed from its pack" in texts[0]
    assert f"The race ends early: the next item, `race-pack/{race.items[1].question}`" in texts[1]
    assert "stopped after 1 of 3 rounds" in texts[-1] and "**Bob** wins" in texts[-1]
    assert post.next_round is None
    # The removed item's round message is closed as posted: no button left to press.
    assert post.closed_round is not None and not [c for c in post.closed_round.controls() if not c.disabled]
    stats = await repository.user_stats("discord", "bob", clock.now())
    assert (stats.attempts, stats.correct) == (1, 1)  # the answer counts once


class FailingFor(SocialStore):
    """A store whose writes fail for one race (a bad row): the others must still move on."""

    broken: str = ""

    async def update_race(self, race_id: str, change: Any) -> Change | None:
        if race_id == self.broken:
            raise RuntimeError("this row is broken")
        return await super().update_race(race_id, change)


async def test_one_broken_race_does_not_stop_tick_closing_the_others(
    repository: SqlRepository, store: SocialStore, clock: FakeClock, posts: Posts
) -> None:
    failing = FailingFor.beside(repository)
    races = RaceService(repository=repository, store=failing, clock=clock, publish=posts, timers=False)
    try:
        for channel in ("chan-1", "chan-2", "chan-3"):
            await races.start(member("Ann", channel=channel), rounds=3, seconds=10)
        failing.broken = (await running(store, "chan-1")).id
        clock.advance(seconds=11)
        assert await races.tick() == 2
        assert (await running(store, "chan-2")).round == 1 and (await running(store, "chan-3")).round == 1
    finally:
        await races.aclose()


async def test_a_process_keeps_time_only_for_the_races_of_its_platforms(
    repository: SqlRepository, store: SocialStore, clock: FakeClock
) -> None:
    starter = RaceService(repository=repository, store=store, clock=clock, publish=Posts(), timers=False)
    await starter.start(member("Ann"), rounds=3, seconds=10)
    await starter.start(member("Ann", platform="slack"), rounds=3, seconds=10)
    slack_posts = Posts()
    slack_only = RaceService(
        repository=repository, store=store, clock=clock, publish=slack_posts, timers=False, platforms=["slack"]
    )
    try:
        clock.advance(seconds=11)
        assert await slack_only.tick() == 1
        assert [p.platform for p in slack_posts.posts] == ["slack"]
        assert (await running(store)).round == 0  # the Discord race waits for a Discord process to close it
        assert await slack_only.resume() == [(await running(store, platform="slack")).id]
    finally:
        await slack_only.aclose()


def post(race_id: str, platform: str = "slack") -> ChannelPost:
    return ChannelPost(platform=platform, scope="T1", channel_id="C1", race_id=race_id, messages=())


async def test_posts_made_before_the_front_end_attaches_go_out_in_order_once_it_does() -> None:
    outbox = Outbox()
    await outbox(post("r1"))  # a restarted bot closed an overdue round before Slack was up
    await outbox(post("r2"))
    sent: list[str] = []

    async def publish(p: ChannelPost) -> None:
        await asyncio.sleep(0)
        sent.append(p.race_id)

    outbox.attach("slack", publish)
    await outbox(post("r3"))  # while the held ones go out: behind them
    for _ in range(50):
        if len(sent) == 3:
            break
        await asyncio.sleep(0)
    assert sent == ["r1", "r2", "r3"]
    await outbox(post("r4"))
    assert sent[-1] == "r4"
