"""Draining on Discord: a grade in flight is delivered before the drain ends; new work hears "restarting"."""

from __future__ import annotations

import asyncio

from sqlalchemy import func, select

from bot.shutdown import RESTARTING, Drain, finish_work
from bot.storage import tables as t
from tests.core.test_unfinished_work import HeldRunner
from tests.discord import payloads as p
from tests.discord.conftest import Answer, BotRunner
from tests.discord.fake_discord import FakeDiscord
from tests.fakes import FakeClock, LocalRunner

SLOW_RIGHT = "```python\nimport time\ntime.sleep(2)\ntotal = sum(range(1, 11))\nprint(total)\n```"


async def test_a_drain_waits_for_the_discord_reply_of_a_grade_in_flight(
    fake_discord: FakeDiscord, db_url: str, runner: LocalRunner, clock: FakeClock
) -> None:
    bots = BotRunner(fake_discord, db_url, runner, clock)
    try:
        bot = await bots.start()
        drain = Drain()
        bot.service.use(drain)
        start = await bot.command(p.ALICE, "start", [p.option("pack", "demo"), p.option("difficulty", "hard")])
        assert "Define `total`" in start.item()["embeds"][0]["description"]
        payload = p.message_create(p.ALICE, SLOW_RIGHT, channel_id=p.ALICE.dm_channel, guild=False)
        first = len(fake_discord.calls)
        bot.client._connection.parsers["MESSAGE_CREATE"](payload)  # as the gateway would; not waited for
        while drain.inflight == 0:
            await asyncio.sleep(0.02)
        assert await finish_work(drain, 30) is True
        graded = Answer(payload, fake_discord.calls[first:], fake_discord).text()
        assert "2 of 2 tests passed" in graded  # delivered before the drain ended
        late = await bot.command(p.ALICE, "stats")
        assert RESTARTING in late.text()
    finally:
        await bots.close()


async def test_a_grade_cut_off_by_the_grace_is_told_on_discord_by_the_next_process(
    fake_discord: FakeDiscord, db_url: str, runner: LocalRunner, clock: FakeClock
) -> None:
    bots = BotRunner(fake_discord, db_url, runner, clock)
    held = HeldRunner()  # grading that takes longer than any grace
    try:
        first = await bots.start(runner=held, track_work=True)
        drain = Drain()
        first.service.use(drain)
        await first.command(p.ALICE, "start", [p.option("pack", "demo"), p.option("difficulty", "hard")])
        payload = p.message_create(p.ALICE, SLOW_RIGHT, channel_id=p.ALICE.dm_channel, guild=False)
        first.client._connection.parsers["MESSAGE_CREATE"](payload)
        await asyncio.wait_for(held.started.wait(), 10)
        assert await finish_work(drain, 0.2) is False
        assert await drain.cancel() == 1
        assert first.service.work is not None and await first.service.work.abandon() == 1
        await bots.stop(first)

        second = await bots.start(track_work=True)
        told = (await second.command(p.ALICE, "current")).text()
        assert "The bot restarted before it finished grading your answer to" in told, told
        assert "Define total as the sum" in told and "please send it again" in told
        again = (await second.command(p.ALICE, "current")).text()
        assert "The bot restarted" not in again and "Define `total`" in again  # once; the item as usual
        repository = bots.opened[-1][1]
        async with repository.engine.connect() as c:
            assert (await c.execute(select(func.count()).select_from(t.attempts))).scalar_one() == 0
        assert await repository.work.all() == []
    finally:
        await bots.close()
