"""A learner who edits the Discord message holding their code answer.

Discord reports an edit as MESSAGE_UPDATE (the message as it is now, with `edited_timestamp`). The
bot listened to MESSAGE_CREATE only, so a learner who fixed a typo in the code block sent to the
bot's DM waited for a grade that never came. As on Slack: an edit is not graded (the first send was,
once, under its own key; grading the edit too would count one message twice), and the learner is
told, where they wrote, to send the code again as a new message. An update that is no edit (Discord
sends one when it adds a link preview) and an edit in a guild channel stay silent.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from . import payloads as p
from .conftest import Harness
from .test_code import start_code_item

NOTE = "Edits are not graded"
WRONG = "```python\ntotal = 0\nprint(total)\n```"
RIGHT = "```python\ntotal = sum(range(1, 11))\nprint(total)\n```"


def edited(created: dict[str, Any], content: str, *, really: bool = True) -> dict[str, Any]:
    """The MESSAGE_UPDATE Discord sends for `created` now holding `content`."""
    stamp = datetime.now(UTC).isoformat() if really else None
    return created | {"content": content, "edited_timestamp": stamp}


async def test_an_edited_code_answer_in_the_dm_is_told_it_is_not_graded(bot: Harness) -> None:
    await start_code_item(bot)
    created = p.message_create(p.ALICE, WRONG, channel_id=p.ALICE.dm_channel, guild=False)
    first = await bot.event("MESSAGE_CREATE", created)
    assert "Not quite" in first.text(), first.text()
    edit = await bot.event("MESSAGE_UPDATE", edited(created, RIGHT))
    text = edit.text()
    assert NOTE in text and "new message" in text, text
    assert "Correct" not in text and "Not quite" not in text, text  # not graded
    stats = await bot.command(p.ALICE, "stats")
    assert "**1** attempt" in stats.text(), stats.text()  # the edit counted nothing


async def test_an_update_that_is_no_edit_and_an_edit_in_a_channel_stay_silent(bot: Harness) -> None:
    await start_code_item(bot)
    created = p.message_create(p.ALICE, WRONG, channel_id=p.ALICE.dm_channel, guild=False)
    await bot.event("MESSAGE_CREATE", created)
    preview = await bot.event("MESSAGE_UPDATE", edited(created, WRONG, really=False) | {"embeds": []})
    assert NOTE not in preview.text(), preview.text()
    talk = p.message_create(p.BOB, "hello", channel_id=p.CHANNEL_ID, guild=True)
    await bot.event("MESSAGE_CREATE", talk)
    elsewhere = await bot.event("MESSAGE_UPDATE", edited(talk, RIGHT))
    assert NOTE not in elsewhere.text(), elsewhere.text()
