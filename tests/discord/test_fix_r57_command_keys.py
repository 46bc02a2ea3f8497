"""A command Discord delivers twice acts once even when the copies reach different bot processes.

The command tree drops a repeated interaction id in its own process only. Now `/quiz skip` and
`/quiz stop` carry the interaction id to the core, which stores it with what the command did: a
copy reaching a process whose tree never saw the id (here: its memory cleared) changes nothing.
"""

from __future__ import annotations

import copy
from typing import Any

from . import payloads as p
from .conftest import Harness

ACKNOWLEDGED = {"message": "Interaction has already been acknowledged.", "code": 40060}


async def elsewhere(bot: Harness, payload: dict[str, object]) -> None:
    """Deliver `payload` again as to another process: its command tree has not seen the id."""
    tree: Any = bot.client.tree
    tree._taken.clear()
    bot.fake.fail("POST", rf"^/interactions/{payload['id']}/", 400, ACKNOWLEDGED, times=10)
    await bot.feed(copy.deepcopy(payload))


async def test_a_skip_command_reaching_another_process_skips_no_other_question(bot: Harness) -> None:
    await bot.command(p.ALICE, "start", [p.option("pack", "demo")])
    skip = p.interaction(2, p.command("skip"), p.ALICE)
    first = await bot.feed(copy.deepcopy(skip))
    assert "Skipped" in first.text() and "Question 2 of 5" in first.text()
    await elsewhere(bot, skip)
    current = await bot.command(p.ALICE, "current")
    assert "Question 2 of 5" in current.text(), current.text()


async def test_a_stop_command_reaching_another_process_leaves_the_new_quiz(bot: Harness) -> None:
    await bot.command(p.ALICE, "start", [p.option("pack", "demo")])
    stop = p.interaction(2, p.command("stop"), p.ALICE)
    assert "Quiz stopped" in (await bot.feed(copy.deepcopy(stop))).text()
    started = await bot.command(p.ALICE, "start", [p.option("pack", "demo"), p.option("count", 2)])
    assert "Question 1 of 2" in started.text()
    await elsewhere(bot, stop)
    current = await bot.command(p.ALICE, "current")
    assert "Question 1 of 2" in current.text(), current.text()
