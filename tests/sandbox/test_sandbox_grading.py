"""Grading: seed-style test files unchanged, learner-line errors, and forged results that never pass."""

from __future__ import annotations

import textwrap

import pytest

from tests.sandbox.sandbox_support import BYSTANDER_OUT, SEED_SOLUTION, SEED_TEST, SEED_WRONG, Pool

EQUALITY_TEST = textwrap.dedent(
    """
    import unittest
    import user_code

    class TestAnswer(unittest.TestCase):
        def test_answer(self):
            self.assertEqual(user_code.answer, 42)

        def test_pair(self):
            self.assertEqual(user_code.pair, [1, 2])
    """
)


def test_correct_seed_style_solution_passes_every_test(clean_pool: Pool) -> None:
    r = clean_pool.run(SEED_SOLUTION, test=SEED_TEST)
    assert r.status == "passed", r
    assert len(r.tests) == 8 and all(t.passed for t in r.tests)
    names = {t.name for t in r.tests}
    assert "`W` is 1x3." in names and "The gradient is printed." in names  # renamed _testMethodName
    assert r.stdout.count("W.grad: tensor") == 1  # the reload's print went to the test's buffer
    assert r.message == "All 8 tests passed."


def test_wrong_seed_style_solution_fails_with_one_line_per_test(clean_pool: Pool) -> None:
    r = clean_pool.run(SEED_WRONG, test=SEED_TEST)
    assert r.status == "failed", r
    failed = {t.name: t.message for t in r.tests if not t.passed}
    assert failed == {
        "Create `W` with `requires_grad=True`.": "Create `W` with `requires_grad=True`.",
        "Compute the mean squared error as `loss`.": "Compute the mean squared error as `loss`.",
        "Call `loss.backward()`.": "Call `loss.backward()`.",
        "Print `W.grad`.": "Print `W.grad`.",
    }
    assert r.message == "4 of 8 tests failed."


def test_syntax_error_points_at_the_learners_line_and_column(clean_pool: Pool) -> None:
    r = clean_pool.run("import torch\nW = torch.rand(1, 3\nprint(W)\n", test=SEED_TEST)
    assert r.status == "error" and r.error is not None
    assert r.error.type == "SyntaxError" and r.error.line == 2 and r.error.col == 15
    assert r.error.source == "W = torch.rand(1, 3"  # the learner's line, for a caret under col 15
    assert r.tests == ()
    assert "harness" not in r.stderr and "sandbox/" not in r.stderr


def test_exception_at_import_gives_type_message_and_line(clean_pool: Pool) -> None:
    r = clean_pool.run("import torch\n\nW = torch.rand(1, 3) @ undefined_name\n", test=SEED_TEST)
    assert r.status == "error" and r.error is not None
    assert (r.error.type, r.error.line, r.error.col) == ("NameError", 3, 24)
    assert r.error.message == "name 'undefined_name' is not defined"
    assert r.error.source == "W = torch.rand(1, 3) @ undefined_name"
    assert r.message == "NameError at line 3, column 24: name 'undefined_name' is not defined"
    assert "harness" not in r.stderr and "_job" not in r.stderr and 'File "user_code.py", line 3' in r.stderr


def test_exception_inside_a_test_names_the_learners_line(clean_pool: Pool) -> None:
    code = "def answer():\n    return 1 / 0\n"
    test = "import unittest\nimport user_code\n\nclass T(unittest.TestCase):\n    def test_it(self):\n        self.assertEqual(user_code.answer(), 1)\n"
    r = clean_pool.run(code, test=test)
    assert r.status == "failed"
    assert r.tests[0].message == "ZeroDivisionError: division by zero (line 2 of your code)"


