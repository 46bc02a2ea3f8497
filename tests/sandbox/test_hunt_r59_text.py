"""Round 59's hunt: what the learner's exception text can do to the lines shown back.

A learner's exception text (its message, or the name of an exception class of their own) reached
each test's line, the error's type and message and the one-line summary as written: a right-to-left
override (U+202E) or an isolate flips the rest of the line when the bot shows it ("❌ test — ..."
reads backwards, or a failed line reads as something else), and a terminal escape (ESC [2J) clears
the screen of whoever runs ``quizbot sandbox run`` on it. The texts keep their words; those
characters go.
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

        def test_message(self):
            self.assertEqual(user_code.f(), 42, "got " + str(user_code.f()))
    """
)

# Characters that reorder or restyle the text around them: bidi overrides, embeddings, isolates
# and marks; C0 and C1 controls (ESC, CSI, BEL, backspace).
HOSTILE = "\u202e\u202a\u2066\u2067\u2068\u2069\u200f\u200e\u061c\x1b\x9b\x07\x08"
WORDS = "ok \u202edeliaf\x1b[2J\x9b31m\x07 done\u2069"


def _shown(text: str) -> None:
    assert not any(c in HOSTILE for c in text), ascii(text)


CALLS = {
    "message": f"def f():\n    raise ValueError({WORDS!r})\n",
    "class-name": "E = type('Err\\u202e\\x1b[31m', (Exception,), {})\ndef f():\n    raise E('a\\u2066b')\n",
    "returned": f"def f():\n    return {WORDS!r}\n",
}


@pytest.mark.parametrize("code", CALLS.values(), ids=list(CALLS))
def test_a_tests_line_shows_no_bidi_or_control_characters(clean_pool: Pool, code: str) -> None:
    r: Result = clean_pool.run(code, test=TEST)
    assert r.status == "failed", r
    assert len(r.tests) == 2 and not any(t.passed for t in r.tests), r.tests
    for t in r.tests:
        _shown(t.name)
        _shown(t.message)
        assert t.message, t
    if "raise ValueError" in code:
        assert "deliaf" in r.tests[0].message and "done" in r.tests[0].message, r.tests


LOADS = {
    "message": f"raise ValueError({WORDS!r})\n",
    "class-name": "E = type('Err\\u202e\\x1b[31m', (Exception,), {})\nraise E('a\\u2066b\\r\\nsecond\\rthird')\n",
}


@pytest.mark.parametrize("code", LOADS.values(), ids=list(LOADS))
@pytest.mark.parametrize("graded", [True, False], ids=["graded", "plain"])
def test_an_error_at_load_shows_no_bidi_or_control_characters(clean_pool: Pool, code: str, graded: bool) -> None:
    r: Result = clean_pool.run(code, test=TEST) if graded else clean_pool.run(code)
    assert r.status == "error" and r.error is not None, r
    _shown(r.message)
    _shown(r.error.type)
    _shown(r.error.message)
    assert r.error.line == (2 if code.startswith("E =") else 1), r.error
    if code.startswith("E ="):
        assert r.error.type == "Err[31m" and r.error.message == "ab\nsecond\nthird", r.error
    else:
        assert r.error.message == "ok deliaf[2J31m done", r.error
