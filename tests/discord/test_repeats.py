"""A click Discord delivers twice (a gateway resume replays it) shows its one grade once.

discord.py drops a replay that comes after the first delivery's reply edited the message (the
clicked button is no longer on it); a replay that comes while the first is being handled reaches
the bot. Both are parsed here before either is handled, as a gateway delivers them back to back.
"""

from __future__ import annotations

import copy
from typing import Any

from . import payloads as p
from .conftest import Answer, Harness, components

CHOICE = "Which flag makes PyTorch track"


async def _choice_item(bot: Harness) -> dict[str, Any]:
    """Start a quiz on the demo pack and skip to its single-choice question."""
    item = (await bot.command(p.ALICE, "start", [p.option("pack", "demo")])).item()
    while CHOICE not in item["embeds"][0]["description"]:
        item = (await bot.click(p.ALICE, item, "Skip")).item()
    return item


async def twice(bot: Harness, payload: dict[str, Any]) -> tuple[Answer, Answer]:
    """Deliver the same interaction twice, back to back; return what the bot did for each."""
    bot.fake.interactions[payload["id"]] = payload
    start = len(bot.fake.calls)
    for _ in range(2):
        bot.client._connection.parsers["INTERACTION_CREATE"](copy.deepcopy(payload))
    await bot.drain()
    calls = bot.fake.calls[start:]
    callbacks = [c for c in calls if c.path.endswith("/callback")]
    assert len(callbacks) == 2, [c.path for c in calls]
    second = next(n for n, c in enumerate(calls) if c is callbacks[1])
    return Answer(payload, calls[:second], bot.fake), Answer(payload, calls[second:], bot.fake)


async def test_an_answer_delivered_twice_shows_its_grade_once_and_counts_once(bot: Harness) -> None:
    item = await _choice_item(bot)
    answer: Any = next(c["custom_id"] for c in components(item) if str(c.get("label", "")).startswith("A."))
    click = p.interaction(3, p.component(answer, 2), p.ALICE, message=item)
    first, again = await twice(bot, click)  # the fake accepts both answers: the second shows what a learner would see
    assert "Correct" in first.text()
    # the grade in place again (it reads the same), nothing new: not "That question was already answered"
    assert again.kind == 7 and not _new_messages(again), again.text()
    assert "Correct" in again.text() and "already answered" not in again.text()
    stats = await bot.command(p.ALICE, "stats")
    assert "**1** attempt" in stats.text(), stats.text()


async def test_a_skip_delivered_twice_moves_on_once(bot: Harness) -> None:
    item = (await bot.command(p.ALICE, "start", [p.option("pack", "demo")])).item()
    skip: Any = next(c["custom_id"] for c in components(item) if c.get("label") == "Skip")
    click = p.interaction(3, p.component(skip, 2), p.ALICE, message=item)
    first, again = await twice(bot, click)
    assert "Skipped" in first.text() and "Question 2 of 5" in first.text()
    assert again.kind == 7 and not _new_messages(again), again.text()  # "Skipped" in place; no second next item
    assert "Question 2 of 5" not in again.text()
    current = await bot.command(p.ALICE, "current")
    assert "Question 2 of 5" in current.text()  # not skipped twice


def _new_messages(answer: Answer) -> list[str]:
    """The paths of the calls that post a message (an interaction's own answer or a follow-up), not edits."""
    return [c.path for c in answer.calls if c.method == "POST" and (c.path.startswith("/webhooks/") or c.body.get("type") == 4)]