FEEDBACK_TEST = textwrap.dedent(
    """
    import unittest
    import user_code

    class T(unittest.TestCase):
        def test_shape(self):
            \"\"\"The result has shape (2, 5).

            More text the learner does not need.
            \"\"\"
            self.assertEqual(tuple(user_code.T.shape), (2, 5), "`T` must have shape (2, 5).")

        def test_values(self):
            \"\"\"Every entry is one.\"\"\"
            self.assertEqual(user_code.values, [1, 1, 1])

        def test_named(self):
            \"\"\"Not shown: the test renames itself.\"\"\"
            self._testMethodName = "A renamed sentence."
            self.fail("A message\\nover two lines.")

        def test_plain_name(self):
            self.assertTrue(user_code.values[0] == 1)
    """
)


def test_feedback_lines_read_as_sentences(clean_pool: Pool) -> None:
    r = clean_pool.run("import torch\nT = torch.ones(2, 3)\nvalues = [1, 2, 1]\n", test=FEEDBACK_TEST)
    assert r.status == "failed"
    assert sorted((t.name, t.passed, t.message) for t in r.tests) == [
        ("A renamed sentence.", False, "A message over two lines."),
        ("Every entry is one.", False, "Lists differ: [1, 2, 1] != [1, 1, 1]"),  # no diff below it
        ("The result has shape (2, 5).", False, "`T` must have shape (2, 5)."),  # not "Tuples differ ..."
        ("test_plain_name", True, ""),
    ]


def test_error_inside_a_learner_function_names_its_line_once(clean_pool: Pool) -> None:
    code = "def answer():\n    values = [1, 2]\n    return values[5]\n"
    test = "import unittest\nimport user_code\n\nclass T(unittest.TestCase):\n    def test_it(self):\n"
    test += "        self.assertEqual(user_code.answer(), 1)\n"
    r = clean_pool.run(code, test=test)
    assert [(t.passed, t.message) for t in r.tests] == [
        (False, "IndexError: list index out of range (line 3 of your code)")
    ]
    assert "\n" not in r.tests[0].message and "Traceback" not in r.tests[0].message


def test_plain_run_prints_and_reports_errors_without_grader_frames(clean_pool: Pool) -> None:
    ok = clean_pool.run("import torch\nprint(torch.tensor([1.0, 2.0]).sum().item())\n")
    assert (ok.status, ok.stdout, ok.tests) == ("passed", "3.0\n", ())
    bad = clean_pool.run("def f():\n    raise ValueError('nope')\n\nf()\n")
    assert bad.status == "error" and bad.error is not None
    assert (bad.error.type, bad.error.line) == ("ValueError", 2)
    assert bad.stderr.startswith("Traceback (most recent call last):\n")
    assert "runpy" not in bad.stderr and "harness" not in bad.stderr


def test_plain_run_exit_status(clean_pool: Pool) -> None:
    assert clean_pool.run("import sys\nprint('a')\nsys.exit(0)\n").status == "passed"
    r = clean_pool.run("import sys\nsys.exit(3)\n")
    assert r.status == "error" and "status 3" in r.message


def test_threads_and_atexit_finish_like_a_script(clean_pool: Pool) -> None:
    code = "import atexit, threading, time\natexit.register(print, 'bye')\n"
    code += "threading.Thread(target=lambda: (time.sleep(0.2), print('late'))).start()\n"
    r = clean_pool.run(code)
    assert r.status == "passed" and r.stdout == "late\nbye\n"


def test_broken_test_file_is_reported_as_such(clean_pool: Pool) -> None:
    r = clean_pool.run("x = 1\n", test="import unittest\nclass T(unittest.TestCase)\n")
    assert r.status == "error" and r.message.startswith("The test file could not be loaded")


def test_test_file_without_tests_fails(clean_pool: Pool) -> None:
    r = clean_pool.run("x = 1\n", test="import unittest\n")
    assert r.status == "failed" and r.message == "The test file has no tests."


