"""SIGTERM while a learner's code is being graded: the bot finishes, delivers the grade, then exits.

The bot runs as `quizbot run` in a subprocess (real sandbox pool, SQLite) against the fake Slack
Web API; the test signs and sends Slack's requests to the bot's HTTP port.
"""

from __future__ import annotations

import asyncio
import os
import re
import signal
import sys
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from bot.core.packs import load_path
from bot.shutdown import RESTARTING, Drain, finish_work
from tests.conftest import DEMO_PACK
from tests.ops.services import TOKEN, Service, free_port, uid_base
from tests.slack.conftest import (
    APP_TOKEN,
    BOT_TOKEN,
    LEARNER,
    SIGNING_SECRET,
    TEAM,
    Slack,
    block_text,
    dm,
    make_service,
)
from tests.slack.fake_slack import FakeSlack

SLOW_SOLUTION = "import time\ntime.sleep(2)\ntotal = sum(range(1, 11))\nprint(total)\n"


async def get(url: str) -> tuple[int, str]:
    try:
        async with aiohttp.ClientSession() as http, http.get(url, timeout=aiohttp.ClientTimeout(total=5)) as response:
            return response.status, await response.text()
    except (aiohttp.ClientError, TimeoutError):
        return 0, ""


async def until(check: object, what: str, timeout: float = 120.0) -> None:
    async def loop() -> None:
        while not await check():  # type: ignore[operator]
            await asyncio.sleep(0.1)

    try:
        await asyncio.wait_for(loop(), timeout)
    except TimeoutError:
        raise AssertionError(f"timed out waiting for {what}") from None


def metric(text: str, name: str) -> float:
    match = re.search(rf"^{re.escape(name)} (\S+)$", text, re.MULTILINE)
    return float(match.group(1)) if match else 0.0


@pytest.mark.parametrize("sandbox", ["local", "service"])
async def test_sigterm_during_grading_still_delivers_the_grade(tmp_path: Path, sandbox: str) -> None:
    service = Service(tmp_path / "service.log") if sandbox == "service" else None
    fake = FakeSlack(bot_token=BOT_TOKEN, app_token=APP_TOKEN, team=TEAM)
    await fake.start()
    port, metrics_port = free_port(), free_port()
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("QUIZBOT_", "SLACK_", "DISCORD_"))},
        "SLACK_BOT_TOKEN": BOT_TOKEN,
        "SLACK_SIGNING_SECRET": SIGNING_SECRET,
        "SLACK_API_URL": fake.api_url,
        "SLACK_PORT": str(port),
        "QUIZBOT_DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path / 'bot.db'}",
        "QUIZBOT_PACKS": str(DEMO_PACK),
        "QUIZBOT_METRICS_PORT": str(metrics_port),
        "QUIZBOT_METRICS_HOST": "127.0.0.1",
        "QUIZBOT_LOG_FORMAT": "json",
        "QUIZBOT_SANDBOX_WORKERS": "1",
        "QUIZBOT_SANDBOX_MEMORY_MB": "256",
        "QUIZBOT_SANDBOX_WARM_OPTIMIZERS": "false",
        "QUIZBOT_SANDBOX_UID_BASE": str(uid_base(port)),
    }
    if service is not None:  # the bot grades through the sandbox service, not a pool of its own
        env |= {"QUIZBOT_SANDBOX_URLS": service.url, "QUIZBOT_SANDBOX_TOKEN": TOKEN}
        await asyncio.to_thread(service.wait_ready)
    log_path = tmp_path / "bot.log"
    with log_path.open("wb") as log:
        bot = await asyncio.create_subprocess_exec(
            sys.executable, "-c", "import sys; from bot.cli import main; sys.exit(main(['run']))",
            cwd=tmp_path, env=env, stdout=log, stderr=log,
        )
    metrics_url = f"http://127.0.0.1:{metrics_port}"
    try:
        async def ready() -> bool:
            assert bot.returncode is None, log_path.read_text()
            return (await get(f"{metrics_url}/readyz"))[0] == 200

        await until(ready, "the bot to be ready (database and sandbox)")
        # The start proved the demo pack on the service: count only the jobs from here on.
        before = 0.0
        if service is not None:
            before = await asyncio.to_thread(service.metric, "quizbot_sandbox_service_jobs_total", '{status="passed"}')
        async with aiohttp.ClientSession() as http:
            slack = Slack(http, f"http://127.0.0.1:{port}/slack/events", fake, None)
            await slack.command("start demo difficulty:hard count:1")
            channel = dm(LEARNER)
            await fake.wait_for(lambda: fake.posts(channel), 30)
            item_ts = next(ts for (ch, ts) in fake.messages if ch == channel)
            status, _ = await slack.message(f"```python\n{SLOW_SOLUTION}```")
            assert status == 200

            async def grading() -> bool:
                return metric((await get(f"{metrics_url}/metrics"))[1], "quizbot_sandbox_inflight") >= 1

            await until(grading, "the code to reach the sandbox", 30)
            bot.send_signal(signal.SIGTERM)
            code = await asyncio.wait_for(bot.wait(), 60)
        assert code == 0, log_path.read_text()
        # the grade is shown in the item itself (edited), the summary after it
        after = [m for (ch, ts), m in fake.messages.items() if ch == channel and float(ts) >= float(item_ts)]
        feedback = "\n".join(block_text(m.get("blocks", [])) for m in after)
        assert "*Correct!*" in feedback and "*2 of 2 tests passed*" in feedback, log_path.read_text()
        lines = log_path.read_text().splitlines()
        assert any('"message": "stopping: no new work' in line for line in lines)  # JSON-lines logs
        assert BOT_TOKEN not in log_path.read_text() and SIGNING_SECRET not in log_path.read_text()
        if service is not None:
            assert TOKEN not in log_path.read_text()
            jobs = await asyncio.to_thread(service.metric, "quizbot_sandbox_service_jobs_total", '{status="passed"}')
            assert jobs - before == 1
    finally:
        if bot.returncode is None:
            bot.kill()
            await bot.wait()
        await fake.close()
        if service is not None:
            service.stop()


async def test_draining_answers_new_work_with_restarting_and_waits_for_work_in_flight(
    open_slack: Any, repository: Any, runner: Any, clock: Any
) -> None:
    service = make_service(repository, runner, clock)
    await service.import_pack(load_path(DEMO_PACK).pack)
    drain = Drain()
    service.use(drain)
    async with open_slack(service) as slack:
        await slack.command("start demo difficulty:hard count:1")
        channel = dm(LEARNER)
        answered = asyncio.create_task(slack.message(f"```python\n{SLOW_SOLUTION}```"))
        while drain.inflight == 0:
            await asyncio.sleep(0.02)
        assert await finish_work(drain, 30) is True
        assert drain.inflight == 0
        await answered
        assert "*1 of 1 right*" in block_text(slack.fake.posts(channel)[-1]["blocks"])
        await slack.command("stats")
        told = slack.fake.ephemerals + slack.fake.responses
        assert any(RESTARTING in block_text(m.get("blocks", [])) + str(m.get("text", "")) for m in told)
