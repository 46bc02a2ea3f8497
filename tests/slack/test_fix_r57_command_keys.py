"""A command Slack delivers twice acts once even when the copies reach different bot processes.

The replay guard knows a `trigger_id` in its own process only. Now `/quiz skip` and `/quiz stop`
carry the trigger_id to the core, which stores it with what the command did: the same command
reaching another process (here: a second front end and service on the same database) changes nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from bot.core import QuizService
from tests.fakes import FakeClock, LocalRunner

from .conftest import LEARNER, Slack, block_text, dm, reopen

FORM = "application/x-www-form-urlencoded"


def last_post(slack: Slack) -> str:
    return block_text(slack.fake.posts(dm(LEARNER))[-1]["blocks"])


async def test_a_skip_command_reaching_another_process_skips_no_other_question(
    slack: Slack, open_slack: Callable[[QuizService], Any], db_url: str, runner: LocalRunner, clock: FakeClock
) -> None:
    await slack.command("start demo count:3")
    skip = slack.command_body("skip")
    await slack.send(skip, FORM)
    assert "Question 2 of 3" in last_post(slack)
    shown = [block_text(m["blocks"]) for m in slack.fake.posts(dm(LEARNER))]
    repository, service = await reopen(db_url, runner, clock)
    try:
        async with open_slack(service) as other:
            await other.send(skip, FORM)  # the same trigger_id, to a process that never saw it
            posts = [block_text(m["blocks"]) for m in slack.fake.posts(dm(LEARNER))]
            assert posts[: len(shown)] == shown  # nothing shown was changed
            assert all("Question 3" not in text for text in posts), posts
            await other.command("current")
            assert "Question 2 of 3" in last_post(other), last_post(other)
    finally:
        await repository.close()


async def test_a_stop_command_reaching_another_process_leaves_the_new_quiz(
    slack: Slack, open_slack: Callable[[QuizService], Any], db_url: str, runner: LocalRunner, clock: FakeClock
) -> None:
    await slack.command("start demo count:3")
    stop = slack.command_body("stop")
    await slack.send(stop, FORM)
    assert "Quiz stopped" in last_post(slack)
    await slack.command("start demo count:2")
    assert "Question 1 of 2" in last_post(slack)
    repository, service = await reopen(db_url, runner, clock)
    try:
        async with open_slack(service) as other:
            await other.send(stop, FORM)
            await other.command("current")
            assert "Question 1 of 2" in last_post(other), last_post(other)
    finally:
        await repository.close()