def test_trusted_test_code_may_patch_and_capture(clean_pool: Pool) -> None:
    test = textwrap.dedent(
        """
        import unittest
        from unittest import mock
        import torch
        import user_code

        class T(unittest.TestCase):
            def test_patch_a_torch_class(self):
                with mock.patch.object(torch.nn.Linear, "forward", lambda self, x: x * 0):
                    self.assertEqual(user_code.layer(torch.ones(1, 2)).sum().item(), 0.0)

            def test_user_defined_equality_between_user_objects(self):
                self.assertEqual(user_code.Point(1, 2), user_code.Point(1, 2))
        """
    )
    code = textwrap.dedent(
        """
        import torch
        layer = torch.nn.Linear(2, 2)

        class Point:
            def __init__(self, x, y):
                self.x, self.y = x, y
            def __eq__(self, other):
                return (self.x, self.y) == (other.x, other.y)
        """
    )
    r = clean_pool.run(code, test=test)
    assert r.status == "passed", r.tests


def test_per_call_limits_lower_but_never_raise_the_config(clean_pool: Pool) -> None:
    short = clean_pool.run("import time\ntime.sleep(5)\n", wall_s=0.5)
    assert short.status == "timeout" and short.message == "Time limit: 0.5 s of wall time"
    capped = clean_pool.run("import time\ntime.sleep(5)\n", wall_s=500)
    assert capped.status == "timeout" and capped.message == "Time limit: 2 s of wall time"
    small = clean_pool.run("import torch\nx = torch.ones(30 * 2**20)\nx += 1\n", memory_mb=64)
    assert small.status == "memory" and small.message == "Memory limit: 64 MB"
    fits = clean_pool.run("import torch\nx = torch.ones(30 * 2**20)\nx += 1\n", memory_mb=5000)
    assert fits.status == "passed"


FORGERIES = {
    "exit-0-mid-test": (
        "import os, torch\nW = torch.rand(1, 3, requires_grad=True)\n"
        "class Quit:\n    @property\n    def shape(self):\n        os._exit(0)\nW = Quit()\n",
        SEED_TEST,
    ),
    "sys-exit-0-at-import": ("import sys\nprint('OK')\nsys.exit(0)\n", SEED_TEST),
    "printed-fake-results": (
        "import json\nprint('.' * 8)\nprint('Ran 8 tests in 0.001s\\n\\nOK')\n"
        "for i in range(8):\n    print(json.dumps({'op': 'test', 'i': i, 'name': 'x', 'passed': True, 'message': ''}))\n"
        "print(json.dumps({'op': 'done', 'exit': 0}))\n",
        SEED_TEST,
    ),
    "patch-testcase-run": (
        "import unittest\nunittest.TestCase.run = lambda self, result=None: result.addSuccess(self)\n",
        SEED_TEST,
    ),
    "patch-result-failure": (
        "import unittest\nunittest.TestResult.addFailure = unittest.TestResult.addSuccess\n",
        SEED_TEST,
    ),
    "patch-assertions": (
        "import unittest\nunittest.TestCase.fail = lambda self, msg=None: None\n",
        SEED_TEST,
    ),
    "patch-builtin-isinstance": (
        "import builtins, torch\nW = 0\nbuiltins.isinstance = lambda *a: True\nbuiltins.hasattr = lambda *a: True\n",
        SEED_TEST,
    ),
    "patch-torch-allclose": (
        "import torch\nX = torch.zeros(3, 2)\ntorch.allclose = lambda *a, **k: True\n",
        SEED_TEST,
    ),
    "replace-unittest-module": (
        "import sys, types\nfake = types.ModuleType('unittest')\n"
        "class TestCase:\n    pass\nfake.TestCase = TestCase\nfake.main = lambda *a, **k: None\nsys.modules['unittest'] = fake\n",
        SEED_TEST,
    ),
    "gc-reach-class-dict": (
        "import gc, unittest\ngc.get_referents(unittest.TestCase.__dict__)[0]['fail'] = lambda *a, **k: None\n",
        SEED_TEST,
    ),
    "always-equal-object": (
        "class Anything:\n    def __eq__(self, other):\n        return True\n    __hash__ = object.__hash__\n"
        "answer = Anything()\npair = [Anything(), Anything()]\n",
        EQUALITY_TEST,
    ),
    "forge-results-descriptor": (
        "import json, os\n"
        "for fd in range(3, 256):\n"
        "    for i in range(8):\n"
        "        try:\n"
        "            os.write(fd, (json.dumps({'op': 'test', 'i': i, 'name': 'x', 'passed': True}) + '\\n').encode())\n"
        "        except OSError:\n"
        "            pass\n",
        SEED_TEST,
    ),
    "close-every-descriptor": ("import os\nos.closerange(3, 4096)\n", SEED_TEST),
    "patch-test-helper-during-test": (
        "import sys\n"
        "def __getattr__(name):  # runs when a test looks for a missing name\n"
        "    mod = sys.modules['test_code']\n"
        "    mod._verdict = lambda case, ok, p, f: setattr(case, '_testMethodName', p)\n"
        "    raise AttributeError(name)\n",
        SEED_TEST,
    ),
    "raise-skip-from-code": (
        "import unittest\nclass Skipper:\n    def __getattr__(self, name):\n        raise unittest.SkipTest('skip')\n"
        "W = X = Y = loss = Skipper()\n",
        SEED_TEST,
    ),
}


