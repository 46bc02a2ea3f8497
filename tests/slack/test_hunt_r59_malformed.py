"""Hunt: signed requests not shaped as Slack sends them still reached Bolt and got a 500 and a traceback.

`strays.malformed` acknowledges such a request before Bolt reads it; two shapes slipped past: an
event whose `channel` (or `user`) is neither text nor an object (Bolt's context building raised
inside aiohttp's handler: a 500 and "Error handling request" in the log), and a form (view) without
a `type` (Bolt's middleware raised KeyError: a 500 and an error with its traceback). Each now gets an
empty 200, one log line, and nothing is done; what Slack does send still works.
"""

from __future__ import annotations

import logging
from typing import Any

import pytest

from tests.slack.conftest import LEARNER, TEAM, Slack, dm


def view_payload(view: dict[str, Any]) -> dict[str, Any]:
    return {"type": "view_submission", "team": {"id": TEAM}, "user": {"id": LEARNER, "team_id": TEAM}, "trigger_id": "7.7.abc", "view": view}


@pytest.mark.parametrize(
    "event",
    [
        {"type": "message", "user": LEARNER, "channel": 5, "text": "```x = 1```", "ts": "1.1"},
        {"type": "message", "user": LEARNER, "channel": ["D1"], "text": "hi", "ts": "1.1"},
        {"type": "message", "user": 7, "channel": dm(LEARNER), "text": "hi", "ts": "1.1"},
    ],
    ids=["channel a number", "channel a list", "user a number"],
)
async def test_an_event_with_odd_ids_is_acknowledged_without_an_error(slack: Slack, caplog: pytest.LogCaptureFixture, event: dict[str, Any]) -> None:
    caplog.set_level(logging.INFO)
    status, _ = await slack.event(event)
    assert status == 200
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR] == []
    assert slack.fake.ephemerals == [] and slack.fake.posts() == []


async def test_a_form_without_a_type_is_acknowledged_without_an_error(slack: Slack, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    view = {"id": "V1", "callback_id": "qz:answer:1:0", "private_metadata": "", "state": {"values": {"answer": {"text": {"type": "plain_text_input", "value": "6"}}}}}
    status, _ = await slack.interact(view_payload(view))
    assert status == 200
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR] == []


async def test_a_form_as_slack_sends_it_still_reaches_its_listener(slack: Slack) -> None:
    view = {"id": "V1", "type": "modal", "callback_id": "qz:answer:1:0", "private_metadata": "", "state": {"values": {"answer": {"text": {"type": "plain_text_input", "value": "   "}}}}}
    status, text = await slack.interact(view_payload(view))
    assert status == 200 and "Type your answer first." in text  # the answer form's own refusal
