"""Daily practice in Slack, through Bolt and the fake Slack, with a fake clock.

The scheduler's jobs run by calling `tick()` after moving the clock, so a day passes at once.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from tests.daily.wired import Wired
from tests.fakes import FakeClock
from tests.slack.conftest import ADMIN, CHANNEL, LEARNER, STRANGER, Slack, block_text, dm, find_element


def said_to(slack: Slack, user: str, since: int = 0) -> str:
    """What `user` was told privately: ephemeral messages and command responses, since a count of them."""
    ephemeral = [block_text(e["blocks"]) or e.get("text", "") for e in slack.fake.ephemerals[since:] if e["user"] == user]
    return "\n".join(ephemeral)


def responses(slack: Slack, since: int) -> str:
    return "\n".join(str(r.get("text", "")) + block_text(r.get("blocks") or []) for r in slack.fake.responses[since:])


def choice_id(message: dict[str, Any], shown: int) -> str:
    ids = [e["action_id"] for b in message["blocks"] if b["type"] == "actions" for e in b["elements"]]
    return next(i for i in ids if i.endswith(f":c:{shown}"))


async def test_a_day_of_the_daily_question_in_slack(daily_slack: tuple[Slack, Wired], clock: FakeClock) -> None:
    slack, wired = daily_slack
    n = len(slack.fake.responses)
    await slack.command("daily set time:11:00 timezone:Europe/Berlin", user=STRANGER, channel=CHANNEL)
    assert "Only admins" in responses(slack, n)
    n = len(slack.fake.responses)
    await slack.command("daily set time:9am timezone:Europe/Berlin", user=ADMIN, channel=CHANNEL)
    assert "use HH:MM" in responses(slack, n)
    n = len(slack.fake.responses)
    await slack.command("daily set time:11:00 timezone:Europe/Berln", user=ADMIN, channel=CHANNEL)
    assert "Did you mean" in responses(slack, n) and "Europe/Berlin" in responses(slack, n)
    n = len(slack.fake.responses)
    await slack.command("daily set time:11:00 timezone:Europe/Berlin pack:study reveal_after_hours:2", user=ADMIN, channel=CHANNEL)
    text = responses(slack, n)
    assert "Daily question set" in text and f"<#{CHANNEL}>" in text  # the channel typed in

    clock.advance(hours=1)  # 11:00 in Berlin
    before = len(slack.fake.posts(CHANNEL))
    await wired.scheduler.tick()
    [post] = slack.fake.posts(CHANNEL)[before:]
    assert "Daily question · 2026-12-01 · Gradients" in block_text(post["blocks"])
    assert "0 people have answered · 0 right" in block_text(post["blocks"])
    assert "Skip" not in block_text(post["blocks"])

    updates = len(slack.fake.calls_to("chat.update"))
    await slack.click(CHANNEL, post["ts"], action_id=choice_id(post, 0), user=LEARNER)
    assert "Right!" in said_to(slack, LEARNER)
    await slack.click(CHANNEL, post["ts"], action_id=choice_id(post, 1), user=STRANGER)
    assert "Not quite. 1 attempt left." in said_to(slack, STRANGER)
    await slack.click(CHANNEL, post["ts"], action_id=choice_id(post, 1), user=ADMIN)
    await slack.click(CHANNEL, post["ts"], action_id=choice_id(post, 1), user=ADMIN)
    assert "last attempt" in said_to(slack, ADMIN) and "requires_grad" not in said_to(slack, ADMIN)
    before_again = len(slack.fake.ephemerals)
    await slack.click(CHANNEL, post["ts"], action_id=choice_id(post, 1), user=LEARNER)
    assert "already answered" in said_to(slack, LEARNER, before_again)
    assert len(slack.fake.calls_to("chat.update")) == updates  # nobody's click changed the shared post
    assert len(slack.fake.posts(CHANNEL)) == before + 1  # and nothing was said in the channel

    clock.advance(seconds=10)
    await wired.scheduler.tick()
    tallied = block_text(slack.fake.message(CHANNEL, post["ts"])["blocks"])
    assert "2 people have answered · 1 right" in tallied and LEARNER not in tallied

    clock.advance(hours=2)
    await wired.scheduler.tick()
    assert "closed" in block_text(slack.fake.message(CHANNEL, post["ts"])["blocks"])
    reveal = slack.fake.posts(CHANNEL)[-1]
    assert reveal["thread_ts"] == post["ts"]  # the answer goes in the post's thread
    revealed = block_text(reveal["blocks"])
    assert "requires_grad=True" in revealed and f"<@{LEARNER}>" in revealed

    late = len(slack.fake.ephemerals)
    closed = slack.fake.message(CHANNEL, post["ts"])
    assert not [b for b in closed["blocks"] if b["type"] == "actions"]
    slack.fake.messages[(CHANNEL, post["ts"])] = post  # a member whose client still shows the buttons
    await slack.click(CHANNEL, post["ts"], action_id=choice_id(post, 0), user=STRANGER)
    assert "This question closed. The answer: `requires_grad=True`" in said_to(slack, STRANGER, late)

    n = len(slack.fake.responses)
    await slack.command("stats", user=LEARNER)
    stats = responses(slack, n)
    assert "Streak" in stats and "1 day" in stats


async def test_a_reminder_dm_starts_the_review_in_slack(daily_slack: tuple[Slack, Wired], clock: FakeClock) -> None:
    slack, wired = daily_slack
    await slack.command("daily set time:10:00 timezone:Europe/Berlin pack:study", user=ADMIN, channel=CHANNEL)
    n = len(slack.fake.responses)
    await slack.command("daily now", user=ADMIN, channel=CHANNEL)
    assert "Today's question is posted." in responses(slack, n)
    post = slack.fake.posts(CHANNEL)[-1]
    await slack.click(CHANNEL, post["ts"], action_id=choice_id(post, 1), user=LEARNER)
    await slack.click(CHANNEL, post["ts"], action_id=choice_id(post, 1), user=LEARNER)  # wrong twice: due soon

    n = len(slack.fake.responses)
    await slack.command("remind time:25:00 timezone:Europe/Berlin", user=LEARNER)
    assert "use HH:MM" in responses(slack, n)
    n = len(slack.fake.responses)
    await slack.command("remind time:18:00 timezone:Europe/Berlin", user=LEARNER)
    assert "Reminder on" in responses(slack, n)

    clock.current = datetime(2026, 12, 1, 17, 0, tzinfo=UTC)  # 18:00 in Berlin
    await wired.scheduler.tick()
    await wired.scheduler.tick()  # never twice a day
    reminders = [m for m in slack.fake.posts(dm(LEARNER)) if "review due" in block_text(m["blocks"])]
    assert len(reminders) == 1 and "1 review due, about 1 minute" in block_text(reminders[0]["blocks"])

    element, _ = find_element(reminders[0]["blocks"], label="Start")
    assert element["action_id"] == "dy:start"
    await slack.click(dm(LEARNER), reminders[0]["ts"], action_id="dy:start", user=LEARNER)
    shown = "\n".join(block_text(m["blocks"]) for m in slack.fake.posts(dm(LEARNER)))
    assert "1 review and 0 new items today" in shown and "Question 1 of 1" in shown
    item = [m for m in slack.fake.posts(dm(LEARNER)) if block_text(m["blocks"]).startswith("Question 1 of 1")][-1]
    await slack.click(dm(LEARNER), item["ts"], label="A", user=LEARNER)
    answered = block_text(slack.fake.message(dm(LEARNER), item["ts"])["blocks"])  # the grade is shown in the item
    assert "✅ *Correct!*" in answered
    assert block_text(slack.fake.posts(dm(LEARNER))[-1]["blocks"]).startswith("Quiz finished")

    n = len(slack.fake.responses)
    await slack.command("stats", user=LEARNER)
    stats = responses(slack, n)
    assert "*Due today*\n0" in stats and "*Streak*\n1 day (longest 1)" in stats and "18:00 Europe/Berlin" in stats
    assert "*2* attempts" in stats  # the daily channel answer and the review's answer


async def cards_due_soon(slack: Slack) -> None:
    """The channel's daily question posted, and the learner wrong on it twice: their card is due soon."""
    await slack.command("daily set time:10:00 timezone:Europe/Berlin pack:study", user=ADMIN, channel=CHANNEL)
    await slack.command("daily now", user=ADMIN, channel=CHANNEL)
    post = slack.fake.posts(CHANNEL)[-1]
    await slack.click(CHANNEL, post["ts"], action_id=choice_id(post, 1), user=LEARNER)
    await slack.click(CHANNEL, post["ts"], action_id=choice_id(post, 1), user=LEARNER)  # wrong twice: due soon


