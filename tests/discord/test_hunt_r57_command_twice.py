"""A command Discord delivers twice (a gateway resume replays it) acts once.

A click carries its interaction id to the core, which counts a repeat once; a command did not, so a
replayed `/quiz skip` skipped the question the learner was just shown as well (they never see it
again: their next click on it says it was skipped). Discord refuses the repeat's answer, so the
learner is told nothing; the bot logs one line and changes nothing.
"""

from __future__ import annotations

import copy
import logging

import pytest

from . import payloads as p
from .conftest import Harness

ACKNOWLEDGED = {"message": "Interaction has already been acknowledged.", "code": 40060}


async def replay(bot: Harness, payload: dict[str, object]) -> None:
    """Deliver `payload` again, as a gateway resume does; Discord refuses a second answer to it."""
    bot.fake.fail("POST", rf"^/interactions/{payload['id']}/", 400, ACKNOWLEDGED, times=10)
    await bot.feed(copy.deepcopy(payload))


async def test_a_skip_command_delivered_twice_skips_one_question(bot: Harness, caplog: pytest.LogCaptureFixture) -> None:
    await bot.command(p.ALICE, "start", [p.option("pack", "demo")])
    skip = p.interaction(2, p.command("skip"), p.ALICE)
    first = await bot.feed(copy.deepcopy(skip))
    assert "Skipped" in first.text() and "Question 2 of 5" in first.text()
    caplog.set_level(logging.INFO)
    await replay(bot, skip)
    current = await bot.command(p.ALICE, "current")
    assert "Question 2 of 5" in current.text(), current.text()  # the question the learner was shown
    lines = [r.getMessage() for r in caplog.records if r.name.startswith("bot.") and r.levelno >= logging.WARNING]
    assert len(lines) == 1 and "already answered" in lines[0], lines
    assert not [r for r in caplog.records if r.exc_info is not None]


async def test_a_stop_command_delivered_twice_while_a_new_quiz_starts_leaves_the_new_one(bot: Harness) -> None:
    await bot.command(p.ALICE, "start", [p.option("pack", "demo")])
    stop = p.interaction(2, p.command("stop"), p.ALICE)
    assert "Quiz stopped" in (await bot.feed(copy.deepcopy(stop))).text()
    started = await bot.command(p.ALICE, "start", [p.option("pack", "demo"), p.option("count", 2)])
    assert "Question 1 of 2" in started.text()
    await replay(bot, stop)  # the resume replays the stop after the learner started again
    current = await bot.command(p.ALICE, "current")
    assert "Question 1 of 2" in current.text(), current.text()
