"""A key that is not text inside a question (`1: x`, `2.5: y`), as a stray line or a paste leaves.

At the top level it was named as an unknown key; inside a question, whose type pydantic names in
the error's location, the validator crashed with a KeyError (a traceback from `pack validate`,
no answer in the chat) instead of naming the line.
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


def test_a_number_key_in_a_question_is_an_unknown_key_at_its_line() -> None:
    text = one_short_pack("keys").replace("    prompt: Say six\n", "    prompt: Say six\n    1: stray\n")
    problems = problems_of(text)
    assert len(problems) == 1, problems
    assert problems[0].startswith("p.yaml:8:5: questions[0] (id `one`): unknown key `1`"), problems


def test_a_number_key_in_a_choice_is_named_too() -> None:
    text = one_short_pack("keys").replace("type: short", "type: choice").replace(
        'accept: ["6"]', "choices:\n      - {text: a, correct: true}\n      - {text: b, 2.5: x}"
    )
    problems = problems_of(text)
    assert len(problems) == 1, problems
    assert problems[0].startswith("p.yaml:10:19: questions[0] (id `one`).choices[1]: unknown key `2.5`"), problems


def test_a_number_key_in_a_numbers_spec_is_named_too() -> None:
    text = one_short_pack("keys").replace('accept: ["6"]', "number: {value: 6, 3: 4}")
    problems = problems_of(text)
    assert len(problems) == 1, problems
    assert problems[0].startswith("p.yaml:8:24: questions[0] (id `one`).number: unknown key `3`"), problems
