"""Hunt: a lone surrogate in what a learner typed crashed the answer ("Something went wrong", a traceback).

JSON may carry `\\ud800`, half of a UTF-16 pair, which no UTF-8 text holds: the database (and the
sandbox's bridge) refuse it. A short answer or a code message with one failed while being stored,
and the learner got the generic apology. What Slack hands the bot as typed text now has such a
half made U+FFFD, as a UTF-8 decoder does with a broken byte: the answer is graded like any other.
"""

from __future__ import annotations

import pytest

from bot.core import QuizService
from bot.core import requests as rq
from bot.core.model import Actor
from tests.slack.conftest import LEARNER, TEAM, Slack, block_text, dm
from tests.slack.helpers import feedback_on, items, short_item_form

GENERIC = "Something went wrong"


def said(slack: Slack) -> str:
    return "\n".join(block_text(e.get("blocks") or []) for e in slack.fake.ephemerals)


def no_tracebacks(caplog: pytest.LogCaptureFixture) -> None:
    assert [r.getMessage() for r in caplog.records if r.exc_info] == []


async def attempts(service: QuizService) -> str:
    stats = await service.handle(Actor("slack", TEAM, LEARNER), rq.Stats())
    return stats.messages[0].text()


async def test_a_short_answer_with_half_a_surrogate_pair_is_graded(slack: Slack, quiz_service: QuizService, caplog: pytest.LogCaptureFixture) -> None:
    channel = dm(LEARNER)
    item = await short_item_form(slack)
    await slack.submit(slack.last_view(), {"answer": "6\ud800"})
    assert GENERIC not in said(slack), said(slack)
    assert "*Not quite.*" in feedback_on(slack, channel, item["ts"])
    assert "**1** attempt" in await attempts(quiz_service)
    no_tracebacks(caplog)


async def test_code_with_half_a_surrogate_pair_is_graded(slack: Slack, caplog: pytest.LogCaptureFixture) -> None:
    await slack.command("start demo difficulty:hard count:1")
    channel = dm(LEARNER)
    item = items(slack, channel)[-1]
    await slack.message("```python\ntotal = 55  # \ud800\nprint(total)\n```")
    assert GENERIC not in said(slack), said(slack)
    assert "*Correct!*" in feedback_on(slack, channel, item["ts"])
    no_tracebacks(caplog)
