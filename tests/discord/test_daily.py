"""Daily practice on Discord, through discord.py and the fake Discord, with a fake clock.

The scheduler's jobs run by calling `tick()` after moving the clock, so a day passes at once.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from tests.fakes import FakeClock

from . import payloads as p
from .conftest import Answer, DailyBot
from .fake_discord import FakeDiscord

EPHEMERAL = 64
CAROL = p.User("500000000000000004", "Carol")


def option(name: str, value: Any) -> dict[str, Any]:
    if isinstance(value, float):
        return {"name": name, "type": 10, "value": value}
    return p.option(name, value)


def daily_set(**values: Any) -> list[dict[str, Any]]:
    return [option("action", "set"), *(option(k, v) for k, v in values.items())]


def private(answer: Answer) -> bool:
    return all(b.get("flags", 0) & EPHEMERAL for b in answer.bodies())


def channel_posts(fake: FakeDiscord, start: int) -> list[Any]:
    return [c for c in fake.calls[start:] if c.method == "POST" and c.path == f"/channels/{p.CHANNEL_ID}/messages"]


async def test_a_day_of_the_daily_question_on_discord(daily_bot: DailyBot, fake: FakeDiscord, clock: FakeClock) -> None:
    bot, wired, *_ = daily_bot
    # Bad input is answered privately, with what to write instead.
    refused = await bot.command(p.BOB, "daily", daily_set(time="11:00", timezone="Europe/Berlin"))
    assert private(refused) and "Only admins" in refused.text()
    bad_time = await bot.command(p.ADMIN, "daily", daily_set(time="9am", timezone="Europe/Berlin"))
    assert private(bad_time) and "use HH:MM" in bad_time.text()
    bad_zone = await bot.command(p.ADMIN, "daily", daily_set(time="11:00", timezone="Europe/Berln"))
    assert private(bad_zone) and "Did you mean" in bad_zone.text() and "`Europe/Berlin`" in bad_zone.text()
    shown = await bot.command(p.ADMIN, "daily", [option("action", "show")])
    assert "has no daily question" in shown.text()

    # 09:00 UTC is 10:00 in Berlin: set for 11:00, revealed two hours after posting.
    done = await bot.command(
        p.ADMIN, "daily", daily_set(time="11:00", timezone="Europe/Berlin", pack="study", reveal_after_hours=2.0)
    )
    assert "Daily question set" in done.text() and "11:00 Europe/Berlin" in done.text()
    start = len(fake.calls)
    assert await wired.scheduler.tick() is not None
    assert channel_posts(fake, start) == []  # not yet 11:00 in Berlin

    clock.advance(hours=1)
    start = len(fake.calls)
    await wired.scheduler.tick()
    [posted] = channel_posts(fake, start)
    post = fake.messages[posted.message_id]
    embed = post["embeds"][0]
    assert embed["title"] == "Daily question · 2026-12-01 · Gradients"
    assert "0 people have answered · 0 right" in embed["footer"]["text"]
    labels = [c.get("label") for row in post["components"] for c in row["components"]]
    assert labels == ["A. requires_grad=True", "B. track=True", "Hint"]  # no Skip or Stop on a channel's question

    # Members answer for themselves; nobody else sees their feedback, and the post is not touched.
    start = len(fake.calls)
    alice = await bot.click(p.ALICE, post, "A")
    assert private(alice) and "Right!" in alice.text()
    bob = await bot.click(p.BOB, post, "B")
    assert private(bob) and "Not quite. 1 attempt left." in bob.text() and "no `track` argument" in bob.text()
    bob = await bot.click(p.BOB, post, "A")
    assert private(bob) and "Right!" in bob.text()
    carol = await bot.click(CAROL, post, "B")
    carol = await bot.click(CAROL, post, "B")
    assert private(carol) and "last attempt" in carol.text() and "requires_grad" not in carol.text()
    again = await bot.click(p.ALICE, post, "B")
    assert private(again) and "already answered" in again.text()
    assert not any(c.method == "PATCH" and c.path.startswith("/channels/") for c in fake.calls[start:])
    bot.assert_all_acknowledged()

    # The tally is edited by the scheduler: counts only, no names.
    clock.advance(seconds=10)
    start = len(fake.calls)
    await wired.scheduler.tick()
    [tally] = [c for c in fake.calls[start:] if c.method == "PATCH" and c.path.endswith(f"/messages/{post['id']}")]
    assert "3 people have answered · 2 right" in tally.body["embeds"][0]["footer"]["text"]
    assert "Alice" not in str(tally.body)

    # The answer counts in progress like a quiz answer.
    stats = await bot.command(p.ALICE, "stats")
    assert "**1** attempt ·" in stats.text() and "Streak: 1 day" in stats.text()

    # Two hours after posting: the post closes and the answer follows, under it.
    clock.advance(hours=2)
    start = len(fake.calls)
    await wired.scheduler.tick()
    closed = [c for c in fake.calls[start:] if c.method == "PATCH" and c.path.endswith(f"/messages/{post['id']}")]
    assert closed and "closed" in closed[-1].body["embeds"][0]["title"]
    [reveal] = channel_posts(fake, start)
    text = str(reveal.body)
    assert "requires_grad=True" in text and "Alice, Bob" in text
    assert str(reveal.body["message_reference"]["message_id"]) == post["id"]

    # Yesterday's closed question: the member gets the answer, privately.
    late = await bot.click(CAROL, post, "A")
    assert private(late) and "This question closed. The answer: `requires_grad=True`" in late.text()


async def test_a_reminder_dm_starts_the_review_on_discord(
    daily_bot: DailyBot, fake: FakeDiscord, clock: FakeClock
) -> None:
    bot, wired, *_ = daily_bot
    await bot.command(p.ADMIN, "daily", daily_set(time="10:00", timezone="Europe/Berlin", pack="study"))
    clock.advance(minutes=5)  # 10:05 in Berlin: the schedule starts tomorrow, so post today's by hand
    now = await bot.command(p.ADMIN, "daily", [option("action", "now")])
    assert "Today's question is posted." in now.text()
    post = fake.messages[channel_posts(fake, 0)[-1].message_id]
    await bot.click(CAROL, post, "B")
    await bot.click(CAROL, post, "B")  # wrong twice: the card is due again soon

    bad = await bot.command(CAROL, "remind", [option("time", "18:00"), option("timezone", "Mars/Olympus")])
    assert private(bad) and "There is no time zone" in bad.text()
    on = await bot.command(CAROL, "remind", [option("time", "18:00"), option("timezone", "Europe/Berlin")])
    assert private(on) and "Reminder on" in on.text()

    clock.current = datetime(2026, 12, 1, 17, 0, tzinfo=UTC)  # 18:00 in Berlin
    start = len(fake.calls)
    await wired.scheduler.tick()
    dms = [c for c in fake.calls[start:] if c.method == "POST" and c.path == f"/channels/{CAROL.dm_channel}/messages"]
    assert len(dms) == 1 and "1 review due, about 1 minute" in str(dms[0].body)
    start = len(fake.calls)
    await wired.scheduler.tick()  # never twice a day
    assert not [c for c in fake.calls[start:] if c.path == f"/channels/{CAROL.dm_channel}/messages"]

    reminder = fake.messages[dms[0].message_id]
    review = await bot.click(CAROL, reminder, "Start", guild=False)
    assert "1 review and 0 new items today" in review.text()
    item = review.item()
    assert "Which flag makes PyTorch record" in str(item["embeds"])
    answered = await bot.click(CAROL, item, "A", guild=False)
    assert "Correct" in answered.text()
    stats = await bot.command(CAROL, "stats")
    assert "Streak: 1 day" in stats.text() and "Due today: 0" in stats.text()


async def test_an_admin_names_another_channel_with_the_picker(daily_bot: DailyBot, fake: FakeDiscord, clock: FakeClock) -> None:
    bot, wired, *_ = daily_bot
    other = "810000000000000009"
    fake.guilds[p.GUILD_ID]["channels"].append(p.text_channel(other))
    picked = {"channels": {other: {"id": other, "name": "daily", "type": 0, "permissions": "0", "parent_id": None}}}
    channel = {"name": "channel", "type": 7, "value": other}
    done = await bot.command(
        p.ADMIN, "daily", [*daily_set(time="09:30", timezone="UTC", pack="study"), channel], resolved=picked
    )
    assert "Daily question set" in done.text() and f"<#{other}>" in done.text()
    clock.advance(minutes=30)
    start = len(fake.calls)
    await wired.scheduler.tick()
    assert [c.path for c in fake.calls[start:] if c.method == "POST"] == [f"/channels/{other}/messages"]
    off = await bot.command(p.ADMIN, "daily", [option("action", "off"), channel], resolved=picked)
    assert private(off) and f"The daily question for <#{other}> is off." in off.text()


async def test_the_time_zone_completes_as_it_is_typed(daily_bot: DailyBot) -> None:
    bot, *_ = daily_bot
    answer = await bot.feed(p.interaction(4, p.autocomplete("daily", "timezone", "berl"), p.ALICE))
    assert answer.kind == 8 and answer.data["choices"] == [{"name": "Europe/Berlin", "value": "Europe/Berlin"}]


async def test_a_daily_answer_delivered_again_shows_its_grade_and_another_click_says_how_it_went(
    daily_bot: DailyBot, fake: FakeDiscord, clock: FakeClock
) -> None:
    import copy

    bot, *_ = daily_bot
    await bot.command(p.ADMIN, "daily", daily_set(time="10:00", timezone="Europe/Berlin", pack="study"))
    clock.advance(minutes=5)
    await bot.command(p.ADMIN, "daily", [option("action", "now")])
    post = fake.messages[channel_posts(fake, 0)[-1].message_id]
    right = await bot.click(p.ALICE, post, "A")
    assert private(right) and "Right!" in right.text()
    # A gateway resume replays the same interaction after its reply: the stored grade, not a refusal.
    again = await bot.feed(copy.deepcopy(right.payload))
    assert private(again) and "Right!" in again.text() and "already answered" not in again.text(), again.text()
    # A new click on another option: told it was answered, and how.
    other = await bot.click(p.ALICE, post, "B")
    assert private(other) and "You already answered today's question, and got it right." in other.text()
    await bot.click(CAROL, post, "B")
    await bot.click(CAROL, post, "B")  # wrong twice: done, not right
    carol = await bot.click(CAROL, post, "A")
    assert "You already answered today's question, without getting it right." in carol.text()
    stats = await bot.command(p.ALICE, "stats")
    assert "**1** attempt ·" in stats.text()  # the replay counted nothing
