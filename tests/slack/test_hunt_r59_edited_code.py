"""Hunt: a learner who edits the message holding their code answer heard nothing.

Slack reports an edit as a `message` event with subtype `message_changed`: the new text is in
`event.message`, the old in `event.previous_message`, and the event has no `user` of its own. The bot
acknowledged it and did nothing, so a learner who fixed a typo in their code block waited for a grade
that never came. Decided: an edit is not graded (the first send was, once, under its own key, and a
second grade from an edit would count one message twice); the learner is told privately, where they
wrote, that edits are not graded and to send the code again as a new message. An edit that leaves the
text as it was (Slack sends one when it adds a link preview) and an edit in a channel outside a
thread stay silent.
"""

from __future__ import annotations

from typing import Any

from tests.slack.conftest import CHANNEL, LEARNER, TEAM, Slack, block_text, dm
from tests.slack.helpers import SOLUTION, WRONG, items

NOTE = "Edits are not graded"


def edit(channel: str, old: str, new: str, *, ts: str = "1700000200.000111", thread_ts: str | None = None) -> dict[str, Any]:
    """The message_changed event Slack sends when LEARNER edits their message `ts`."""
    message: dict[str, Any] = {"type": "message", "user": LEARNER, "text": new, "ts": ts, "edited": {"user": LEARNER, "ts": "1700000299.000001"}, "team": TEAM}
    previous: dict[str, Any] = {"type": "message", "user": LEARNER, "text": old, "ts": ts, "team": TEAM}
    if thread_ts:
        message["thread_ts"] = previous["thread_ts"] = thread_ts
    return {
        "type": "message", "subtype": "message_changed", "hidden": True, "channel": channel, "message": message,
        "previous_message": previous, "event_ts": "1700000299.000002", "ts": "1700000299.000002",
        "channel_type": "im" if channel.startswith("D") else "channel",
    }  # fmt: skip


def notes(slack: Slack) -> list[str]:
    return [block_text(e.get("blocks") or []) or str(e.get("text")) for e in slack.fake.ephemerals]


async def test_an_edited_code_answer_in_the_dm_is_told_it_is_not_graded(slack: Slack) -> None:
    await slack.command("start demo difficulty:hard count:1")
    item = items(slack, dm(LEARNER))[-1]
    before = len(slack.fake.ephemerals)
    status, _ = await slack.event(edit(dm(LEARNER), f"```python\n{WRONG}```", f"```python\n{SOLUTION}```"))
    assert status == 200
    told = notes(slack)[before:]
    assert any(NOTE in n and "new message" in n for n in told), f"the learner heard nothing about their edit: {told}"
    assert slack.fake.ephemerals[-1]["user"] == LEARNER and slack.fake.ephemerals[-1]["channel"] == dm(LEARNER)
    assert "Correct" not in block_text(slack.fake.message(dm(LEARNER), item["ts"])["blocks"])  # not graded


async def test_an_edit_that_changes_nothing_or_holds_no_code_stays_silent(slack: Slack) -> None:
    await slack.command("start demo difficulty:hard count:1")
    before = len(slack.fake.ephemerals)
    same = f"```python\n{SOLUTION}```"
    await slack.event(edit(dm(LEARNER), same, same))  # a link preview added: the text is as it was
    await slack.event(edit(dm(LEARNER), "hello", "hello there"))  # no code
    await slack.event(edit(CHANNEL, "```x = 1```", "```x = 2```"))  # code in a channel, outside a thread: conversation
    assert notes(slack)[before:] == []


async def test_the_code_sent_again_as_a_new_message_is_graded(slack: Slack) -> None:
    await slack.command("start demo difficulty:hard count:1")
    item = items(slack, dm(LEARNER))[-1]
    await slack.event(edit(dm(LEARNER), f"```python\n{WRONG}```", f"```python\n{SOLUTION}```"))
    await slack.message(f"```python\n{SOLUTION}```")
    assert "*Correct!*" in block_text(slack.fake.message(dm(LEARNER), item["ts"])["blocks"])


async def test_the_bots_own_item_updated_in_the_dm_is_not_taken_for_an_edit(slack: Slack) -> None:
    await slack.command("start demo difficulty:hard count:1")
    item = items(slack, dm(LEARNER))[-1]
    before = len(slack.fake.ephemerals)
    event = edit(dm(LEARNER), "```python\ntotal = 0\n```", "```python\ntotal = 0\n``` *Not quite.*", ts=item["ts"])
    event["message"] |= {"user": "UBOT", "bot_id": "B0001", "bot_profile": {"id": "B0001", "name": "quizbot"}}
    await slack.event(event)
    event["message"] = {k: v for k, v in event["message"].items() if k not in ("bot_id", "bot_profile")}  # as Slack may send it: only the bot's user id says so
    await slack.event(event)
    assert notes(slack)[before:] == []