@pytest.mark.parametrize("name", sorted(FORGERIES))
def test_forged_results_never_pass(clean_pool: Pool, name: str) -> None:
    code, test = FORGERIES[name]
    forged, bystander = clean_pool.run_with_bystander(code, test=test)
    assert forged.status in ("failed", "error"), (name, forged)
    assert not (forged.tests and all(t.passed for t in forged.tests)), forged.tests
    assert bystander.stdout == BYSTANDER_OUT


OBJECTS_TEST = textwrap.dedent(
    """
    import unittest
    import torch
    import user_code

    class T(unittest.TestCase):
        def test_learner_objects_behave_as_in_one_process(self):
            bag = user_code.Bag([1, 2, 3])
            self.assertIsInstance(bag, torch.utils.data.Dataset)
            self.assertTrue(issubclass(user_code.Bag, torch.utils.data.Dataset))
            self.assertEqual((len(bag), list(bag), bag[1]), (3, [1, 2, 3], 2))
            self.assertFalse(callable(bag))
            self.assertTrue(callable(user_code.Bag) and callable(user_code.total))
            self.assertIn("total", dir(user_code))
            with self.assertRaises(KeyError) as caught:
                user_code.lookup("missing")
            self.assertEqual(str(caught.exception), "'missing'")
            calls = []
            self.assertEqual(user_code.apply(lambda v: calls.append(v) or v * 2, 21), 42)
            self.assertEqual(calls, [21])  # the test's own function ran here, called from the learner's code
    """
)


def test_learner_objects_and_callbacks_behave_as_in_one_process(clean_pool: Pool) -> None:
    code = textwrap.dedent(
        """
        from torch.utils.data import Dataset

        class Bag(Dataset):
            def __init__(self, items):
                self.items = items
            def __len__(self):
                return len(self.items)
            def __getitem__(self, i):
                if i >= len(self.items):
                    raise IndexError(i)
                return self.items[i]

        def total(xs):
            return sum(xs)

        def lookup(key):
            return {}[key]

        def apply(fn, value):
            return fn(value)
        """
    )
    r = clean_pool.run(code, test=OBJECTS_TEST)
    assert r.status == "passed", r.tests


