"""Hunt: the Home tab's Start stopped a running quiz without asking; pressed twice, it threw away the first.

A double click on Start (two deliveries, two action_ts) started a quiz with the first press and, with
the second, stopped it ("Your previous quiz was stopped; a new one starts") and started another: the
learner answered the question shown first and was told the quiz was stopped. Pressed while a quiz
runs, Start now asks as `/quiz start` does (Resume, or Start new), in the learner's DM.
"""

from __future__ import annotations

from typing import Any

from tests.slack.conftest import LEARNER, TEAM, Slack, block_text, dm, find_element
from tests.slack.helpers import is_item, items


async def press_home_start(slack: Slack, action_id: str = "qzh:start:demo") -> None:
    """Press a Start button of the learner's Home tab; each press is its own delivery (its own action_ts)."""
    view = slack.fake.homes[LEARNER]
    element, block_id = find_element(view["blocks"], action_id=action_id)
    payload: dict[str, Any] = {
        "type": "block_actions",
        "user": {"id": LEARNER, "username": "learner", "name": "learner", "team_id": TEAM},
        "api_app_id": "A0001",
        "token": "gIkuvaNzQIHg97ATvDxqgjtO",
        "container": {"type": "view", "view_id": "VHOME"},
        "trigger_id": slack.trigger(),
        "team": {"id": TEAM, "domain": "quizbot-test"},
        "view": {**view, "id": "VHOME"},
        "actions": [
            {"action_id": element["action_id"], "block_id": block_id, "type": "button", "value": element.get("value", ""), "action_ts": slack.action_ts()}
        ],
    }
    await slack.interact(payload)


async def open_home(slack: Slack) -> None:
    await slack.event({"type": "app_home_opened", "user": LEARNER, "channel": dm(LEARNER), "tab": "home", "event_ts": "1700000300.000001"})


def everything_said(slack: Slack) -> str:
    posted = [block_text(m["blocks"]) for m in slack.fake.posts(dm(LEARNER))]
    private = [block_text(e.get("blocks") or []) for e in slack.fake.ephemerals]
    return "\n".join(posted + private)


async def test_home_start_pressed_twice_keeps_the_quiz_the_first_press_started(slack: Slack) -> None:
    await open_home(slack)
    await press_home_start(slack)
    await press_home_start(slack)
    channel = dm(LEARNER)
    started = items(slack, channel)
    assert len(started) == 1, [block_text(m["blocks"])[:60] for m in started]
    assert "previous quiz was stopped" not in everything_said(slack)
    assert "You have a quiz running" in everything_said(slack)
    await slack.click(channel, started[0]["ts"], label="Skip")  # the question the first press showed still works
    shown = everything_said(slack)
    assert "was stopped" not in shown, shown
    assert "Skipped" in block_text(slack.fake.message(channel, started[0]["ts"])["blocks"])


async def test_home_start_with_a_quiz_running_asks_first(slack: Slack) -> None:
    await slack.command("start demo count:3")
    channel = dm(LEARNER)
    running = items(slack, channel)[-1]
    await open_home(slack)
    await press_home_start(slack, "qzh:start")  # Every enabled pack
    assert items(slack, channel) == [running]
    prompt = slack.fake.posts(channel)[-1]
    assert "You have a quiz running: question 1 of 3" in block_text(prompt["blocks"])
    await slack.click(channel, prompt["ts"], label="Start new")  # what the learner asked for, once they say so
    assert is_item(slack.fake.posts(channel)[-1]) and slack.fake.posts(channel)[-1]["ts"] != running["ts"]
