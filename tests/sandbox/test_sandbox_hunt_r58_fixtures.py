"""Round 58's hunt: class and module fixtures of a pack's test file.

The grader ran each test alone (``TestCase.run``), never through a suite, so ``setUpClass``,
``setUpModule`` and their tear-downs never ran: a test whose check sat in ``setUpClass`` passed a
wrong submission, and a right one failed on the attribute ``setUpClass`` should have set.
"""

from __future__ import annotations

import textwrap

from tests.sandbox.sandbox_support import Pool

GOOD = "def f():\n    return 42\n"
WRONG = "def f():\n    return 41\n"

CHECK_IN_SETUP_CLASS = textwrap.dedent(
    """
    import unittest
    import user_code

    class TestAnswer(unittest.TestCase):
        @classmethod
        def setUpClass(cls):
            assert user_code.f() == 42, "f() should give 42"

        def test_runs(self):
            pass

        def test_again(self):
            pass

    class TestOther(unittest.TestCase):
        def test_plain(self):
            self.assertEqual(user_code.f(), 42)
    """
)

VALUE_FROM_SETUP_CLASS = textwrap.dedent(
    """
    import unittest
    import user_code

    class TestAnswer(unittest.TestCase):
        @classmethod
        def setUpClass(cls):
            cls.value = user_code.f()

        def test_value(self):
            self.assertEqual(self.value, 42)
    """
)

VALUE_FROM_SETUP_MODULE = textwrap.dedent(
    """
    import unittest
    import user_code

    VALUE = None

    def setUpModule():
        global VALUE
        VALUE = user_code.f()

    class TestAnswer(unittest.TestCase):
        def test_value(self):
            self.assertEqual(VALUE, 42)
    """
)

TEAR_DOWN_CLASS_FAILS = textwrap.dedent(
    """
    import unittest
    import user_code

    class TestAnswer(unittest.TestCase):
        @classmethod
        def tearDownClass(cls):
            assert user_code.f() == 42, "f() should still give 42 at the end"

        def test_first(self):
            pass

        def test_last(self):
            pass

    class TestOther(unittest.TestCase):
        def test_plain(self):
            pass
    """
)


def test_a_check_in_set_up_class_fails_every_test_of_that_class(clean_pool: Pool) -> None:
    r = clean_pool.run(WRONG, test=CHECK_IN_SETUP_CLASS)
    assert r.status == "failed", r
    by_name = {t.name: t for t in r.tests}
    assert set(by_name) == {"test_runs", "test_again", "test_plain"}, r.tests
    for name in ("test_runs", "test_again"):
        assert not by_name[name].passed, r.tests
        assert "f() should give 42" in by_name[name].message, r.tests
    assert not by_name["test_plain"].passed and by_name["test_plain"].message == "41 != 42", r.tests
    ok = clean_pool.run(GOOD, test=CHECK_IN_SETUP_CLASS)
    assert ok.status == "passed" and len(ok.tests) == 3, ok


def test_set_up_class_and_set_up_module_run_before_the_tests(clean_pool: Pool) -> None:
    for test in (VALUE_FROM_SETUP_CLASS, VALUE_FROM_SETUP_MODULE):
        ok = clean_pool.run(GOOD, test=test)
        assert ok.status == "passed", ok
        bad = clean_pool.run(WRONG, test=test)
        assert bad.status == "failed" and bad.tests[0].message == "41 != 42", bad


def test_a_failing_tear_down_class_fails_the_last_test_of_its_class(clean_pool: Pool) -> None:
    r = clean_pool.run(WRONG, test=TEAR_DOWN_CLASS_FAILS)
    assert r.status == "failed", r
    by_name = {t.name: t for t in r.tests}
    assert len(r.tests) == 3, r.tests
    assert by_name["test_first"].passed and by_name["test_plain"].passed, r.tests
    assert not by_name["test_last"].passed, r.tests
    assert "f() should still give 42 at the end" in by_name["test_last"].message, r.tests
    assert clean_pool.run(GOOD, test=TEAR_DOWN_CLASS_FAILS).status == "passed"
