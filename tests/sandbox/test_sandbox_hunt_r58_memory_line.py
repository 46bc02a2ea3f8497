"""Round 58's hunt: the line of the test whose call ran out of memory.

When the learner's code failed to allocate during a test, the grader ended the job as ``memory``
at once without that test's line, so the test that hit the limit read "did not report a result:
the program ended during this test", like every test after it that never ran.
"""

from __future__ import annotations

import textwrap

from tests.sandbox.sandbox_support import Pool

TEST = textwrap.dedent(
    """
    import unittest
    import user_code

    class TestAnswer(unittest.TestCase):
        def test_a_small(self):
            self.assertEqual(user_code.small(), 1)

        def test_b_huge(self):
            self.assertEqual(user_code.huge(), 1)

        def test_c_after(self):
            self.assertEqual(user_code.small(), 1)
    """
)

CODE = textwrap.dedent(
    """
    import torch

    def small():
        return 1

    def huge():
        return int(torch.empty(10**12).numel())
    """
)


def test_the_test_that_ran_out_of_memory_says_so(clean_pool: Pool) -> None:
    r = clean_pool.run(CODE, test=TEST)
    assert r.status == "memory", r
    by_name = {t.name: t for t in r.tests}
    assert [t.name for t in r.tests] == ["test_a_small", "test_b_huge", "test_c_after"], r.tests
    assert not any(t.passed for t in r.tests), r.tests  # a job over a limit passes nothing
    huge = by_name["test_b_huge"].message
    assert "allocate memory" in huge and "line 8 of your code" in huge, huge
    assert "did not report" not in huge, huge
