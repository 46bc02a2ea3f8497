"""Turn CodeRunner test cases into a unittest module for the sandbox grader.

Each case runs the learner's answer followed by the case's test code, as CodeRunner's python3
template does, with the case's standard input, and compares what it prints with the expected
output after trimming trailing white space on each line (CodeRunner's default comparison).
"""

from __future__ import annotations

from dataclasses import dataclass

_HEAD = '''"""Tests converted from a CodeRunner question.

Each case runs the answer (`user_code.py`) followed by the case's test code, with the case's
standard input, and compares what it prints with the expected output.
"""

# Question: {name}

import contextlib
import importlib.util
import io
import sys
import unittest
from pathlib import Path

# (label, test code, standard input, expected output, shown to the learner)
CASES = [
'''

_TAIL = ''']


def _answer():
    spec = importlib.util.find_spec("user_code")
    return Path(spec.origin).read_text(encoding="utf-8")


def _run(source, stdin):
    printed = io.StringIO()
    saved = sys.stdin
    sys.stdin = io.StringIO(stdin)
    try:
        with contextlib.redirect_stdout(printed):
            try:
                exec(compile(source, "user_code.py", "exec"), {"__name__": "__main__"})
            except SystemExit:
                pass
    finally:
        sys.stdin = saved
    return printed.getvalue()


def _tidy(text):
    return "\\n".join(line.rstrip() for line in text.rstrip().splitlines())


def _short(text):
    text = _tidy(text)
    return text if len(text) <= 200 else text[:199] + "..."


class TestCases(unittest.TestCase):
    def _case(self, index):
        label, code, stdin, expected, shown = CASES[index]
        name = f"Test {index + 1}: `{label}`" if shown else f"Hidden test {index + 1}"
        try:
            got = _run(_answer() + "\\n" + code, stdin)
        except Exception as exc:
            self._testMethodName = f"{name} stops with {type(exc).__name__}."
            self.fail(f"{type(exc).__name__}: {exc}" if shown else "the code raised an error")
        if _tidy(got) == _tidy(expected):
            self._testMethodName = f"{name} prints the expected output."
            return
        self._testMethodName = f"{name} prints the wrong output."
        if shown:
            self.fail(f"printed {_short(got)!r}, expected {_short(expected)!r}")
        self.fail("the output differs from the expected one")


def _make(index):
    def test(self):
        self._case(index)

    return test


for _index in range(len(CASES)):
    setattr(TestCases, f"test_{_index + 1:03d}", _make(_index))
'''


@dataclass(frozen=True)
class Case:
    code: str
    stdin: str
    expected: str
    shown: bool


def _label(case: Case) -> str:
    first = next((line.strip() for line in case.code.splitlines() if line.strip()), "")
    if not first:
        first = "input " + (next((line.strip() for line in case.stdin.splitlines() if line.strip()), "(none)"))
    first = first.replace("`", "'")
    return first if len(first) <= 60 else first[:59] + "…"


def unittest_module(name: str, cases: list[Case]) -> str:
    """Return the text of a unittest module that checks `cases` against `user_code`."""
    rows = "".join(
        f"    ({_label(c)!r}, {c.code!r}, {c.stdin!r}, {c.expected!r}, {c.shown!r}),\n" for c in cases
    )
    one_line = " ".join(name.split()) or "(no name)"
    return _HEAD.format(name=one_line) + rows + _TAIL


def examples(cases: list[Case], limit: int = 3) -> str:
    """Show the cases marked as examples the way CodeRunner's 'For example' table does, in Markdown."""
    parts: list[str] = []
    for case in cases[:limit]:
        block = f"```python\n{case.code.rstrip()}\n```\n" if case.code.strip() else ""
        given = f"with the input\n```\n{case.stdin.rstrip()}\n```\n" if case.stdin.strip() else ""
        parts.append(f"{block}{given}prints\n```\n{case.expected.rstrip()}\n```")
    return "For example:\n\n" + "\n\n".join(parts) if parts else ""
