"""UTF-16 files without a byte order mark, as some Windows tools and scripts write them.

The pack loader and the native-pack sniffer recognise them (a NUL in every other byte), but the
converters read them as UTF-8: a CSV's header became "t y p e , ...", a GIFT file was "not a quiz
file I know", and an Anki export's notes all failed on NUL characters.
"""

from __future__ import annotations

import pytest

from bot.core.convert import convert_bytes

CSV = "type,prompt,answer\nshort,What is six?,6\nshort,Café or tea?,tea\n"
GIFT = "::q1:: Is the sky blue? {T}\n\n::q2:: Pick one {=a ~b}\n"
ANKI = "#separator:tab\nfront one\tback one\nfront two\tback two\n"


@pytest.mark.parametrize("encoding", ["utf-16-le", "utf-16-be"])
@pytest.mark.parametrize(("name", "text", "items"), [("q.csv", CSV, 2), ("q.gift", GIFT, 2), ("q.txt", ANKI, 2)])
def test_utf16_without_a_bom_converts_like_utf8(name: str, text: str, items: int, encoding: str) -> None:
    expected = convert_bytes(name, text.encode("utf-8"))
    conversion = convert_bytes(name, text.encode(encoding))
    assert conversion.ok, conversion.report_lines()
    assert len(conversion.pack["questions"]) == items
    assert conversion.pack["questions"] == expected.pack["questions"]
