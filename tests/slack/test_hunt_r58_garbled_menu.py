"""Hunt: a signed click whose menu choices were not objects failed with "Something went wrong" and a traceback.

`selected_options: [5, null]` (or a `selected_option` that is text) on a quiz's menu reached the
front end's reading of the chosen values, which raised: the person was told the bot failed and the
log got an exception. Like the other shapes Slack never sends (`strays.malformed`), it is now
acknowledged with an empty 200 and nothing changes.
"""

from __future__ import annotations

import logging
from typing import Any

import pytest

from tests.slack.conftest import CHANNEL, Slack, block_text
from tests.slack.helpers import items

GARBLED: dict[str, dict[str, Any]] = {
    "choices that are not objects": {"type": "multi_static_select", "selected_options": [5, None]},
    "choices that are not a list": {"type": "multi_static_select", "selected_options": "0,1"},
    "a choice that is text": {"type": "static_select", "selected_option": "0"},
}


@pytest.mark.parametrize("menu", GARBLED.values(), ids=GARBLED.keys())
async def test_a_garbled_menu_choice_is_acknowledged_and_changes_nothing(slack: Slack, caplog: pytest.LogCaptureFixture, menu: dict[str, Any]) -> None:
    caplog.set_level(logging.INFO)
    await slack.command("start demo difficulty:easy count:2", channel=CHANNEL)
    item = items(slack, CHANNEL)[-1]
    action_id = next(e["action_id"] for b in item["blocks"] if b["type"] == "actions" for e in b["elements"])
    action = {"action_id": action_id, "block_id": "b0", "action_ts": slack.action_ts(), **menu}
    status, _body = await slack.interact(slack.action_payload(CHANNEL, item["ts"], action))
    assert status == 200
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info], [r.getMessage()[:200] for r in caplog.records]
    told = [block_text(e.get("blocks") or []) for e in slack.fake.ephemerals]
    assert not any("went wrong" in text for text in told), told
    assert block_text(slack.fake.message(CHANNEL, item["ts"])["blocks"]) == block_text(item["blocks"])


FORM_STATES: dict[str, Any] = {
    "a state that is text": "x",
    "values that are text": {"values": "x"},
    "a block that is text": {"values": {"answer": "x"}},
}


@pytest.mark.parametrize("state", FORM_STATES.values(), ids=FORM_STATES.keys())
async def test_a_garbled_form_state_is_answered_without_an_error(slack: Slack, caplog: pytest.LogCaptureFixture, state: Any) -> None:
    from tests.slack.helpers import short_item_form

    caplog.set_level(logging.INFO)
    await short_item_form(slack)
    view = slack.last_view()
    payload = {
        "type": "view_submission", "team": {"id": "T0001"}, "user": {"id": "U1LEARNER", "team_id": "T0001"}, "api_app_id": "A0001",
        "trigger_id": slack.trigger(), "view": {**view, "state": state},
    }  # fmt: skip
    status, _body = await slack.interact(payload)
    assert status == 200
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info], [r.getMessage()[:200] for r in caplog.records]
    status, _body = await slack.command("current")  # and the bot keeps serving
    assert status == 200
