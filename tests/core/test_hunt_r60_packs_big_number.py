"""A number too long for Python to read in a pack's YAML.

An author who pastes a long digit string as an answer got Python's own advice back
("use sys.set_int_max_str_digits() to increase the limit"), which no pack author can follow.
"""

from __future__ import annotations

import pytest

from bot.core import PackInvalid
from bot.core.packs import load_bytes
from tests.convert.helpers import one_short_pack


def problems_of(text: str) -> list[str]:
    with pytest.raises(PackInvalid) as caught:
        load_bytes("p.yaml", text.encode())
    return [str(p) for p in caught.value.problems]


def test_a_5000_digit_answer_is_named_at_its_place_in_plain_words() -> None:
    text = one_short_pack("digits").replace('accept: ["6"]', "accept: [" + "7" * 5000 + "]")
    problems = problems_of(text)
    assert len(problems) == 1, problems
    assert problems[0].startswith("p.yaml:8:14: "), problems
    assert "sys." not in problems[0] and "set_int_max_str_digits" not in problems[0]
    assert "5000 digits" in problems[0] and "quotes" in problems[0], problems


def test_the_same_digits_quoted_are_text_and_load() -> None:
    text = one_short_pack("digits").replace('accept: ["6"]', 'accept: ["' + "7" * 5000 + '"]')
    assert load_bytes("p.yaml", text.encode()).pack.questions[0].accept == ["7" * 5000]  # type: ignore[union-attr]