async def test_the_personal_review_asked_for_in_a_channel_runs_in_the_dm(daily_slack: tuple[Slack, Wired], clock: FakeClock) -> None:
    slack, _ = daily_slack
    await cards_due_soon(slack)
    clock.current = datetime(2026, 12, 1, 17, 0, tzinfo=UTC)
    in_channel, n = len(slack.fake.posts(CHANNEL)), len(slack.fake.responses)

    await slack.command("daily", user=LEARNER, channel=CHANNEL)
    assert len(slack.fake.posts(CHANNEL)) == in_channel  # no thread, no header: nothing said in the channel
    shown = "\n".join(block_text(m["blocks"]) for m in slack.fake.posts(dm(LEARNER)))
    assert "1 review and 0 new items today" in shown and "Question 1 of 1" in shown
    assert "Your review is private: it is in our direct messages." in responses(slack, n)  # seen only by the learner


async def test_a_daily_answer_retried_shows_its_grade_and_another_click_says_how_it_went(
    daily_slack: tuple[Slack, Wired], clock: FakeClock
) -> None:
    slack, _wired = daily_slack
    await slack.command("daily set time:10:00 timezone:Europe/Berlin pack:study", user=ADMIN, channel=CHANNEL)
    await slack.command("daily now", user=ADMIN, channel=CHANNEL)
    post = slack.fake.posts(CHANNEL)[-1]
    n = len(slack.fake.ephemerals)
    await slack.click(CHANNEL, post["ts"], action_id=choice_id(post, 0), user=LEARNER, action_ts="1700000200.000001")
    assert "Right!" in said_to(slack, LEARNER, n)
    n = len(slack.fake.ephemerals)
    # Slack's retry of the same click (same action_ts): the stored grade, not a refusal.
    await slack.click(CHANNEL, post["ts"], action_id=choice_id(post, 0), user=LEARNER, action_ts="1700000200.000001")
    again = said_to(slack, LEARNER, n)
    assert "Right!" in again and "already answered" not in again, again
    assert len(slack.fake.ephemerals) == n + 1  # shown once
    n = len(slack.fake.ephemerals)
    await slack.click(CHANNEL, post["ts"], action_id=choice_id(post, 1), user=LEARNER)
    assert "You already answered today's question, and got it right." in said_to(slack, LEARNER, n)
