"""Code blocks in the thread of the channel's daily post, through Bolt and the fake Slack, with a fake clock.

A member's ```python block in the post's thread answers the day's item as the Answer form would:
graded in the sandbox, one scored answer each, the feedback an ephemeral message in that thread.
"""

from __future__ import annotations

from typing import Any

from bot.storage import DailyRepository, SqlRepository
from tests.daily.wired import Wired
from tests.fakes import FakeClock, LocalRunner
from tests.slack.conftest import ADMIN, CHANNEL, LEARNER, STRANGER, Slack, block_text
from tests.slack.helpers import SOLUTION, WRONG

OTHER_CHANNEL = "C0OTHER"


def told(slack: Slack, user: str, since: int) -> list[dict[str, Any]]:
    """The ephemeral messages `user` got since a count of them."""
    return [e for e in slack.fake.ephemerals[since:] if e["user"] == user]


def text_of(ephemerals: list[dict[str, Any]]) -> str:
    return "\n".join(block_text(e["blocks"]) or e.get("text", "") for e in ephemerals)


async def post_code_item(slack: Slack, wired: Wired, clock: FakeClock) -> dict[str, Any]:
    """Schedule demo's one hard item (a code exercise) for 11:00 Berlin, revealed 2 h later; post it."""
    await slack.command(
        "daily set time:11:00 timezone:Europe/Berlin pack:demo difficulty:hard reveal_after_hours:2", user=ADMIN, channel=CHANNEL
    )
    clock.advance(hours=1)
    before = len(slack.fake.posts(CHANNEL))
    await wired.scheduler.tick()
    [post] = slack.fake.posts(CHANNEL)[before:]
    shown = block_text(post["blocks"])
    assert "Define `total`" in shown and "A code block sent in this post's thread counts too" in shown
    return post


