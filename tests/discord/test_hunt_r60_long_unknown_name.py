"""A very long unknown name filled the whole refusal: the list of names that do exist was cut off.

`/quiz race start topic:<a few thousand characters>` (or `pack:`, on any command) quoted the name in
full, so the reply passed Discord's 4096 characters and was cut before "Available: …", the part
that says what to type instead. Now the quoted name is shortened and the list is always shown.
"""

from __future__ import annotations

from . import payloads as p
from .test_race import RaceBot, racing  # noqa: F401

LONG = "Ab" * 3000  # Discord lets a string option hold 6000 characters


async def test_a_very_long_unknown_name_still_shows_what_exists(racing: RaceBot) -> None:  # noqa: F811
    bot = racing.bot
    topic = await bot.command(p.ALICE, "start", [p.option("topic", LONG)], group="race")
    assert "There is no topic `AbAb" in topic.text() and "`tensors`." in topic.text(), topic.text()[-300:]
    assert "cut to fit" not in topic.text(), topic.text()[-300:]
    pack = await bot.command(p.ALICE, "start", [p.option("pack", LONG)])
    assert "There is no pack `abab" in pack.text() and "`race-pack`" in pack.text(), pack.text()[-300:]
    board = await bot.command(p.ALICE, "leaderboard", [p.option("pack", LONG)])
    assert "`race-pack`" in board.text() and "cut to fit" not in board.text(), board.text()[-300:]
