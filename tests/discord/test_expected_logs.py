"""Expected conditions are one INFO or WARNING line in the log, never a traceback."""

from __future__ import annotations

import copy
import logging
from typing import Any

import pytest

from . import payloads as p
from .conftest import BotRunner, Harness, components

RIGHT = "```python\ntotal = sum(range(1, 11))\nprint(total)\n```"
ACKNOWLEDGED = {"message": "Interaction has already been acknowledged.", "code": 40060}


def tracebacks(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.exc_info is not None or r.levelno >= logging.ERROR]


def said(caplog: pytest.LogCaptureFixture) -> list[str]:
    """The bot's own WARNING-or-worse lines."""
    return [r.getMessage() for r in caplog.records if r.name.startswith("bot.") and r.levelno >= logging.WARNING]


async def test_an_interaction_delivered_twice_logs_one_warning_and_no_traceback(
    bot: Harness, caplog: pytest.LogCaptureFixture
) -> None:
    item = (await bot.command(p.ALICE, "start", [p.option("pack", "demo")])).item()
    skip: Any = next(c["custom_id"] for c in components(item) if c.get("label") == "Skip")
    click = copy.deepcopy(p.interaction(3, p.component(skip, 2), p.ALICE, message=item))
    first = await bot.feed(copy.deepcopy(click))
    assert "Skipped" in first.text()
    # The same interaction arrives again (a gateway resume replays it); Discord refuses a second answer.
    bot.fake.fail("POST", rf"^/interactions/{click['id']}/", 400, ACKNOWLEDGED, times=10)
    caplog.clear()
    caplog.set_level(logging.INFO)
    await bot.feed(copy.deepcopy(click))
    assert tracebacks(caplog) == []
    lines = said(caplog)
    assert len(lines) == 1 and "already answered" in lines[0], lines


async def test_code_sent_while_the_sandbox_is_not_running_tells_the_learner_to_send_it_again(
    start_bot: BotRunner, caplog: pytest.LogCaptureFixture
) -> None:
    """The process is between two lives: its sandbox pool is not running (closed before it started)."""
    from bot.sandbox_client import SandboxRunner
    from sandbox import SandboxConfig

    sandbox = SandboxRunner(SandboxConfig())
    await sandbox.close()
    bot = await start_bot.start(runner=sandbox)
    item = (
        await bot.command(p.ALICE, "start", [p.option("pack", "demo"), p.option("difficulty", "hard")])
    ).item()
    form = await bot.click(p.ALICE, item, "Answer")
    caplog.clear()
    caplog.set_level(logging.INFO)
    answer = await bot.submit(p.ALICE, form.data["custom_id"], RIGHT, message=item)
    assert "starting" in answer.text() and "send that again" in answer.text(), answer.text()
    assert tracebacks(caplog) == []
    lines = said(caplog)
    assert len(lines) == 1 and "sandbox" in lines[0], lines
