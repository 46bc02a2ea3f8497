"""A short-answer form submitted after its item was skipped another way tells the learner so.

The learner opened the answer form, skipped the question with `/quiz skip` (or the Skip button),
then submitted the form: Slack showed nothing at all, and the typed answer was silently dropped.
The submission now gets the note a stale click gets ("already answered; the quiz has moved on").
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.slack.conftest import LEARNER, Slack, block_text, dm
from tests.slack.helpers import items

STALE = "already answered; the quiz has moved on"


def told(slack: Slack, start: int) -> str:
    return "\n".join(e.get("text", "") + block_text(e.get("blocks") or []) for e in slack.fake.ephemerals[start:])


async def short_item(slack: Slack) -> dict[str, Any]:
    """Start a quiz of the easy items and move on to its short-answer item."""
    await slack.command("start demo difficulty:easy count:2")
    item = items(slack, dm(LEARNER))[-1]
    if "What does this print" not in block_text(item["blocks"]):
        await slack.click(dm(LEARNER), item["ts"], label="Skip")
        item = items(slack, dm(LEARNER))[-1]
    assert "What does this print" in block_text(item["blocks"])
    return item


@pytest.mark.parametrize("skip", ["command", "button"])
async def test_a_form_submitted_after_a_skip_gets_the_stale_note(slack: Slack, skip: str) -> None:
    item = await short_item(slack)
    await slack.click(dm(LEARNER), item["ts"], label="Answer")
    form = slack.last_view()
    if skip == "command":
        await slack.command("skip")
    else:
        await slack.click(dm(LEARNER), item["ts"], label="Skip")
    start = len(slack.fake.ephemerals)
    assert await slack.submit(form, {"answer": "6"}) == (200, "")
    assert STALE in told(slack, start)
