"""A blanks question's options listed twice, or an `also_correct` filling that is wrong.

The models say exactly what is wrong ("option 'a' is listed twice", "entry 0 is the key itself"),
but the validator printed only "`['a', 'a', 'c']` is not allowed here" at the list: the author had
to guess which option, or which filling, and why.
"""

from __future__ import annotations

import pytest

from bot.core import PackInvalid
from bot.core.errors import Problem
from bot.core.i18n import Said
from bot.core.packs import load_bytes

HEAD = """\
pack: blanks-demo
title: Blanks
version: 1
questions:
  - id: b1
    type: blanks
    prompt: Fill the blanks
    code: |
      x = {{1}} + {{2}}
"""


def problems_of(text: str) -> list[Problem]:
    with pytest.raises(PackInvalid) as caught:
        load_bytes("p.yaml", text.encode())
    return list(caught.value.problems)


def test_an_option_listed_twice_is_named_at_the_second_one() -> None:
    text = HEAD + """\
    options:
      - "1"
      - "2"
      - "1"
    answers: {1: "1", 2: "2"}
"""
    problems = problems_of(text)
    assert [str(p) for p in problems] == ["p.yaml:13:9: questions[0] (id `b1`).options[2]: option '1' is listed twice"]
    assert isinstance(problems[0].message, Said)  # said again in the admin's language in the chat


def test_an_also_correct_filling_that_is_the_key_is_named_at_that_filling() -> None:
    text = HEAD + """\
    options: ["1", "2", "3"]
    answers: {1: "1", 2: "2"}
    also_correct:
      - {1: "2", 2: "1"}
      - {1: "1", 2: "2"}
"""
    assert [str(p) for p in problems_of(text)] == [
        "p.yaml:14:9: questions[0] (id `b1`).also_correct[1]: entry 1 is the key itself (`answers`)"
    ]


def test_an_also_correct_filling_with_a_missing_option_says_which() -> None:
    text = HEAD + """\
    options: ["1", "2", "3"]
    answers: {1: "1", 2: "2"}
    also_correct:
      - {1: "2", 2: "9"}
"""
    assert [str(p) for p in problems_of(text)] == [
        "p.yaml:13:9: questions[0] (id `b1`).also_correct[0]: entry 0: `9` (blank 2) is not one of the options"
    ]
