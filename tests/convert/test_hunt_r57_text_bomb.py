"""An alias bomb of long texts instead of many values is refused while the YAML is built.

The value budget counts values: one 100 KiB text named by an anchor and repeated through 100
aliases is 200 values, but 20 MB of text once stored (2 MiB of YAML came to 7 GB). The text an
alias repeats is counted each time it is repeated; past 8 MiB the pack is refused at the key.
"""

from __future__ import annotations

import pytest

from bot.core import PackInvalid
from bot.core.packs import load_bytes
from bot.core.packs.yamlpos import YamlProblem, parse


def bomb(repeats: int, size: int = 100 * 1024) -> str:
    text = f'pack: bomb\ntitle: T\nversion: 1\ndescription: &big "{"x" * size}"\nquestions:\n'
    for i in range(repeats):
        text += f"  - {{id: q{i}, type: short, prompt: p, accept: [x], hint: *big, explanation: *big}}\n"
    return text


def test_repeated_long_texts_are_refused_at_the_key() -> None:
    with pytest.raises(PackInvalid) as caught:
        load_bytes("p.yaml", bomb(100).encode())
    assert [str(p) for p in caught.value.problems] == [
        "p.yaml:5:1: `questions` expands to more than 8 MiB of text (each alias repeats all it points at)"
    ]


def test_a_long_text_said_once_and_aliases_within_the_budget_load() -> None:
    assert len(load_bytes("p.yaml", bomb(20).encode()).pack.questions) == 20  # 4 MiB of text
    with pytest.raises(YamlProblem):
        parse(f"a: &a {'x' * 1024 * 1024}\nb: [{', '.join(['*a'] * 8)}]\n")
