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
    assert "The bot is restarting; please send that again" in answer.text(), answer.text()
    assert "is starting" not in answer.text()  # it is stopping: no text says it is starting
    assert tracebacks(caplog) == []
    lines = said(caplog)
    assert len(lines) == 1 and "sandbox" in lines[0] and "stopping" in lines[0] and "starting" not in lines[0], lines
    assert sandbox.state == "stopped"


async def test_a_sandbox_pool_that_fails_to_start_is_one_error_line_and_a_plain_refusal(
    start_bot: BotRunner, caplog: pytest.LogCaptureFixture
) -> None:
    """Not the closed pool of a shutdown: the host offers no isolation and none was allowed."""
    from bot.sandbox_client import SandboxRunner
    from sandbox import SandboxConfig

    caplog.set_level(logging.INFO)
    sandbox = SandboxRunner(SandboxConfig(namespaces=False, seccomp=False, allow_no_isolation=False))
    sandbox.start_soon()  # as bot/app.py does at start
    bot = await start_bot.start(runner=sandbox)
    item = (
        await bot.command(p.ALICE, "start", [p.option("pack", "demo"), p.option("difficulty", "hard")])
    ).item()
    form = await bot.click(p.ALICE, item, "Answer")
    answer = await bot.submit(p.ALICE, form.data["custom_id"], RIGHT, message=item)
    assert "the sandbox did not start" in answer.text() and "operator" in answer.text(), answer.text()
    again = await bot.submit(p.ALICE, form.data["custom_id"], RIGHT, message=item)
    assert "the sandbox did not start" in again.text()
    assert sandbox.state == "failed"  # what /readyz names
    await sandbox.close()
    assert not [r for r in caplog.records if r.exc_info is not None]  # no traceback, at any level
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert len(errors) == 1 and errors[0].exc_info is None, [r.getMessage() for r in errors]
    line = errors[0].getMessage()
    assert line.startswith("the sandbox pool did not start: IsolationUnavailable: no namespaces") and "\n" not in line
    assert [r for r in caplog.records if r.levelno >= logging.WARNING and r.name.startswith("bot.")] == errors
