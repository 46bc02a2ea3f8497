"""`/quiz packs language:` quoted what was typed as is: a bidi override in it flipped the rest of the line.

Every other reply that echoes a typed name strips format characters first (`words.shown`: "a typed
RLO flips the line"); the language filter's "No pack here is written in `…`" did not, so a pasted
U+202E reversed the reply's end and a zero-width space hid in it. Now it echoes what can be seen.
"""

from __future__ import annotations

from . import payloads as p
from .conftest import Harness


async def test_the_language_filter_echoes_no_invisible_characters(bot: Harness) -> None:
    answer = await bot.command(p.ALICE, "packs", [p.option("language", "x\u202ez\u200bq")])
    text = answer.text()
    assert "No pack here is written in `xzq`." in text, repr(text)
    assert "\u202e" not in text and "\u200b" not in text, repr(text)
