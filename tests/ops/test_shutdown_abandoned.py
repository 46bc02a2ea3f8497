"""Grading that outlives the shutdown grace is not dropped: the next process tells the learner to send it again.

`quizbot run` runs in a subprocess (real sandbox pool, SQLite) against the fake Slack Web API with
QUIZBOT_SHUTDOWN_GRACE_S=1 and grades code that sleeps far longer. After SIGTERM a second process
on the same database receives the learner's next action; its reply carries the restarted note, and
the database holds no attempt for the abandoned answer. A SIGKILL variant leaves the row unmarked:
the next process tells the learner once its deadline has passed.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sqlite3
import sys
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from tests.conftest import DEMO_PACK
from tests.ops.services import free_port, uid_base
from tests.ops.test_shutdown import get, metric, until
from tests.slack.conftest import APP_TOKEN, BOT_TOKEN, LEARNER, SIGNING_SECRET, TEAM, Slack, block_text, dm
from tests.slack.fake_slack import FakeSlack

SLEEPY_SOLUTION = "import time\ntime.sleep(30)\ntotal = sum(range(1, 11))\nprint(total)\n"
NOTE = "The bot restarted before it finished grading your answer to"
GRACE_S = 1.0


class Bot:
    """One `quizbot run` process on the shared database, with its own Slack and metrics ports."""

    def __init__(self, tmp_path: Path, fake: FakeSlack, name: str) -> None:
        self.port, self.metrics_port = free_port(), free_port()
        self.log_path = tmp_path / f"{name}.log"
        self.metrics_url = f"http://127.0.0.1:{self.metrics_port}"
        self.env = {
            **{k: v for k, v in os.environ.items() if not k.startswith(("QUIZBOT_", "SLACK_", "DISCORD_"))},
            "SLACK_BOT_TOKEN": BOT_TOKEN,
            "SLACK_SIGNING_SECRET": SIGNING_SECRET,
            "SLACK_API_URL": fake.api_url,
            "SLACK_PORT": str(self.port),
            "QUIZBOT_DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path / 'bot.db'}",
            "QUIZBOT_PACKS": str(DEMO_PACK),
            "QUIZBOT_METRICS_PORT": str(self.metrics_port),
            "QUIZBOT_METRICS_HOST": "127.0.0.1",
            "QUIZBOT_SHUTDOWN_GRACE_S": str(GRACE_S),
            "QUIZBOT_SANDBOX_WORKERS": "1",
            "QUIZBOT_SANDBOX_MEMORY_MB": "256",
            "QUIZBOT_SANDBOX_WALL_S": "60",  # the job would run its 30 s: only the shutdown cuts it off
            "QUIZBOT_SANDBOX_WARM_OPTIMIZERS": "false",
            "QUIZBOT_SANDBOX_UID_BASE": str(uid_base(self.port)),
        }
        self.cwd = tmp_path
        self.process: asyncio.subprocess.Process | None = None

    async def start(self) -> None:
        with self.log_path.open("wb") as log:
            self.process = await asyncio.create_subprocess_exec(
                sys.executable, "-c", "import sys; from bot.cli import main; sys.exit(main(['run']))",
                cwd=self.cwd, env=self.env, stdout=log, stderr=log,
            )

        async def ready() -> bool:
            assert self.process is not None and self.process.returncode is None, self.log()
            return (await get(f"{self.metrics_url}/readyz"))[0] == 200

        await until(ready, "the bot to be ready (database and sandbox)")

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    async def grading(self) -> bool:
        return metric((await get(f"{self.metrics_url}/metrics"))[1], "quizbot_sandbox_inflight") >= 1

    async def stop(self) -> None:
        if self.process is not None and self.process.returncode is None:
            self.process.kill()
            await self.process.wait()


@asynccontextmanager
async def slack_to(bot: Bot, fake: FakeSlack) -> AsyncIterator[Slack]:
    async with aiohttp.ClientSession() as http:
        yield Slack(http, f"http://127.0.0.1:{bot.port}/slack/events", fake, None)


def everything_told(fake: FakeSlack) -> list[str]:
    """Every message the learner was shown (posts as last edited, ephemerals, command responses), as text."""
    shown: list[dict[str, Any]] = [*fake.messages.values(), *fake.ephemerals, *fake.responses]
    return [block_text(m.get("blocks") or []) + "\n" + str(m.get("text", "")) for m in shown]


def notes_shown(fake: FakeSlack) -> int:
    return sum(NOTE in text for text in everything_told(fake))


def shown_count(fake: FakeSlack) -> int:
    return len(fake.messages) + len(fake.ephemerals) + len(fake.responses)


def stored(db: Path, query: str) -> list[tuple[Any, ...]]:
    with sqlite3.connect(db) as c:
        return list(c.execute(query))


async def grade_sleepy_code(bot: Bot, fake: FakeSlack) -> None:
    """Start a one-item code quiz and send code that sleeps; return once the sandbox runs it."""
    async with slack_to(bot, fake) as slack:
        await slack.command("start demo difficulty:hard count:1")
        await fake.wait_for(lambda: fake.posts(dm(LEARNER)), 30)
        status, _ = await slack.message(f"```python\n{SLEEPY_SOLUTION}```")
        assert status == 200
    await until(bot.grading, "the code to reach the sandbox", 30)


@pytest.mark.parametrize("how", ["sigterm", "sigkill"])
async def test_grading_cut_off_by_a_restart_is_answered_by_the_next_process(tmp_path: Path, how: str) -> None:
    fake = FakeSlack(bot_token=BOT_TOKEN, app_token=APP_TOKEN, team=TEAM)
    await fake.start()
    first, second = Bot(tmp_path, fake, "first"), Bot(tmp_path, fake, "second")
    db = tmp_path / "bot.db"
    try:
        await first.start()
        await grade_sleepy_code(first, fake)
        assert first.process is not None
        signalled = time.monotonic()
        first.process.send_signal(signal.SIGTERM if how == "sigterm" else signal.SIGKILL)
        code = await asyncio.wait_for(first.process.wait(), 60)
        took = time.monotonic() - signalled
        rows = stored(db, "SELECT kind, title, deadline FROM unfinished_work")
        assert len(rows) == 1 and rows[0][0] == "grade", rows
        if how == "sigterm":
            assert code == 0, first.log()
            # the sleeping job (30 s) is not waited for: the process ends soon after the grace
            assert took < 20, f"exit took {took:.1f} s\n{first.log()}"
            assert "were cancelled" in first.log() and "were abandoned" in first.log(), first.log()
        else:  # a killed process marks nothing: its row counts as abandoned once its deadline passes
            with sqlite3.connect(db) as c:
                c.execute("UPDATE unfinished_work SET deadline = '2000-01-01 00:00:00.000000'")
        assert notes_shown(fake) == 0
        assert stored(db, "SELECT count(*) FROM attempts") == [(0,)]

        await second.start()
        async with slack_to(second, fake) as slack:
            await slack.command("current")
            await fake.wait_for(lambda: notes_shown(fake) > 0, 30)
            assert notes_shown(fake) == 1
            note = next(text for text in everything_told(fake) if NOTE in text)
            assert "Define total as the sum" in note and "please send it again" in note, note
            shown = shown_count(fake)
            await slack.command("current")  # its reply, the item alone, comes after any note it would carry
            await fake.wait_for(lambda: shown_count(fake) > shown, 30)
            assert notes_shown(fake) == 1  # told once
        assert stored(db, "SELECT count(*) FROM attempts") == [(0,)]  # no attempt used for it
        assert stored(db, "SELECT count(*) FROM unfinished_work") == [(0,)]
        session = stored(db, "SELECT status, position FROM sessions")
        assert session == [("active", 0)], session
    finally:
        await first.stop()
        await second.stop()
        await fake.close()
