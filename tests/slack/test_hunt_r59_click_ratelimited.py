"""Hunt: a quiz click while Slack rate limits the bot's Web API calls.

Slack answers a call over the rate limit with HTTP 429, `{"ok": false, "error": "ratelimited"}` and
Retry-After; and, past 30,000 events an hour, posts an `app_rate_limited` event callback to the
events URL. The learner who clicked must still get their grade in the item and the next item, with
the answer recorded once; the `app_rate_limited` notice is acknowledged (200) and logged, not answered
404 as a request nobody handles.
"""

from __future__ import annotations

import json
import logging
import time

import pytest

from tests.slack.conftest import LEARNER, TEAM, Slack, block_text, dm
from tests.slack.helpers import items, kind_of


async def first_choice_item(slack: Slack) -> dict[str, object]:
    await slack.command("start demo count:5")
    item = items(slack, dm(LEARNER))[-1]
    while kind_of(item) != "choice":  # skip to the multiple-choice item
        await slack.click(dm(LEARNER), str(item["ts"]), label="Skip")
        item = items(slack, dm(LEARNER))[-1]
    return item


@pytest.mark.parametrize("method", ["chat.update", "chat.postMessage"])
async def test_a_click_rate_limited_once_still_shows_the_grade_and_the_next_item(slack: Slack, method: str) -> None:
    item = await first_choice_item(slack)
    shown = len(items(slack, dm(LEARNER)))
    slack.fake.fail(method, status=429, headers={"Retry-After": "1"})
    status, _ = await slack.click(dm(LEARNER), str(item["ts"]), label="A")
    assert status == 200
    await slack.settle()
    feedback = block_text(slack.fake.message(dm(LEARNER), str(item["ts"]))["blocks"])
    assert "Correct" in feedback, feedback
    assert len(items(slack, dm(LEARNER))) == shown + 1, "the next item was not posted"
    assert len(slack.fake.calls_to(method)) >= 2  # the rate-limited call was made again
    assert not any("refused my reply" in block_text(e.get("blocks") or []) for e in slack.fake.ephemerals)


async def test_slacks_app_rate_limited_notice_is_acknowledged_and_logged(slack: Slack, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    body = {
        "token": "gIkuvaNzQIHg97ATvDxqgjtO", "type": "app_rate_limited", "team_id": TEAM,
        "minute_rate_limited": int(time.time()) // 60 * 60, "api_app_id": "A0001",
    }  # fmt: skip
    status, text = await slack.send(json.dumps(body), "application/json")
    assert status == 200 and "unhandled" not in text
    assert any("rate limit" in r.getMessage() for r in caplog.records if r.name.startswith("quizbot.slack") and r.levelno >= logging.WARNING)
    assert slack.fake.calls == [] or all(c.method in ("auth.test", "users.info") for c in slack.fake.calls)
