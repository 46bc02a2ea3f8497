"""An admin's upload that is neither a pack nor a quiz file the bot can convert.

`/quiz pack load` with such a file answered with the command line's words: "name one with
--format if the file is one of them". There is no `--format` in the chat (the command has a file
and `force`, nothing else), so the admin was told to do what they cannot. The chat now says what
it can load, and nothing about the command line, in the admin's language too.
"""

from __future__ import annotations

from . import payloads as p
from .conftest import Harness
from .test_admin import load

NOTES = b"Just some notes about tensors.\nNothing quiz-like here.\n"


async def test_an_unknown_file_is_refused_without_naming_a_command_line_option(bot: Harness) -> None:
    answer = await load(bot, p.ADMIN, "notes.txt", NOTES)
    text = answer.text()
    assert "--format" not in text, text
    assert "`notes.txt`" in text and "GIFT" in text and "Moodle XML" in text, text
    assert "`.yaml`" in text, text  # what a pack is, for an admin who meant to load one
    packs = await bot.command(p.ALICE, "packs")
    assert "notes" not in packs.text()


async def test_a_yaml_file_that_is_no_pack_is_refused_in_the_admins_language(bot: Harness) -> None:
    url = bot.fake.add_file("liste.yaml", b"- 1\n- 2\n")
    att_id = p.snowflake()
    resolved = {"attachments": {att_id: p.attachment(att_id, "liste.yaml", url, 8)}}
    answer = await bot.command(
        p.ADMIN, "load", [{"name": "file", "type": 11, "value": att_id}], group="pack", resolved=resolved, locale="de"
    )
    text = answer.text()
    assert "--format" not in text and "`liste.yaml`" in text, text
    assert "neither a pack" not in text and "weder ein Paket" in text, text  # German, as the admin's client
