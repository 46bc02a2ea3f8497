"""Markdown an author types as a plain YAML value gets a message that says to quote it.

A prompt that starts with `` ` ``, `@`, `*bold*`, `- ` or `{x}`, or a double-quoted one holding
`\\d`, is a YAML error; the messages were the parser's ("found character '`' that cannot start
any token"), or wrong ("the quote that opens here is never closed", "this line's indentation does
not fit the lines above it").
"""

from __future__ import annotations

import pytest

from bot.core import PackInvalid
from bot.core.packs import load_bytes
from tests.convert.helpers import one_short_pack

GOOD = one_short_pack("marked")
QUOTE = "put the whole value in quotes"


@pytest.mark.parametrize(
    ("prompt", "where", "message"),
    [
        ("`x` is six", "7:13", f"YAML syntax: a plain value cannot start with '`'; {QUOTE}"),
        ("@user says six", "7:13", f"YAML syntax: a plain value cannot start with '@'; {QUOTE}"),
        ("*bold* six", "7:13", f"YAML syntax: `*` starts an alias here; to start a text with it, {QUOTE}"),
        ("- six", "7:13", f"YAML syntax: `- ` starts a list entry here; to start a text with `-`, {QUOTE}, or check this line's indentation"),
        ("{x} six", "7:17", f"YAML syntax: more text after a value that ended on this line (a closing quote or bracket); {QUOTE}"),
        ('"match \\d+ digits"', "7:20", "YAML syntax: `\\d` is not an escape YAML knows in double quotes; write `\\\\` for a backslash, or use single quotes"),
    ],
)
def test_markdown_in_a_plain_value_says_to_quote_it(prompt: str, where: str, message: str) -> None:
    with pytest.raises(PackInvalid) as caught:
        load_bytes("p.yaml", GOOD.replace("Say six", prompt).encode())
    assert [str(p) for p in caught.value.problems] == [f"p.yaml:{where}: {message}"]
