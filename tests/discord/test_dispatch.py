"""Routing over the fake Discord: daily posts by their own prefix, and posts made with quiz ids still answer."""

from __future__ import annotations

import json

from tests.discord import payloads as p
from tests.discord.conftest import DailyBot
from tests.discord.fake_discord import FakeDiscord
from tests.discord.test_daily import channel_posts, daily_set, private
from tests.fakes import FakeClock


async def post_today(daily_bot: DailyBot, fake: FakeDiscord, clock: FakeClock) -> dict:  # type: ignore[type-arg]
    bot, wired, *_ = daily_bot
    await bot.command(p.ADMIN, "daily", daily_set(time="11:00", timezone="UTC", pack="study"))
    clock.advance(hours=2)
    start = len(fake.calls)
    await wired.scheduler.tick()
    [posted] = channel_posts(fake, start)
    return fake.messages[posted.message_id]  # type: ignore[no-any-return]


def custom_ids(message: dict) -> list[str]:  # type: ignore[type-arg]
    return [c["custom_id"] for row in message["components"] for c in row["components"]]


async def test_daily_post_controls_carry_their_own_prefix(daily_bot: DailyBot, fake: FakeDiscord, clock: FakeClock) -> None:
    post = await post_today(daily_bot, fake, clock)
    assert custom_ids(post) and all(i.startswith("dp:") for i in custom_ids(post))
    alice = await daily_bot.bot.click(p.ALICE, post, "A")
    assert private(alice) and "Right!" in alice.text()


async def test_a_post_made_with_quiz_ids_still_answers(daily_bot: DailyBot, fake: FakeDiscord, clock: FakeClock) -> None:
    post = await post_today(daily_bot, fake, clock)
    # As a post made before daily posts had their own prefix: every custom_id read `qz:<post id>:...`.
    old = json.loads(json.dumps(post).replace('"dp:', '"qz:'))
    assert all(i.startswith("qz:") for i in custom_ids(old))
    start = len(fake.calls)
    alice = await daily_bot.bot.click(p.ALICE, old, "A")
    assert private(alice) and "Right!" in alice.text()
    bob = await daily_bot.bot.click(p.BOB, old, "B")
    assert private(bob) and "Not quite. 1 attempt left." in bob.text()
    hint = await daily_bot.bot.click(p.BOB, old, "Hint")
    assert private(hint)
    assert channel_posts(fake, start) == []  # nothing said in the channel, the post not edited
