"""Round 58's hunt: the words a learner reads when their function returns something too large.

The grader's decoder words a value over its budgets "your function returned something too large
to check" (as the sandbox reference promises), but the learner process's encoder refused first,
and its exception arrived under its internal class name: "Refused: too many items".
"""

from __future__ import annotations

import textwrap

from sandbox import bridge
from tests.sandbox.sandbox_support import Pool

TEST = textwrap.dedent(
    """
    import unittest
    import user_code

    class TestAnswer(unittest.TestCase):
        def test_long(self):
            self.assertEqual(len(user_code.long()), 3)

        def test_deep(self):
            self.assertEqual(user_code.deep(), [])

        def test_small(self):
            self.assertEqual(user_code.small(), 1)
    """
)

CODE = textwrap.dedent(
    """
    def long():
        return list(range(1_000_000))

    def deep():
        value = []
        for _ in range(200):
            value = [value]
        return value

    def small():
        return 1
    """
)


def test_a_value_over_the_learner_sides_budgets_reads_too_large_to_check(clean_pool: Pool) -> None:
    r = clean_pool.run(CODE, test=TEST)
    assert r.status == "failed", r
    by_name = {t.name: t for t in r.tests}
    assert by_name["test_small"].passed, r.tests
    for name in ("test_long", "test_deep"):
        assert not by_name[name].passed, r.tests
        assert bridge.TOO_LARGE in by_name[name].message, r.tests
        assert "Refused" not in by_name[name].message, r.tests
