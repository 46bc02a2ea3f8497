"""Blanks numbered with a gap ({{1}} and {{3}}, no {{2}}), or from {{0}}.

Such a template loaded: the learner was shown blanks 1 and 3 and left looking for blank 2, which
is what an author gets after deleting a blank without renumbering the rest.
"""

from __future__ import annotations

import pytest

from bot.core import PackInvalid
from bot.core.packs import load_bytes

PACK = """\
pack: gaps
title: Gaps
version: 1
questions:
  - id: b1
    type: blanks
    prompt: Fill the blanks
    code: |
      x = {CODE}
    options: ["a", "b", "c"]
    answers: {ANSWERS}
"""


def problems_of(code: str, answers: str) -> list[str]:
    with pytest.raises(PackInvalid) as caught:
        load_bytes("p.yaml", PACK.replace("{CODE}", code).replace("{ANSWERS}", answers).encode())
    return [str(p) for p in caught.value.problems]


def test_a_gap_in_the_numbers_is_named_at_the_code() -> None:
    assert problems_of("{{1}} + {{3}}", '{1: "a", 3: "b"}') == [
        "p.yaml:8:11: questions[0] (id `b1`).code: the blanks are numbered 1, 3; number them from {{1}} without a gap (no {{2}})"
    ]


def test_numbers_from_zero_are_named_too() -> None:
    assert problems_of("{{0}} + {{1}}", '{0: "a", 1: "b"}') == [
        "p.yaml:8:11: questions[0] (id `b1`).code: the blanks are numbered 0, 1; number them from {{1}} without a gap (no {{2}})"
    ]


def test_repeated_and_unordered_numbers_without_a_gap_load() -> None:
    text = PACK.replace("{CODE}", "{{2}} + {{1}} + {{2}}").replace("{ANSWERS}", '{1: "a", 2: "b"}')
    assert load_bytes("p.yaml", text.encode()).pack.questions[0].id == "b1"