BRIDGE_TEST = textwrap.dedent(
    """
    import unittest

    import torch

    import user_code


    class Bridge(unittest.TestCase):
        def test_meta_tensors_cross_as_shape_and_dtype(self):
            out = user_code.move(torch.ones(2, 3), torch.device("meta"))
            self.assertEqual((out.device.type, tuple(out.shape), out.dtype), ("meta", (2, 3), torch.float32))

        def test_version_counters_cross_with_the_tensor(self):
            w = user_code.bump(4)
            self.assertGreaterEqual(w._version, 4)
            self.assertTrue(torch.equal(w, torch.full((3,), 4.0)))
    """
)
BRIDGE_CODE = (
    "import torch\n\n\ndef move(x, device):\n    return x.to(device)\n\n\n"
    "def bump(n):\n    w = torch.zeros(3)\n    for _ in range(n):\n        w.add_(1)\n    return w\n"
)
BRIDGE_REBIND = BRIDGE_CODE.replace("w.add_(1)", "w = w + 1")


def test_meta_tensors_and_version_counters_cross_the_bridge(clean_pool: Pool) -> None:
    r = clean_pool.run(BRIDGE_CODE, test=BRIDGE_TEST)
    assert r.status == "passed", r
    rebound = clean_pool.run(BRIDGE_REBIND, test=BRIDGE_TEST)  # a new tensor each time: no in-place updates
    failed = [t for t in rebound.tests if not t.passed]
    assert rebound.status == "failed" and len(failed) == 1 and "version" in failed[0].name


def test_a_submission_that_runs_past_the_wall_limit_fails_its_tests(clean_pool: Pool) -> None:
    """The grader stops waiting for the learner before the wall limit, so the verdict never depends
    on how loaded the machine is: the tests fail, each saying why, instead of the job timing out."""
    r = clean_pool.run("import time\ntime.sleep(60)\n", test=SLOW_TEST)
    assert r.status == "failed", (r.status, r.message, r.tests)
    assert r.tests and all(not t.passed for t in r.tests)
    assert all("did not finish within the time limit (2 s)" in t.message for t in r.tests), r.tests
    looping = clean_pool.run(SEED_SOLUTION + "\ndef spin():\n    while True:\n        pass\n", test=SLOW_TEST)
    assert looping.status == "failed", (looping.status, looping.message, looping.tests)
    by_name = {t.name: t for t in looping.tests}
    assert by_name["test_quick"].passed
    assert "did not finish within the time limit" in by_name["test_spins"].message


SLOW_TEST = textwrap.dedent(
    """
    import unittest

    class T(unittest.TestCase):
        def test_quick(self):
            import user_code
            self.assertEqual(tuple(user_code.W.shape), (1, 3))

        def test_spins(self):
            import user_code
            user_code.spin()
    """
)


SENT_AHEAD_TEST = textwrap.dedent(
    """
    import unittest
    import torch
    import user_code

    class T(unittest.TestCase):
        def test_module_data_reads_as_in_one_process(self):
            w = user_code.W
            with torch.no_grad():
                w.zero_()  # a read is a copy: the learner's W, and the next read, keep their values
            self.assertEqual(float(user_code.W.sum()), 6.0)
            self.assertIsNot(user_code.W, user_code.W)
            self.assertEqual((user_code.count, user_code.names), (0, ["a"]))
            user_code.bump()  # runs the learner's code: what it changed reads changed
            self.assertEqual((user_code.count, user_code.names), (1, ["a", "b"]))
            self.assertEqual(float(user_code.W.sum()), 12.0)
            self.assertIsNotNone(user_code.loss.grad_fn)  # a tensor with a history keeps it
    """
)
SENT_AHEAD_CODE = """
import torch
W = torch.full((2, 3), 1.0, requires_grad=True)
loss = (W * 2).sum()
count = 0
names = ["a"]

def bump():
    global count
    count += 1
    names.append("b")
    with torch.no_grad():
        W.mul_(2)
"""


def test_the_learners_module_data_reads_as_in_one_process(clean_pool: Pool) -> None:
    r = clean_pool.run(SENT_AHEAD_CODE, test=SENT_AHEAD_TEST)
    assert r.status == "passed", r.tests
    dynamic = SENT_AHEAD_CODE + "\ndef __getattr__(name):\n    raise AttributeError(name)\n"
    assert clean_pool.run(dynamic, test=SENT_AHEAD_TEST).status == "passed"
