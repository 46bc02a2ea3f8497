"""Round 58's hunt: a pack test written with ``unittest.IsolatedAsyncioTestCase``.

The grader called ``unittest.TestCase.run`` on every test, passing over the class's own ``run``:
an asynchronous test case never got its event loop, and every one of its tests failed with the
grader's "'NoneType' object has no attribute 'get_loop'", whatever the learner wrote.
"""

from __future__ import annotations

import textwrap

from tests.sandbox.sandbox_support import Pool

ASYNC_TEST = textwrap.dedent(
    """
    import asyncio
    import unittest
    import user_code

    class TestAnswer(unittest.IsolatedAsyncioTestCase):
        async def asyncSetUp(self):
            await asyncio.sleep(0)
            self.expected = 42

        async def test_value(self):
            self.assertEqual(user_code.f(), self.expected)
    """
)


def test_an_asynchronous_test_case_grades_the_learners_answer(clean_pool: Pool) -> None:
    ok = clean_pool.run("def f():\n    return 42\n", test=ASYNC_TEST)
    assert ok.status == "passed" and [t.name for t in ok.tests] == ["test_value"], ok
    bad = clean_pool.run("def f():\n    return 41\n", test=ASYNC_TEST)
    assert bad.status == "failed" and bad.tests[0].message == "41 != 42", bad


def test_a_slow_learner_call_in_an_asynchronous_test_leaves_no_grader_note_in_the_output(clean_pool: Pool) -> None:
    # unittest runs an asynchronous test's loop in asyncio's debug mode, which logs every step
    # slower than 0.1 s to stderr, naming the test file and the host's Python library.
    code = "import time\n\ndef f():\n    time.sleep(0.3)\n    return 42\n"
    r = clean_pool.run(code, test=ASYNC_TEST)
    assert r.status == "passed", r
    assert "test_code" not in r.stderr and "asyncio" not in r.stderr, r.stderr
    assert r.stderr == "", r.stderr
