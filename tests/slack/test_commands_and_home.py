"""Every /quiz subcommand is acknowledged; usage for unknown words; the App Home tab."""

from __future__ import annotations

import json

import pytest

from tests.slack.conftest import CHANNEL, LEARNER, STRANGER, Slack, block_text, dm, find_element
from tests.slack.helpers import answer_right, is_item, items

EVERY_SUBCOMMAND = [
    "",
    "help",
    "start demo count:2",
    "answer",
    "hint",
    "skip",
    "stop",
    "run print(1)",
    "run",
    "stats",
    f"stats <@{STRANGER}|someone>",
    "packs",
    "pack load",
    "pack enable demo",
    "pack disable demo",
    "frobnicate",
]


@pytest.mark.parametrize("text", EVERY_SUBCOMMAND)
async def test_every_subcommand_is_acknowledged(slack: Slack, text: str) -> None:
    status, body = await slack.command(text)
    assert status == 200
    if body:
        assert json.loads(body)["response_type"] == "ephemeral"
    answered = slack.fake.responses or slack.fake.views or slack.fake.posts() or slack.fake.ephemerals or body
    assert answered, f"/quiz {text} left the person without an answer"


async def test_unknown_words_get_the_usage(slack: Slack) -> None:
    _, body = await slack.command("frobnicate now")
    payload = json.loads(body)
    text = block_text(payload["blocks"])
    assert "`frobnicate` is not a command; `/quiz help` lists them. Usage:" in text
    assert "`/quiz start` `[pack] [topic] [difficulty] [count]`" in text
    assert slack.fake.responses == []  # the acknowledgement itself was the answer
    _, body = await slack.command("start demo count:lots")
    assert "`count` must be a whole number; you gave `lots`." in block_text(json.loads(body)["blocks"])
    _, body = await slack.command("start demo colour:red")
    assert "`colour` is not an option of `/quiz start`" in block_text(json.loads(body)["blocks"])


async def test_unknown_pack_and_topic_list_what_exists(slack: Slack) -> None:
    await slack.command("start nosuch")
    assert "There is no pack `nosuch`. Available: `demo`." in block_text(slack.fake.responses[-1]["blocks"])
    await slack.command("start demo topic:nosuch")
    assert "There is no topic `nosuch`. Available: `basics`." in block_text(slack.fake.responses[-1]["blocks"])


async def test_quiz_answer_opens_the_form_of_the_current_item(slack: Slack) -> None:
    await slack.command("start demo difficulty:hard count:1")
    item = items(slack, dm(LEARNER))[-1]
    await slack.command("answer")
    view = slack.last_view()
    assert slack.fake.calls_to("views.open")[-1].args["trigger_id"]
    assert json.loads(view["private_metadata"]) == {"c": dm(LEARNER), "m": item["ts"]}
    assert view["title"]["text"] == "Your code"


async def test_stats_and_packs_answer_privately(slack: Slack) -> None:
    await slack.command("start demo count:1", channel=CHANNEL)
    item = items(slack, CHANNEL)[-1]
    await answer_right(slack, CHANNEL, item["ts"])
    await slack.command("stats", channel=CHANNEL)
    stats = slack.fake.responses[-1]
    assert stats["response_type"] == "ephemeral"
    text = block_text(stats["blocks"])
    assert text.startswith(f"Progress: {LEARNER.lower()}\n") and "*1* attempt · *100%* right · streak *1* day" in text
    assert "demo · Basics" in text and "1/1 (100%)" in text
    await slack.command(f"stats <@{STRANGER}|someone>", channel=CHANNEL)
    assert "No attempts yet" in block_text(slack.fake.responses[-1]["blocks"])
    await slack.command("packs", channel=CHANNEL)
    assert "*Demo pack*\n`demo` v1 · 5 questions" in block_text(slack.fake.responses[-1]["blocks"])


async def test_the_home_tab_shows_progress_and_starts_a_quiz(slack: Slack) -> None:
    home_opened = {"type": "app_home_opened", "user": LEARNER, "channel": dm(LEARNER), "tab": "home", "event_ts": "1700000300.000001"}
    await slack.event(home_opened)
    view = slack.fake.homes[LEARNER]
    assert view["type"] == "home"
    text = block_text(view["blocks"])
    assert "No attempts yet" in text and "*Demo pack* — `demo` v1 · 5 questions" in text
    start, _ = find_element(view["blocks"], action_id="qzh:start:demo")
    assert start["value"] == "demo"
    await slack.home_click("qzh:start:demo")
    first = items(slack, dm(LEARNER))[-1]
    assert is_item(first)
    await answer_right(slack, dm(LEARNER), first["ts"])
    await slack.event({**home_opened, "event_ts": "1700000400.000001"})  # opened again: refreshed
    text = block_text(slack.fake.homes[LEARNER]["blocks"])
    assert "*1* attempt · *100%* right" in text
    await slack.event({**home_opened, "tab": "messages"})
    assert len(slack.fake.calls_to("views.publish")) == 2  # the Messages tab publishes nothing


async def test_other_events_are_acknowledged_and_ignored(slack: Slack) -> None:
    file_shared = {"type": "file_shared", "file_id": "F0001", "user_id": LEARNER, "file": {"id": "F0001"}, "channel_id": dm(LEARNER), "event_ts": "1"}
    edited = {"type": "message", "subtype": "message_changed", "channel": dm(LEARNER), "channel_type": "im", "hidden": True, "message": {"text": "x"}, "ts": "2", "event_ts": "2"}
    own = {"type": "message", "channel": dm(LEARNER), "channel_type": "im", "user": "UBOT", "bot_id": "BBOT", "text": "```python\nx\n```", "ts": "3", "event_ts": "3"}
    for event in (file_shared, edited, own):
        status, _ = await slack.event(event)
        assert status == 200
    assert {c.method for c in slack.fake.calls} == {"auth.test"}
