"""Crafted files of 1 MB convert or are refused in linear time.

Each of these took from 30 s to several minutes before (format detection on a file of blank lines or of
`a:` lines, short-answer de-duplication, Anki's cloze pattern). The bound below is CPU time, five
times the issue's 2 s, so a busy machine does not fail it while a quadratic pass still does:
bench/convert_bench.py prints the real figures.
"""

from __future__ import annotations

import contextlib
import time

import pytest

from bot.core.convert import ConvertError, convert_bytes

MB = 1024 * 1024
CPU_BUDGET_S = 10.0


def _crafted() -> dict[str, tuple[str, bytes]]:
    answers = b"".join(b"=a%d " % i for i in range(MB // 9))
    cloze_field = b"{{c1::" * (120_000 // 6)  # a field under the csv module's 128 KiB cap
    return {
        "newlines": ("blank.txt", b"\n" * MB),
        "colon-lines": ("colons.txt", b"a:\n" * (MB // 3)),
        "colon-blank-lines": ("colons2.txt", b"a:" + b"\n" * MB),
        "category-marks": ("marks.txt", b" \n" * (MB // 2)),
        "gift-answers": ("answers.gift", b"::q::Which? {" + answers[: MB - 20] + b"}\n"),
        "cloze-unclosed": ("cloze.txt", b"#separator:tab\n" + (cloze_field + b"\tback\n") * 8),
        "cloze-many": ("cloze2.txt", b"#separator:tab\n" + (b"{{c1::x}} " * 11_000 + b"\tback\n") * 9),
        "anki-tabs": ("tabs.txt", b"a\tb\n" * (MB // 4)),
    }


CRAFTED = _crafted()


@pytest.mark.parametrize("name", sorted(CRAFTED))
def test_a_crafted_megabyte_converts_or_is_refused_in_linear_time(name: str) -> None:
    filename, data = CRAFTED[name]
    assert len(data) <= 1.1 * MB
    started = time.process_time()
    with contextlib.suppress(ConvertError):
        convert_bytes(filename, data)
    spent = time.process_time() - started
    assert spent < CPU_BUDGET_S, f"{name}: {spent:.1f} s of CPU for 1 MB"
