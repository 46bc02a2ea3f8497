"""Hunt: an event the bot has no listener for was answered 404, so Slack sent it again three times.

Slack resends an event it got no 2xx for (after about 1 s, 1 min and 5 min, `X-Slack-Retry-Num`)
and, if most deliveries fail, turns the app's event subscriptions off. Events the bot does not act on
(`member_left_channel` when it is removed from a channel, `app_mention` or `reaction_added` when an
admin subscribes to more than the manifest asks) reached no listener and got Bolt's 404
"unhandled request" with a warning quoting a listener to write. Now each is acknowledged with an
empty 200, nothing is done, and no one is told anything.
"""

from __future__ import annotations

import logging
from typing import Any

import pytest

from tests.slack.conftest import CHANNEL, LEARNER, TEAM, Slack


@pytest.mark.parametrize(
    "event",
    [
        {"type": "member_left_channel", "user": "UBOT", "channel": CHANNEL, "channel_type": "C", "team": TEAM},
        {"type": "channel_left", "channel": CHANNEL, "actor_id": LEARNER, "event_ts": "1700000400.000100"},
        {"type": "app_mention", "user": LEARNER, "text": "<@UBOT> hello", "ts": "1700000400.000200", "channel": CHANNEL, "event_ts": "1700000400.000200"},
        {"type": "reaction_added", "user": LEARNER, "reaction": "thumbsup", "item": {"type": "message", "channel": CHANNEL, "ts": "1.2"}, "event_ts": "1.3"},
    ],
    ids=["bot removed", "channel left", "mention", "reaction"],
)
async def test_an_event_without_a_listener_is_acknowledged(slack: Slack, caplog: pytest.LogCaptureFixture, event: dict[str, Any]) -> None:
    caplog.set_level(logging.INFO)
    status, text = await slack.event(event)
    assert (status, text) == (200, "")
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING], [r.getMessage()[:200] for r in caplog.records if r.levelno >= logging.WARNING]
    assert slack.fake.posts() == [] and slack.fake.ephemerals == []
