"""Round 59's hunt: the line a learner reads when their function exits or is interrupted.

A learner's function that calls ``sys.exit()`` or raises ``KeyboardInterrupt``, ``GeneratorExit``
or ``StopIteration`` reaches the test as a plain error (it must not end the grader or a map()), but
its line read "RemoteControlFlow: your code raised SystemExit: 0 (line 3 of your code)": the name of
a class of the sandbox's own, which the learner never wrote and cannot look up. A load that exits
already read "your code called exit(0)"; a call now reads the same, and the others name what the
learner's code raised, with its line.
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

        @classmethod
        def setUpClass(cls):
            cls.first = user_code.f

    class TestFixture(unittest.TestCase):
        @classmethod
        def setUpClass(cls):
            user_code.f()

        def test_after_setup(self):
            pass
    """
)

CASES = {
    "exit": ("import sys\ndef f():\n    sys.exit(3)\n", "your code called exit(3) (line 3 of your code)"),
    "exit-none": ("import sys\ndef f():\n    sys.exit()\n", "your code called exit() (line 3 of your code)"),
    "interrupt": (
        "def f():\n    raise KeyboardInterrupt('stop')\n",
        "your code raised KeyboardInterrupt: stop (line 2 of your code)",
    ),
    "generator-exit": ("def f():\n    raise GeneratorExit\n", "your code raised GeneratorExit (line 2 of your code)"),
    "stop-iteration": ("def f():\n    raise StopIteration(7)\n", "your code raised StopIteration: 7 (line 2 of your code)"),
}


@pytest.mark.parametrize(("code", "line"), CASES.values(), ids=list(CASES))
def test_a_control_flow_exception_reads_as_what_the_learner_did(clean_pool: Pool, code: str, line: str) -> None:
    r: Result = clean_pool.run(code, test=TEST)
    assert r.status == "failed", (r.message, r.tests)
    by_name = {t.name: t for t in r.tests}
    assert set(by_name) == {"test_value", "test_after_setup"}, r.tests
    for t in r.tests:
        assert not t.passed, r.tests
        assert "RemoteControlFlow" not in t.message, r.tests
    assert by_name["test_value"].message == line, r.tests
    assert line.split(" (line")[0] in by_name["test_after_setup"].message, r.tests
