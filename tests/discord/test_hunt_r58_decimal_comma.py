"""A number typed with a decimal comma, as German and Spanish learners write one.

The bot speaks German and Spanish, but read every comma in a number as a thousands separator:
`2,5` was 25. A German learner answering `2,5` to "what is 5 / 2?" was told it was wrong (and
lost an attempt), and `6,0` for six was wrong too; worse, `2,5` was right where the answer was 25.
A comma followed by other than three digits is a decimal comma in any language; `1,234` (three
digits) is 1.234 for a learner whose language writes decimals with a comma, and 1234 otherwise.
"""

from __future__ import annotations

import copy

from bot.core.packs import load_bytes

from . import payloads as p
from .conftest import Harness, components

PACK = """\
pack: numbers
title: Numbers
version: 1
questions:
  - id: half
    type: short
    prompt: What is 5 / 2?
    number: {value: 2.5, tolerance: 0}
  - id: quarter-hundred
    type: short
    prompt: What is 5 * 5?
    number: {value: 25, tolerance: 0}
  - id: thousand-ish
    type: short
    prompt: What is 1234 / 1000?
    number: {value: 1.234, tolerance: 0}
  - id: listed
    type: short
    prompt: What is 10 / 4?
    accept: ["2.5"]
"""


async def answer(bot: Harness, question: str, text: str, locale: str) -> str:
    """Start a one-question quiz of `question` and answer it in its form; return what the learner was told."""
    started = await bot.command(p.ALICE, "start", [p.option("pack", "numbers"), p.option("count", 1)], locale=locale)
    item = started.item()
    while question not in item["embeds"][0]["description"]:
        await bot.command(p.ALICE, "stop", locale=locale)
        item = (await bot.command(p.ALICE, "start", [p.option("pack", "numbers"), p.option("count", 1)], locale=locale)).item()
    shown = copy.deepcopy(item)
    form = await bot.click(p.ALICE, shown, components(shown)[0]["custom_id"], locale=locale)
    graded = await bot.submit(p.ALICE, form.data["custom_id"], text, message=shown, locale=locale)
    await bot.command(p.ALICE, "stop", locale=locale)  # a wrong answer leaves attempts: the next start must not ask
    return graded.text()


RIGHT = {"de": "Richtig", "es": "Correcto", "en-US": "Correct"}


async def loaded(bot: Harness) -> Harness:
    await bot.service.import_pack(load_bytes("numbers.yaml", PACK.encode()).pack)
    return bot


async def test_a_german_learners_decimal_comma_is_a_decimal_point(bot: Harness) -> None:
    await loaded(bot)
    assert RIGHT["de"] in await answer(bot, "5 / 2", "2,5", "de")
    assert RIGHT["de"] not in await answer(bot, "5 * 5", "2,5", "de")  # not 25
    assert RIGHT["de"] in await answer(bot, "1234 / 1000", "1,234", "de")


async def test_a_spanish_learners_decimal_comma_matches_an_accepted_number(bot: Harness) -> None:
    await loaded(bot)
    assert RIGHT["es"] in await answer(bot, "10 / 4", "2,5", "es-ES")


async def test_in_english_a_comma_before_three_digits_still_groups_thousands(bot: Harness) -> None:
    await loaded(bot)
    assert RIGHT["en-US"] not in await answer(bot, "1234 / 1000", "1,234", "en-US")
    assert RIGHT["en-US"] in await answer(bot, "5 / 2", "2,5", "en-US")  # no one writes 25 as 2,5