async def test_code_blocks_in_the_daily_posts_thread_are_answers(
    daily_slack: tuple[Slack, Wired], clock: FakeClock, runner: LocalRunner, repository: SqlRepository
) -> None:
    slack, wired = daily_slack
    post = await post_code_item(slack, wired, clock)
    posts_before = len(slack.fake.posts(CHANNEL))

    n = len(slack.fake.ephemerals)
    await slack.message(f"here is mine\n```python\n{SOLUTION}```", user=LEARNER, channel=CHANNEL, thread_ts=post["ts"])
    await slack.message(f"```\n{WRONG}```", user=STRANGER, channel=CHANNEL, thread_ts=post["ts"])
    learner, stranger = told(slack, LEARNER, n), told(slack, STRANGER, n)
    assert "Right! Your answer is counted" in text_of(learner) and "2 of 2 tests passed" in text_of(learner)
    assert "Not quite. 2 attempts left." in text_of(stranger) and "0 of 2 tests passed" in text_of(stranger)
    assert "❌ `total` must be 55." in text_of(stranger) and "Right!" not in text_of(stranger)
    assert all(e["channel"] == CHANNEL and e["thread_ts"] == post["ts"] for e in learner + stranger)
    assert len(learner) == 2 and text_of(learner[:1]) == "⏳ Running your code in the sandbox…"  # then the feedback
    assert len(slack.fake.posts(CHANNEL)) == posts_before  # nothing said in the channel or its thread
    assert [r.code for r in runner.requests] == [SOLUTION.rstrip("\n"), WRONG.rstrip("\n")]

    daily = DailyRepository.beside(repository)
    post_id = (await daily.posts("slack", CHANNEL))[-1].id
    answers = {a.user_id: a for a in await daily.member_answers(post_id)}
    assert (answers[LEARNER].attempts, answers[LEARNER].done, answers[LEARNER].correct) == (1, True, True)
    assert (answers[STRANGER].attempts, answers[STRANGER].done) == (1, False)
    seen = (await repository.history("slack", LEARNER, ["demo"]))[("demo", "q-code")]
    assert seen.attempts == 1 and seen.last_correct and seen.card  # progress and the review card, as a quiz answer
    assert await repository.history("slack", STRANGER, ["demo"]) == {}  # not scored yet: attempts left

    # Talk in the thread is not an answer, nor is the bot's own message there.
    n = len(slack.fake.ephemerals)
    await slack.message("nice one!", user=STRANGER, channel=CHANNEL, thread_ts=post["ts"])
    await slack.event(
        {"type": "message", "subtype": "bot_message", "bot_id": "B0BOT", "channel": CHANNEL, "thread_ts": post["ts"],
         "text": f"```python\n{WRONG}```", "ts": "1700000300.000001", "channel_type": "channel"}
    )
    assert slack.fake.ephemerals[n:] == [] and len(runner.requests) == 2

    # The stranger's last two attempts use up the scored answer: 2 answered, 1 right on the post.
    # (One is a reply also sent to the channel, which Slack reports as a thread_broadcast.)
    await slack.event(
        {"type": "message", "subtype": "thread_broadcast", "user": STRANGER, "channel": CHANNEL, "thread_ts": post["ts"],
         "text": f"```py\n{WRONG}```", "ts": "1700000300.000002", "channel_type": "channel", "team": "T0001"}
    )
    assert (await daily.member_answer(post_id, STRANGER)).attempts == 2  # type: ignore[union-attr]
    n = len(slack.fake.ephemerals)
    await slack.message(f"```py\n{WRONG}```", user=STRANGER, channel=CHANNEL, thread_ts=post["ts"])
    assert "that was your last attempt" in text_of(told(slack, STRANGER, n))
    clock.advance(seconds=10)
    await wired.scheduler.tick()
    tallied = block_text(slack.fake.message(CHANNEL, post["ts"])["blocks"])
    assert "2 people have answered · 1 right" in tallied and LEARNER not in tallied

    # A second block after a right answer is not graded or scored again.
    graded = len(runner.requests)
    n = len(slack.fake.ephemerals)
    await slack.message(f"```python\n{WRONG}```", user=LEARNER, channel=CHANNEL, thread_ts=post["ts"])
    assert "You already answered today's question" in text_of(told(slack, LEARNER, n))
    assert len(runner.requests) == graded
    assert (await daily.member_answer(post_id, LEARNER)).attempts == 1  # type: ignore[union-attr]
    assert (await repository.history("slack", LEARNER, ["demo"]))[("demo", "q-code")].attempts == 1

    # After the reveal (in the thread), a block says the question closed.
    clock.advance(hours=2)
    await wired.scheduler.tick()
    assert slack.fake.posts(CHANNEL)[-1]["thread_ts"] == post["ts"]
    n = len(slack.fake.ephemerals)
    late = "U5LATE"
    await slack.message(f"```python\n{SOLUTION}```", user=late, channel=CHANNEL, thread_ts=post["ts"])
    [closed] = told(slack, late, n)  # refused before the sandbox: no "running" note
    assert "This question closed." in text_of([closed]) and closed["thread_ts"] == post["ts"]
    assert len(runner.requests) == graded and await daily.member_answer(post_id, late) is None


async def test_a_block_under_a_choice_item_gets_the_forms_note(daily_slack: tuple[Slack, Wired], runner: LocalRunner) -> None:
    slack, _ = daily_slack
    await slack.command("daily set time:10:00 timezone:Europe/Berlin pack:study", user=ADMIN, channel=OTHER_CHANNEL)
    await slack.command("daily now", user=ADMIN, channel=OTHER_CHANNEL)
    post = slack.fake.posts(OTHER_CHANNEL)[-1]
    assert "A code block sent in this post's thread" not in block_text(post["blocks"])  # answered with buttons
    n = len(slack.fake.ephemerals)
    await slack.message("```python\nrequires_grad=True\n```", user=LEARNER, channel=OTHER_CHANNEL, thread_ts=post["ts"])
    [note] = told(slack, LEARNER, n)
    assert "This question is answered with its buttons or menus." in text_of([note]) and note["thread_ts"] == post["ts"]
    assert runner.requests == []

    # A code block in another thread of the channel is just conversation.
    n = len(slack.fake.ephemerals)
    await slack.message(f"```python\n{SOLUTION}```", user=LEARNER, channel=OTHER_CHANNEL, thread_ts="1700000000.000009")
    assert slack.fake.ephemerals[n:] == []
