"""Hunt: while Slack could not answer auth.test, a learner was told to reinstall the app.

Bolt checks the bot token with auth.test at the first request through it after a start (the quiz
clicks' own route aside). When Slack answers that with 503s (or an error) past slack_sdk's retries,
Bolt answered the request itself with ":warning: ... your installation with this app is no longer
available. Please reinstall this app": the learner's `/quiz start` was not run and they were told
something false, and a code message sent then was acknowledged and never graded. The token is the
bot's own and was checked at start; now the request runs with it, and auth.test is asked again at
the next request (its answer is kept once Slack gives one).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from bot.core import QuizService
from tests.slack.conftest import LEARNER, Slack, block_text, dm
from tests.slack.fake_slack import FakeSlack
from tests.slack.helpers import SOLUTION, items


async def test_a_command_runs_while_slack_cannot_answer_auth_test(slack: Slack) -> None:
    slack.fake.fail("auth.test", status=503, times=3)  # the first try and slack_sdk's two retries
    status, text = await slack.command("start demo count:1")
    assert status == 200
    assert "reinstall" not in text.lower() and "no longer available" not in text
    assert len(items(slack, dm(LEARNER))) == 1, "the learner's quiz did not start"


async def test_a_code_message_is_graded_while_slack_cannot_answer_auth_test(
    open_slack: Callable[[QuizService], Any], quiz_service: QuizService, fake: FakeSlack
) -> None:
    async with open_slack(quiz_service) as first:
        await first.command("start demo difficulty:hard count:1")
        item = items(first, dm(LEARNER))[-1]
    async with open_slack(quiz_service) as slack:  # a restarted front end: Bolt has not asked auth.test yet
        fake.fail("auth.test", error="internal_error", times=1)
        status, text = await slack.message(f"```python\n{SOLUTION}```")
        assert status == 200 and "reinstall" not in text.lower()
        assert "*Correct!*" in block_text(fake.message(dm(LEARNER), item["ts"])["blocks"]), "the code was never graded"


async def test_auth_test_is_asked_once_when_slack_answers(slack: Slack) -> None:
    await slack.command("help")
    await slack.command("packs")
    await slack.message("hello")
    assert len(slack.fake.calls_to("auth.test")) == 1
