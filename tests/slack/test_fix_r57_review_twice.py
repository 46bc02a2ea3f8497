"""Fix: the reminder's Start pressed twice in Slack threw away the review the first press started.

The second press stopped it ("Your previous quiz was stopped; the review starts.") and started
another, so the item the first press showed answered "This quiz was stopped". The second press now
shows the running review again; the item the first press showed still takes the answer.
"""

from __future__ import annotations

from datetime import UTC, datetime

from bot.core.model import Actor
from tests.daily.wired import Wired
from tests.fakes import FakeClock
from tests.slack.conftest import CHANNEL, LEARNER, TEAM, Slack, block_text, dm
from tests.slack.test_daily import cards_due_soon


def everything_said(slack: Slack) -> str:
    posted = [block_text(m["blocks"]) for m in slack.fake.posts(dm(LEARNER))]
    private = [block_text(e.get("blocks") or []) for e in slack.fake.ephemerals]
    return "\n".join(posted + private)


async def test_the_reminders_start_pressed_twice_keeps_the_first_review(daily_slack: tuple[Slack, Wired], clock: FakeClock) -> None:
    slack, wired = daily_slack
    await cards_due_soon(slack)
    await slack.command("remind time:18:00 timezone:Europe/Berlin", user=LEARNER)
    clock.current = datetime(2026, 12, 1, 17, 0, tzinfo=UTC)  # 18:00 in Berlin
    await wired.scheduler.tick()
    [reminder] = [m for m in slack.fake.posts(dm(LEARNER)) if "review due" in block_text(m["blocks"])]

    await slack.click(dm(LEARNER), reminder["ts"], action_id="dy:start", user=LEARNER)
    await slack.click(dm(LEARNER), reminder["ts"], action_id="dy:start", user=LEARNER)  # a double click: its own action_ts
    assert "was stopped" not in everything_said(slack)
    items = [m for m in slack.fake.posts(dm(LEARNER)) if block_text(m["blocks"]).startswith("Question 1 of 1")]
    assert len(items) == 2 and "already running" in everything_said(slack)  # the same review, shown again
    await slack.click(dm(LEARNER), items[0]["ts"], label="A", user=LEARNER)  # the item the first press showed
    assert "✅ *Correct!*" in block_text(slack.fake.message(dm(LEARNER), items[0]["ts"])["blocks"])
    assert "was stopped" not in everything_said(slack)
    assert block_text(slack.fake.posts(dm(LEARNER))[-1]["blocks"]).startswith("Quiz finished")


async def test_start_new_pressed_in_a_channel_opens_the_review_in_the_dm(daily_slack: tuple[Slack, Wired], clock: FakeClock) -> None:
    """The review asked for in a channel while a quiz runs there asks first; its Start new keeps the review private."""
    slack, wired = daily_slack
    await cards_due_soon(slack)
    clock.current = datetime(2026, 12, 1, 17, 0, tzinfo=UTC)
    await slack.command("start study count:1", user=LEARNER, channel=CHANNEL)  # a quiz in the channel's thread
    header = slack.fake.posts(CHANNEL)[-2]
    running = await wired.service.active_session(Actor("slack", TEAM, LEARNER, LEARNER))
    assert running is not None
    before = len(slack.fake.posts(CHANNEL))
    action = {"action_id": f"dy:start:{running.id}", "type": "button", "action_ts": slack.action_ts()}
    await slack.interact(slack.action_payload(CHANNEL, header["ts"], action, user=LEARNER))  # Start new, from the channel
    assert len(slack.fake.posts(CHANNEL)) == before  # nothing of the review in the channel
    assert any("Question 1 of" in block_text(m["blocks"]) for m in slack.fake.posts(dm(LEARNER)))
