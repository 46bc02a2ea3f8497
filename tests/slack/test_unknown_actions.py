"""A signed click or form the bot has no listener for: acknowledged, told privately, logged short.

A stale button of an older version, or any id a sender makes up, must not leave the person with
Slack's error mark, nor write its (up to a megabyte long) id into the log.
"""

from __future__ import annotations

import logging
from typing import Any

import pytest

from tests.slack.conftest import CHANNEL, LEARNER, TEAM, Slack, block_text, dm
from tests.slack.helpers import items

LONG_ID = "zz:nonsense:" + "9" * 600_000  # the body stays under the 1 MiB cap
LOG_BOUND = 1_000  # characters in any one log record


def click_on(slack: Slack, channel: str, ts: str, action_id: str) -> dict[str, Any]:
    """A block_actions payload as Slack sends it for a control on the message `ts` with this action id."""
    action = {"action_id": action_id, "block_id": "b0", "type": "button", "value": "x", "action_ts": slack.action_ts()}
    return slack.action_payload(channel, ts, action)


def longest_record(caplog: pytest.LogCaptureFixture) -> int:
    return max((len(r.getMessage()) for r in caplog.records), default=0)


@pytest.mark.parametrize("action_id", [LONG_ID, "quiz:answer:1:B"], ids=["made up and long", "an older version's button"])
async def test_an_unknown_button_is_acknowledged_and_told_privately(slack: Slack, caplog: pytest.LogCaptureFixture, action_id: str) -> None:
    caplog.set_level(logging.INFO)
    await slack.command("start demo count:2", channel=CHANNEL)
    item = items(slack, CHANNEL)[-1]
    status, body = await slack.interact(click_on(slack, CHANNEL, item["ts"], action_id))
    assert status == 200 and "unhandled" not in body
    note = slack.fake.ephemerals[-1]
    assert note["user"] == LEARNER and note["channel"] == CHANNEL
    assert "That button no longer works here; `/quiz current` shows your question." in block_text(note["blocks"])
    assert longest_record(caplog) < LOG_BOUND, "a log record holds the whole action id"
    logged = [r for r in caplog.records if action_id[:20] in r.getMessage()]
    assert logged and all(r.levelno in (logging.INFO, logging.WARNING) for r in logged)
    assert block_text(slack.fake.message(CHANNEL, item["ts"])["blocks"]) == block_text(item["blocks"])  # the item is untouched


async def test_the_buttons_that_have_listeners_still_reach_them(slack: Slack) -> None:
    await slack.command("start demo count:2")
    first = items(slack, dm(LEARNER))[-1]
    await slack.interact(click_on(slack, dm(LEARNER), first["ts"], LONG_ID))
    status, _ = await slack.click(dm(LEARNER), first["ts"], label="Skip")
    assert status == 200
    assert len(items(slack, dm(LEARNER))) == 2  # the next item was posted: the click reached the quiz
    assert "Question 2 of 2" in block_text(items(slack, dm(LEARNER))[-1]["blocks"])
    assert all("no longer works" not in block_text(e["blocks"]) for e in slack.fake.ephemerals[1:])


async def test_an_unknown_form_is_closed_and_told_privately(slack: Slack, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    view = {"id": "V0OLD", "type": "modal", "callback_id": LONG_ID, "private_metadata": "", "blocks": [], "state": {"values": {}}}
    status, body = await slack.submit(view, {})
    assert status == 200 and body == ""  # an empty acknowledgement closes the form
    told = [m for m in slack.fake.posts(dm(LEARNER)) if "That form no longer works here" in block_text(m["blocks"])]
    assert told, slack.fake.calls
    assert longest_record(caplog) < LOG_BOUND


async def test_any_other_unhandled_request_is_logged_short(slack: Slack, caplog: pytest.LogCaptureFixture) -> None:
    """Bolt's own warning for a request no listener takes (here a menu's options request) is cut short."""
    caplog.set_level(logging.INFO)
    payload = {
        "type": "block_suggestion",
        "user": {"id": LEARNER, "team_id": TEAM},
        "team": {"id": TEAM},
        "api_app_id": "A0001",
        "action_id": LONG_ID,
        "block_id": "b0",
        "value": "x",
    }
    await slack.interact(payload)
    assert longest_record(caplog) < 2 * LOG_BOUND


MALFORMED = {
    "an action id that is a number": lambda p: p["actions"][0].update(action_id=5),
    "a block id that is a list": lambda p: p["actions"][0].update(block_id=["b0"]),
    "no actions": lambda p: p.update(actions=[]),
    "actions that are not a list": lambda p: p.update(actions={"action_id": "x"}),
    "an action that is not an object": lambda p: p.update(actions=["quiz:answer"]),
    "a user that is not an object": lambda p: p.update(user="U1"),
}


@pytest.mark.parametrize("change", MALFORMED.values(), ids=MALFORMED.keys())
async def test_a_malformed_signed_click_is_acknowledged_and_changes_nothing(
    slack: Slack, caplog: pytest.LogCaptureFixture, change: Any
) -> None:
    """A signed click whose actions are not what Slack sends gets an empty 200, not a 500 with an error logged."""
    caplog.set_level(logging.INFO)
    await slack.command("start demo count:2", channel=CHANNEL)
    item = items(slack, CHANNEL)[-1]
    payload = click_on(slack, CHANNEL, item["ts"], "zz:x")
    change(payload)
    status, _body = await slack.interact(payload)
    assert status == 200
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], [r.getMessage()[:200] for r in caplog.records]
    assert block_text(slack.fake.message(CHANNEL, item["ts"])["blocks"]) == block_text(item["blocks"])
    status, _body = await slack.command("current", channel=CHANNEL)  # and the bot keeps serving
    assert status == 200
