"""A code block's language word is not code: as Slack's composer sends it, in a DM, a quiz thread and a daily post's thread.

Typing ```python then the code in Slack's composer gives a code block whose first line is the word
`python`: the text carries it after the glued fence, the rich-text block carries it as the first line,
and a newer client names it in the block's `language` field instead. None of these may run the word.
"""

from __future__ import annotations

from typing import Any

import pytest

from bot.core import QuizService
from tests.daily.wired import Wired
from tests.fakes import FakeClock, LocalRunner
from tests.slack.conftest import CHANNEL, LEARNER, Slack, block_text, dm
from tests.slack.helpers import SOLUTION, feedback_on, has_controls, items
from tests.slack.test_daily_thread import post_code_item, text_of, told


def composer(typed: str, *, language: str | None = None) -> dict[str, Any]:
    """The text and blocks of a message holding one code block, as Slack's composer sends them."""
    element: dict[str, Any] = {"type": "rich_text_preformatted", "elements": [{"type": "text", "text": typed}], "border": 0}
    if language is not None:
        element["language"] = language
    escaped = typed.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return {"text": f"```{escaped}```", "blocks": [{"type": "rich_text", "block_id": "c0d", "elements": [element]}]}


async def start_code_item(slack: Slack, channel: str | None = None) -> dict[str, Any]:
    await slack.command("start demo difficulty:hard count:1", channel=channel)
    if channel is None:
        return items(slack, dm(LEARNER))[-1]
    return slack.fake.posts(channel)[1]


@pytest.mark.parametrize("word", ["python", "py", "Python3", "PY3", "python "])
async def test_the_word_typed_after_the_fence_in_a_dm_is_not_run(slack: Slack, runner: LocalRunner, word: str) -> None:
    item = await start_code_item(slack)
    await slack.message(**composer(f"{word}\n{SOLUTION.rstrip()}"))
    assert runner.requests[-1].code == SOLUTION.rstrip()
    feedback = feedback_on(slack, dm(LEARNER), item["ts"])
    assert "*Correct!*" in feedback and "NameError" not in feedback
    assert not has_controls(slack.fake.message(dm(LEARNER), item["ts"]))


async def test_an_error_is_about_the_learners_own_code(slack: Slack, runner: LocalRunner) -> None:
    item = await start_code_item(slack)
    await slack.message(**composer("python\ntotal = 55\nprint(totl)"))
    assert runner.requests[-1].code == "total = 55\nprint(totl)"  # so the sandbox's line numbers are the learner's
    feedback = feedback_on(slack, dm(LEARNER), item["ts"])
    assert "name 'totl' is not defined" in feedback and "'python'" not in feedback
    assert "2 attempts left" in feedback  # one attempt spent, on the learner's code


async def test_slacks_language_field_is_read_as_the_fences_language(slack: Slack, runner: LocalRunner) -> None:
    item = await start_code_item(slack)
    await slack.message(**composer("javascript-ish", language="javascript"))
    refusal = block_text(slack.fake.ephemerals[-1]["blocks"])
    assert "That block is marked `javascript`" in refusal and runner.requests == []
    assert "3 attempts left" not in refusal and has_controls(slack.fake.message(dm(LEARNER), item["ts"]))
    await slack.message(**composer(f"python\n{SOLUTION.rstrip()}", language="python"))
    assert runner.requests[-1].code == SOLUTION.rstrip()
    assert "*Correct!*" in feedback_on(slack, dm(LEARNER), item["ts"])


async def test_the_word_is_dropped_in_a_quiz_thread(slack: Slack, runner: LocalRunner, quiz_service: QuizService) -> None:
    item = await start_code_item(slack, CHANNEL)
    await slack.message(**composer(f"py\n{SOLUTION.rstrip()}"), channel=CHANNEL, thread_ts=item["thread_ts"])
    assert runner.requests[-1].code == SOLUTION.rstrip()
    assert "*Correct!*" in feedback_on(slack, CHANNEL, item["ts"])


async def test_the_word_is_dropped_in_a_daily_posts_thread(
    daily_slack: tuple[Slack, Wired], clock: FakeClock, runner: LocalRunner
) -> None:
    slack, wired = daily_slack
    post = await post_code_item(slack, wired, clock)
    n = len(slack.fake.ephemerals)
    await slack.message(**composer(f"Python\n{SOLUTION.rstrip()}"), channel=CHANNEL, thread_ts=post["ts"])
    assert runner.requests[-1].code == SOLUTION.rstrip()
    said = text_of(told(slack, LEARNER, n))
    assert "Right! Your answer is counted" in said and "NameError" not in said
