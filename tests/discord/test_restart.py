"""A restart in the middle of a quiz: buttons and forms sent before it still work after it."""

from __future__ import annotations

import copy

from . import payloads as p
from .conftest import BotRunner, components

RIGHT_CODE = "total = sum(range(1, 11))\nprint(total)\n"


async def test_buttons_and_an_open_form_keep_working_after_a_restart(start_bot: BotRunner) -> None:
    bot = await start_bot.start()
    item = (await bot.command(p.ALICE, "start", [p.option("pack", "demo")])).item()
    while not any(c.get("label") == "Answer" for c in components(item)):
        item = (await bot.click(p.ALICE, item, "Skip")).item()
    assert item["embeds"][0]["title"] != "Question 5 of 5"
    form = await bot.click(p.ALICE, item, "Answer")
    assert form.kind == 9
    as_shown = copy.deepcopy(item)  # what a learner's client still shows
    right = "6" if "What does this print" in item["embeds"][0]["description"] else RIGHT_CODE
    await start_bot.stop(bot)

    # A new process: new client, new database connection, nothing in memory.
    bot = await start_bot.start()
    answered = await bot.submit(p.ALICE, form.data["custom_id"], right, message=item)
    assert answered.kind in (6, 7)  # 6: deferred while the sandbox runs the code
    assert "Correct" in answered.text()
    following = answered.item()
    title = following["embeds"][0]["title"]
    skipped = await bot.click(p.ALICE, following, "Skip")
    assert skipped.kind == 7 and "Skipped" in skipped.text()
    assert all(c["disabled"] for c in components(skipped.data))
    assert skipped.item()["embeds"][0]["title"] != title
    # The question from before the restart is answered: its buttons show how it ended, in place; the
    # current item was posted already (by this process), so it is not posted again.
    stale = await bot.click(p.ALICE, as_shown, "Hint")
    assert stale.kind == 7 and "Correct" in stale.text() and skipped.item()["embeds"][0]["title"] not in stale.text()
    assert not stale.followups()
    bot.assert_all_acknowledged()


async def test_code_sent_by_dm_finds_the_quiz_after_a_restart(start_bot: BotRunner) -> None:
    bot = await start_bot.start()
    item = (
        await bot.command(p.ALICE, "start", [p.option("pack", "demo"), p.option("difficulty", "hard")])
    ).item()
    assert "Define `total`" in item["embeds"][0]["description"]
    await start_bot.stop(bot)

    bot = await start_bot.start()
    code = "```python\ntotal = sum(range(1, 11))\nprint(total)\n```"
    dm = await bot.event(
        "MESSAGE_CREATE", p.message_create(p.ALICE, code, channel_id=p.ALICE.dm_channel, guild=False)
    )
    assert "Correct" in dm.text() and "Quiz finished" in dm.text()
