"""A "New quiz" or "Start new" button pressed twice starts one quiz, not one that the next press throws away.

A double click sends two interactions; a gateway resume replays one. Before, each press stopped the
quiz the press before it had started ("Your previous quiz was stopped; a new one starts") and
started another: the learner answered the question shown first and was told the quiz was stopped.
A press on a button of a quiz that has ended, while a newer quiz runs, now asks as `/quiz start`
does (Resume, or Start new) and changes nothing.
"""

from __future__ import annotations

import copy
from typing import Any

from . import payloads as p
from .conftest import Harness, find_component

ACKNOWLEDGED = {"message": "Interaction has already been acknowledged.", "code": 40060}


async def summary(bot: Harness) -> dict[str, Any]:
    item = (await bot.command(p.ALICE, "start", [p.option("pack", "demo"), p.option("count", 1)])).item()
    return (await bot.click(p.ALICE, item, "Skip")).stored()[-1]


async def test_new_quiz_double_clicked_keeps_the_quiz_the_first_click_started(bot: Harness) -> None:
    shown = copy.deepcopy(await summary(bot))
    first = await bot.click(p.ALICE, shown, "New quiz")
    title = first.item()["embeds"][0]["description"]
    second = await bot.click(p.ALICE, shown, "New quiz")
    assert "previous quiz was stopped" not in second.text(), second.text()
    assert "You have a quiz running" in second.text(), second.text()
    answered = await bot.click(p.ALICE, first.item(), "Skip")  # the question the first click showed still works
    assert "Skipped" in answered.text() and "was stopped" not in answered.text(), answered.text()
    assert title in answered.text()
    bot.assert_all_acknowledged()


async def test_new_quiz_delivered_twice_starts_one_quiz(bot: Harness) -> None:
    shown = await summary(bot)
    click = p.interaction(3, p.component(find_component(shown, "New quiz")["custom_id"], 2), p.ALICE, message=shown)
    first = await bot.feed(copy.deepcopy(click))
    started = first.item()
    bot.fake.fail("POST", rf"^/interactions/{click['id']}/", 400, ACKNOWLEDGED, times=10)
    await bot.feed(copy.deepcopy(click))  # a gateway resume replays it; Discord refuses its answer
    current = await bot.command(p.ALICE, "current")
    assert started["embeds"][0]["description"] in current.text(), current.text()
    skipped = await bot.click(p.ALICE, started, "Skip")
    assert "was stopped" not in skipped.text(), skipped.text()


async def test_start_new_pressed_twice_keeps_the_quiz_the_first_press_started(bot: Harness) -> None:
    await bot.command(p.ALICE, "start", [p.option("pack", "demo")])
    prompt = (await bot.command(p.ALICE, "start", [p.option("pack", "demo"), p.option("count", 2)])).stored()[-1]
    first = await bot.click(p.ALICE, prompt, "Start new")
    assert "Question 1 of 2" in first.text()
    second = await bot.click(p.ALICE, prompt, "Start new")
    assert "previous quiz was stopped" not in second.text(), second.text()
    skipped = await bot.click(p.ALICE, first.item(), "Skip")
    assert "was stopped" not in skipped.text() and "Question 2 of 2" in skipped.text(), skipped.text()
    bot.assert_all_acknowledged()
