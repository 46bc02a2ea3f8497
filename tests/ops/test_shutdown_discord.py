"""Draining on Discord: a grade in flight is delivered before the drain ends; new work hears "restarting"."""

from __future__ import annotations

import asyncio

from bot.shutdown import RESTARTING, Drain, finish_work
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
        drain.guard(bot.service)
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
