"""A blank, gap or cloze number of thousands of digits is not a blank: no traceback anywhere.

Python refuses to read an integer of more than 4,300 digits; `{{999...}}` in a blanks template
crashed `pack validate`, and `[[999...]]`, `{{c999...::x}}` or a sheet's `{{999...}}` crashed
`pack convert`. A number of at most 9 digits is a blank; a longer one is text.
"""

from __future__ import annotations

import pytest

from bot.core import PackInvalid
from bot.core.convert import convert_bytes
from bot.core.packs import load_bytes

HUGE = "9" * 5000

PACK = f"""\
pack: big-blank
title: Big
version: 1
questions:
  - id: b
    type: blanks
    prompt: Fill
    code: "x = {{{{{HUGE}}}}} + {{{{1}}}}"
    options: [a, b]
    answers: {{1: a}}
"""


def test_a_pack_with_a_huge_blank_number_loads_it_as_text() -> None:
    loaded = load_bytes("p.yaml", PACK.encode())
    assert loaded.pack.questions[0].blanks() == [1]  # type: ignore[union-attr]


def test_a_pack_whose_only_blank_is_huge_is_invalid_not_a_crash() -> None:
    with pytest.raises(PackInvalid):
        load_bytes("p.yaml", PACK.replace(" + {{1}}", "").encode())


@pytest.mark.parametrize(
    ("name", "data"),
    [
        (
            "gaps.xml",
            '<?xml version="1.0"?><quiz><question type="gapselect"><name><text>G</text></name>'
            f'<questiontext format="html"><text>x = [[{HUGE}]] and [[1]]</text></questiontext>'
            "<selectoption><text>a</text><group>1</group></selectoption>"
            "<selectoption><text>b</text><group>1</group></selectoption></question></quiz>",
        ),
        ("cloze.txt", f"#separator:tab\n{{{{c{HUGE}::x}}}} and {{{{c1::y}}}} is\tback\n"),
        ("sheet.csv", f'type,prompt,answer,options\nblanks,"x = {{{{{HUGE}}}}} + {{{{1}}}}",a,a|b\n'),
    ],
)
def test_converting_a_huge_number_is_no_traceback(name: str, data: str) -> None:
    conversion = convert_bytes(name, data.encode(), pack_id="big", title="Big")
    assert conversion.report_lines()
