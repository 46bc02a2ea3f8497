"""A code answer is acknowledged only once its grading is recorded: a kill -9 right after the ack loses nothing silently.

`quizbot run` runs in a subprocess (real sandbox pool, SQLite) against the fake Slack Web API. The
test holds the database's write lock while the learner's code message arrives, so the bot cannot
write the unfinished-work row: meanwhile Slack must get no 200 and the learner no "Running your
code" (Slack sends again an event it got no 200 for). Once the lock is released, the 200 comes;
the process is killed with SIGKILL the moment it does. The row is in the database, and the next
process tells the learner, on their next action, to send the answer again.
"""

from __future__ import annotations

import asyncio
import signal
import sqlite3
from pathlib import Path

from tests.ops.test_shutdown import until
from tests.ops.test_shutdown_abandoned import (
    NOTE,
    SLEEPY_SOLUTION,
    Bot,
    everything_told,
    notes_shown,
    shown_count,
    slack_to,
    stored,
)
from tests.slack.conftest import APP_TOKEN, BOT_TOKEN, LEARNER, TEAM, dm
from tests.slack.fake_slack import FakeSlack

RUNNING = "Running your code"
LOCKED_S = 3.0  # how long the test keeps the row from being written (the bot's SQLite waits up to 5 s)


def running_shown(fake: FakeSlack) -> bool:
    return any(RUNNING in text for text in everything_told(fake))


async def test_a_code_message_killed_right_after_its_ack_is_not_lost_silently(tmp_path: Path) -> None:
    fake = FakeSlack(bot_token=BOT_TOKEN, app_token=APP_TOKEN, team=TEAM)
    await fake.start()
    first, second = Bot(tmp_path, fake, "first"), Bot(tmp_path, fake, "second")
    db = tmp_path / "bot.db"
    try:
        await first.start()
        async with slack_to(first, fake) as slack:
            await slack.command("start demo difficulty:hard count:1")
            await fake.wait_for(lambda: fake.posts(dm(LEARNER)), 30)

            lock = sqlite3.connect(db, isolation_level=None)
            lock.execute("BEGIN IMMEDIATE")  # no other writer until it ends: the bot cannot store the row
            try:
                sent = asyncio.create_task(slack.message(f"```python\n{SLEEPY_SOLUTION}```"))
                done, _ = await asyncio.wait({sent}, timeout=LOCKED_S)
                # while the row cannot be written, nothing is acknowledged (a 200 here is what a kill would lose)
                assert not done, f"Slack got {sent.result()} before the answer's row could be written"
                assert not running_shown(fake), "Running your code was shown before the answer's row could be written"
            finally:
                lock.execute("ROLLBACK")
                lock.close()
            status, _ = await asyncio.wait_for(sent, 30)
            assert status == 200
            assert first.process is not None
            first.process.send_signal(signal.SIGKILL)  # the moment Slack has its 200
            await asyncio.wait_for(first.process.wait(), 60)

        rows = stored(db, "SELECT kind, title FROM unfinished_work")
        assert [kind for kind, _ in rows] == ["grade"], rows  # acknowledged, so recorded
        assert stored(db, "SELECT count(*) FROM attempts") == [(0,)]
        with sqlite3.connect(db) as c:  # a killed process marks nothing: its row counts once its deadline passes
            c.execute("UPDATE unfinished_work SET deadline = '2000-01-01 00:00:00.000000'")

        await second.start()
        async with slack_to(second, fake) as slack:
            shown = shown_count(fake)
            await slack.command("current")
            await fake.wait_for(lambda: notes_shown(fake) > 0, 30)
            await until(lambda: _more(fake, shown), "the reply to /quiz current", 30)
        assert notes_shown(fake) == 1
        note = next(text for text in everything_told(fake) if NOTE in text)
        assert "please send it again" in note, note
        assert stored(db, "SELECT count(*) FROM unfinished_work") == [(0,)]
    finally:
        await first.stop()
        await second.stop()
        await fake.close()


async def _more(fake: FakeSlack, shown: int) -> bool:
    return shown_count(fake) > shown
