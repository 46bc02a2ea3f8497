"""Code Slack's bot will refuse (too big, empty) gets the refusal alone, never "Running your code" first.

A 117 KiB code message was told "⏳ Running your code in the sandbox…", then "The code is 117 KiB;
the limit is 64 KiB". The checks now come before the note, in a message and in the answer form.
"""

from __future__ import annotations

from typing import Any

from tests.slack.conftest import LEARNER, Slack, block_text, dm
from tests.slack.helpers import items

RUNNING = "Running your code"


def everything_said(slack: Slack) -> str:
    texts = [e.get("text", "") + block_text(e.get("blocks") or []) for e in slack.fake.ephemerals]
    return "\n".join(texts)


async def start_code_item(slack: Slack) -> dict[str, Any]:
    await slack.command("start demo difficulty:hard count:1")
    return items(slack, dm(LEARNER))[-1]


async def test_a_code_message_over_the_limit_is_refused_without_a_running_note(slack: Slack) -> None:
    await start_code_item(slack)
    await slack.message("```python\nx = 1  # " + "y" * (117 * 1024) + "\n```")
    said = everything_said(slack)
    assert "the limit is 64 KiB" in said
    assert RUNNING not in said


async def test_empty_code_from_the_form_is_refused_without_a_running_note(slack: Slack) -> None:
    item = await start_code_item(slack)
    await slack.click(dm(LEARNER), item["ts"], label="Answer")
    await slack.submit(slack.last_view(), {"answer": "```python\n```"})
    said = everything_said(slack)
    assert "The code is empty" in said
    assert RUNNING not in said
