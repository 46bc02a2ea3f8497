"""Round 58's hunt: the result's one-line summary (``message``) and the error's type.

The reference promises ``message`` is a one-line summary, but an error while loading was summed
up as "<type> at line N: <message>" with the learner's text as it stood: an exception message
(or a made-up exception type name) with line breaks or terminal escapes gave a summary of several
lines, and an ``error.type`` that was not one line. A learner's ``sys.exit(obj)`` whose ``__str__``
raises ended the learner process while its error was described, so a graded job read "your
program ended" instead of the exit at its line.
"""

from __future__ import annotations

import textwrap

import pytest

from sandbox import Result
from tests.sandbox.sandbox_support import Pool

TEST = textwrap.dedent(
    """
    import unittest
    import user_code

    class TestAnswer(unittest.TestCase):
        def test_value(self):
            self.assertEqual(user_code.f(), 42)
    """
)

LOADS = {
    "message-breaks": "raise ValueError('first\\nsecond\\rthird\\u2028fourth')\n",
    "type-breaks": "E = type('Bad\\nType\\x1b[31m', (Exception,), {})\nraise E('boom\\x1b[2J\\x07')\n",
    "syntax-in-exec": "exec('x = (\\n\\n')\n",
}


def _one_line(text: str) -> None:
    assert text.splitlines() == [text], repr(text)
    assert not any(ord(c) < 32 or ord(c) == 127 for c in text), repr(text)


@pytest.mark.parametrize("code", LOADS.values(), ids=list(LOADS))
@pytest.mark.parametrize("graded", [True, False], ids=["graded", "plain"])
def test_an_error_at_load_is_summed_up_on_one_line(clean_pool: Pool, code: str, graded: bool) -> None:
    r: Result = clean_pool.run(code, test=TEST) if graded else clean_pool.run(code)
    assert r.status == "error" and r.error is not None, r
    _one_line(r.message)
    _one_line(r.error.type)
    assert r.error.line == (2 if code.startswith("E =") else 1), r.error


def test_an_exit_with_an_unprintable_status_at_load_is_the_learners_error(clean_pool: Pool) -> None:
    code = "import sys\nclass X:\n    def __str__(self):\n        raise RuntimeError\nsys.exit(X())\n"
    r = clean_pool.run(code, test=TEST)
    assert r.status == "error" and r.error is not None, r
    assert r.error.type == "SystemExit" and r.error.line == 5, r.error
