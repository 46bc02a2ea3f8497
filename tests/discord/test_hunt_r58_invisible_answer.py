"""A short answer carrying an invisible character (a zero-width space, a word joiner, a BOM).

Text copied from a chat message or a web page often brings a zero-width space along, which no one
can see in the form. `6` followed by U+200B was graded wrong, and the learner, looking at a plain
`6`, lost an attempt without any way to tell why. Invisible characters are not part of the answer.
"""

from __future__ import annotations

import copy

import pytest

from . import payloads as p
from .conftest import Harness, components


async def short_item(bot: Harness) -> dict[str, object]:
    started = await bot.command(p.ALICE, "start", [p.option("pack", "demo"), p.option("difficulty", "easy"), p.option("count", 2)])
    item = started.item()
    if components(item)[0]["label"] != "Answer":  # the choice first: answer it to reach the short one
        item = (await bot.click(p.ALICE, item, components(item)[0]["custom_id"])).item()
    return copy.deepcopy(item)


@pytest.mark.parametrize("typed", ["6\u200b", "\ufeff6", "\u20606\u2060", "6\u200d"])
async def test_an_invisible_character_around_a_right_answer_leaves_it_right(bot: Harness, typed: str) -> None:
    item = await short_item(bot)
    form = await bot.click(p.ALICE, item, "Answer")
    graded = await bot.submit(p.ALICE, form.data["custom_id"], typed, message=item)
    assert "Correct" in graded.text(), graded.text()


async def test_a_wrong_answer_with_an_invisible_character_is_still_wrong(bot: Harness) -> None:
    item = await short_item(bot)
    form = await bot.click(p.ALICE, item, "Answer")
    graded = await bot.submit(p.ALICE, form.data["custom_id"], "7\u200b", message=item)
    assert "Not quite" in graded.text(), graded.text()
