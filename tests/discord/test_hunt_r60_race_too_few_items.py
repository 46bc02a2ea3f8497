"""A pack with fewer items than a race's least rounds was told to ask for a number of rounds a race refuses.

`/quiz race start pack:tiny` (two usable items, no `rounds`) said "you asked for 10 rounds. Ask for
2 or fewer rounds" though nobody asked for 10, and `rounds:2` is refused ("rounds must be between
3 and 20"). Now the bot says a race needs at least 3 items and that another pack (or fewer
filters) is the way out.
"""

from __future__ import annotations

from bot.core.packs import load_bytes

from . import payloads as p
from .test_race import EPHEMERAL, RaceBot, racing  # noqa: F401

TINY = """\
pack: tiny
title: Tiny
version: 1
questions:
  - id: one
    type: choice
    prompt: One?
    choices: [{text: "yes", correct: true}, {text: "no"}]
  - id: two
    type: choice
    prompt: Two?
    choices: [{text: "yes", correct: true}, {text: "no"}]
"""


async def test_a_pack_with_two_race_items_is_not_told_to_ask_for_two_rounds(racing: RaceBot) -> None:  # noqa: F811
    bot = racing.bot
    await bot.service.import_pack(load_bytes("tiny.yaml", TINY.encode()).pack)
    for options in ([p.option("pack", "tiny")], [p.option("pack", "tiny"), p.option("rounds", 3)]):
        refused = await bot.command(p.ALICE, "start", options, group="race")
        text = refused.text()
        assert refused.data["flags"] & EPHEMERAL, text
        assert "has 2 items a race can use" in text, text
        assert "at least 3" in text, text
        assert "2 or fewer rounds" not in text and "10 rounds" not in text, text
        too_few = await bot.command(p.ALICE, "start", [p.option("pack", "tiny"), p.option("rounds", 2)], group="race")
        assert "between 3 and 20" in too_few.text(), too_few.text()  # what the old advice led to
