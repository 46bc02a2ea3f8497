"""A code answer's "Running your code" comes only once its grading is recorded as unfinished work.

The test holds the SQLite database's write lock while the answer arrives, so the bot cannot write
the row: whatever Discord received meanwhile must not say the code is running (a process killed
then would leave the learner told it runs, with nothing to tell them otherwise after a restart).
Once the lock is released, the row is written, the note shown and the code graded.
"""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

from . import payloads as p
from .conftest import BotRunner, Harness

RIGHT = "```python\ntotal = sum(range(1, 11))\nprint(total)\n```"
RUNNING = "Running your code"
LOCKED_S = 1.0  # less than the adapter's 2 s acknowledgement deadline, and the bot's 5 s SQLite wait


def said(bot: Harness, start: int) -> str:
    return "\n".join(str(c.body) for c in bot.fake.calls[start:])


async def test_the_code_forms_running_note_waits_for_its_row(start_bot: BotRunner, tmp_path: Path) -> None:
    bot = await start_bot.start(track_work=True)
    item = (await bot.command(p.ALICE, "start", [p.option("pack", "demo"), p.option("difficulty", "hard")])).item()
    form = await bot.click(p.ALICE, item, "Answer")
    start = len(bot.fake.calls)
    lock = sqlite3.connect(tmp_path / "quizbot.db", isolation_level=None)
    lock.execute("BEGIN IMMEDIATE")
    try:
        answering = asyncio.create_task(bot.submit(p.ALICE, form.data["custom_id"], RIGHT, message=item))
        await asyncio.sleep(LOCKED_S)  # the bot goes as far as it can while the row cannot be written
        assert RUNNING not in said(bot, start)
    finally:
        lock.execute("ROLLBACK")
        lock.close()
    answer = await answering
    assert RUNNING in said(bot, start) and "Correct" in answer.text()


async def test_a_code_messages_typing_waits_for_its_row(start_bot: BotRunner, tmp_path: Path) -> None:
    bot = await start_bot.start(track_work=True)
    await bot.command(p.ALICE, "start", [p.option("pack", "demo"), p.option("difficulty", "hard")])
    start = len(bot.fake.calls)
    lock = sqlite3.connect(tmp_path / "quizbot.db", isolation_level=None)
    lock.execute("BEGIN IMMEDIATE")
    try:
        message = p.message_create(p.ALICE, RIGHT, channel_id=p.ALICE.dm_channel, guild=False)
        answering = asyncio.create_task(bot.event("MESSAGE_CREATE", message))
        await asyncio.sleep(LOCKED_S)
        assert not [c.path for c in bot.fake.calls[start:] if c.path.endswith("/typing")]  # "the bot is typing": it runs
    finally:
        lock.execute("ROLLBACK")
        lock.close()
    answer = await answering
    assert [c.path for c in bot.fake.calls[start:] if c.path.endswith("/typing")] and "Correct" in answer.text()
