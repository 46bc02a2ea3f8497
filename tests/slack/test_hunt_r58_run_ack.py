"""Hunt: `/quiz run <code>` said "Running your code" before anything was recorded, and before refusing the code.

The command was acknowledged at once with "⏳ Running your code in the sandbox…". A process killed
before the run's row was written (a busy database) left that note standing for good: no result, and
no "the bot restarted" note after the restart, since nothing was recorded. And code the bot refuses
without running it (a block marked `js`, code over the size limit) got "Running your code" first,
then the refusal. The Run form (`/quiz run` alone) closed at once the same way, before anything was
recorded. Like a code answer, `/quiz run` is now acknowledged with that note once its run
is recorded (or after 1 s at most: the note may then wait a second for the learner's language,
within Slack's 3), and a refusal comes without it; the Run form closes once its run is recorded.

The second test runs `quizbot run` in a subprocess (real sandbox pool, SQLite) against the fake
Slack Web API, holding the database's write lock so the row cannot be written for a moment.
"""

from __future__ import annotations

import asyncio
import json
import signal
import sqlite3
import time
from pathlib import Path

from tests.ops.test_shutdown import until
from tests.ops.test_shutdown_abandoned import Bot, everything_told, shown_count, slack_to, stored
from tests.slack.conftest import APP_TOKEN, BOT_TOKEN, TEAM, Slack, block_text
from tests.slack.fake_slack import FakeSlack

RUNNING = "Running your code"
RESTARTED = "The bot restarted before it finished running your code"


async def test_refused_code_is_not_announced_as_running(slack: Slack) -> None:
    status, body = await slack.command("run ```js\nconsole.log(1)\n```")
    assert status == 200 and RUNNING not in body, body
    assert "`js`" in block_text(slack.fake.responses[-1]["blocks"])


async def test_code_that_runs_is_acknowledged_as_running_in_the_learners_language(slack: Slack) -> None:
    await slack.command("language de")
    status, body = await slack.command("run print(6 * 7)")
    assert status == 200 and "Dein Code läuft" in json.loads(body)["text"], body
    assert "42" in block_text(slack.fake.responses[-1]["blocks"])


async def test_run_is_acknowledged_within_3_s_while_users_info_is_rate_limited(slack: Slack) -> None:
    slack.fake.fail("users.info", status=429, headers={"Retry-After": "3"}, times=2)
    started = time.monotonic()
    status, body = await slack.command("run print(6 * 7)", settle=False)
    took = time.monotonic() - started
    assert status == 200 and RUNNING in body and took < 2.8, (took, status, body)
    await slack.fake.wait_for(lambda: slack.fake.responses, 30)  # and the run's output comes, once Slack answers
    await slack.settle()
    assert "42" in block_text(slack.fake.responses[-1]["blocks"])


async def test_run_killed_right_after_its_ack_is_told_after_the_restart(tmp_path: Path) -> None:
    fake = FakeSlack(bot_token=BOT_TOKEN, app_token=APP_TOKEN, team=TEAM)
    await fake.start()
    first, second = Bot(tmp_path, fake, "first"), Bot(tmp_path, fake, "second")
    db = tmp_path / "bot.db"
    try:
        await first.start()
        async with slack_to(first, fake) as slack:
            await slack.command("packs")  # the learner is known (and the database warm)
            lock = sqlite3.connect(db, isolation_level=None)
            lock.execute("BEGIN IMMEDIATE")  # the bot cannot store the run's row
            try:
                sent = asyncio.create_task(slack.command("run import time; time.sleep(30); print(1)"))
                done, _ = await asyncio.wait({sent}, timeout=0.7)  # the note waits 1 s at most for the row
                assert not done, f"Slack got {sent.result()} before the run's row could be written"
            finally:
                lock.execute("ROLLBACK")
                lock.close()
            status, body = await asyncio.wait_for(sent, 30)
            assert status == 200 and RUNNING in body, body
            assert first.process is not None
            first.process.send_signal(signal.SIGKILL)  # the moment Slack has its 200
            await asyncio.wait_for(first.process.wait(), 60)
        assert [kind for (kind,) in stored(db, "SELECT kind FROM unfinished_work")] == ["run"]
        await second.start()  # a killed process marks nothing: the next start on SQLite marks its row
        async with slack_to(second, fake) as slack:
            shown = shown_count(fake)
            await slack.command("stats")
            await until(lambda: _more(fake, shown), "the reply to /quiz stats", 30)
            await fake.wait_for(lambda: any(RESTARTED in text for text in everything_told(fake)), 30)
    finally:
        await first.stop()
        await second.stop()
        await fake.close()


async def _more(fake: FakeSlack, shown: int) -> bool:
    return shown_count(fake) > shown


async def test_the_run_form_closes_only_once_its_run_is_recorded(tmp_path: Path) -> None:
    fake = FakeSlack(bot_token=BOT_TOKEN, app_token=APP_TOKEN, team=TEAM)
    await fake.start()
    bot = Bot(tmp_path, fake, "bot")
    db = tmp_path / "bot.db"
    try:
        await bot.start()
        async with slack_to(bot, fake) as slack:
            await slack.command("run")  # the Run form opens
            await fake.wait_for(lambda: fake.views, 30)
            lock = sqlite3.connect(db, isolation_level=None)
            lock.execute("BEGIN IMMEDIATE")  # the bot cannot store the run's row
            try:
                sent = asyncio.create_task(slack.submit(fake.views[-1], {"code": "print(6 * 7)"}))
                done, _ = await asyncio.wait({sent}, timeout=1.5)
                assert not done, f"the form was closed ({sent.result()}) before the run's row could be written"
            finally:
                lock.execute("ROLLBACK")
                lock.close()
            status, _body = await asyncio.wait_for(sent, 30)
            assert status == 200
            await fake.wait_for(lambda: any("42" in text for text in everything_told(fake)), 30)
    finally:
        await bot.stop()
        await fake.close()
