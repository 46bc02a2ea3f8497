"""Round 59's hunt: a test module that does ``from user_code import *``.

In the grader ``user_code`` is a stand-in whose values live in the learner process, and its star
import took the stand-in's own (empty) namespace: a correct answer failed every test with "NameError:
name 'f' is not defined". A learner's ``__all__``, on the other hand, was taken as it stood, so a
submission could put its own objects in place of names the test module had bound before the import
(``torch``, ``unittest``) or of builtins (``sorted``, ``len``): their calls ran in the learner
process and answered what it liked, which passed a test that checks nothing of the answer. The star
import now brings the learner's public names (its ``__all__``, else every name not starting with
an underscore), but never one the test module already holds, a builtin, or a hook unittest calls.
"""

from __future__ import annotations

import textwrap

from sandbox import Result
from tests.sandbox.sandbox_support import Pool, not_passed

TEST = textwrap.dedent(
    """
    import unittest
    import torch
    from user_code import *

    class TestAnswer(unittest.TestCase):
        def test_square(self):
            self.assertTrue(torch.allclose(square(torch.tensor([1.0, 2.0])), torch.tensor([1.0, 4.0])))

        def test_sorted(self):
            self.assertEqual(sorted(order([3, 1, 2])), [1, 2, 3])

        def test_count(self):
            self.assertEqual(len(order([3, 1, 2])), 3)
    """
)

RIGHT = textwrap.dedent(
    """
    import torch

    def square(x):
        return x * x

    def order(xs):
        return sorted(xs)
    """
)

FORGED = {
    "all": textwrap.dedent(
        """
        class _Yes:
            def allclose(self, *args, **kwargs):
                return True

        def square(x):
            return x

        def order(xs):
            return []

        def sorted(xs):
            return [1, 2, 3]

        def len(xs):
            return 3

        torch = _Yes()
        __all__ = ["square", "order", "torch", "sorted", "len"]
        """
    ),
    "no-all": textwrap.dedent(
        """
        class _Yes:
            def allclose(self, *args, **kwargs):
                return True

        def square(x):
            return x

        def order(xs):
            return []

        def sorted(xs):
            return [1, 2, 3]

        def len(xs):
            return 3

        torch = _Yes()
        """
    ),
}


def test_a_right_answer_passes_a_test_that_star_imports_it(clean_pool: Pool) -> None:
    r: Result = clean_pool.run(RIGHT, test=TEST)
    assert r.status == "passed", (r.message, r.tests)
    assert [t.passed for t in r.tests] == [True, True, True], r.tests


def test_a_wrong_answer_fails_with_the_tests_own_reason(clean_pool: Pool) -> None:
    r = clean_pool.run(RIGHT.replace("x * x", "x + x"), test=TEST)
    assert r.status == "failed", (r.message, r.tests)
    assert [t.name for t in r.tests if not t.passed] == ["test_square"], r.tests
    assert "NameError" not in r.tests[0].message, r.tests


def test_star_import_cannot_replace_the_tests_names_or_builtins(clean_pool: Pool) -> None:
    for name, code in FORGED.items():
        r = clean_pool.run(code, test=TEST)
        not_passed(r)
        assert [t.passed for t in r.tests] == [False, False, False], (name, r.tests)


def test_star_import_cannot_add_unittests_hooks(clean_pool: Pool) -> None:
    code = RIGHT + textwrap.dedent(
        """
        def load_tests(loader, tests, pattern):
            return []

        def setUpModule():
            raise RuntimeError("the learner's set-up")

        __all__ = ["square", "order", "load_tests", "setUpModule"]
        """
    )
    r = clean_pool.run(code, test=TEST)
    assert r.status == "passed", (r.message, r.tests)
    assert len(r.tests) == 3, r.tests


def test_a_learners_all_of_other_things_than_names_is_not_the_test_files_fault(clean_pool: Pool) -> None:
    r = clean_pool.run(RIGHT + '__all__ = [["square"], 7, "square", "order", "no such"]\n', test=TEST)
    assert r.status == "passed", (r.message, r.error, r.tests)
