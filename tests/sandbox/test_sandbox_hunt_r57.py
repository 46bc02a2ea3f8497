"""Round 57's hunt: what a hostile submission puts in its feedback, and what it may read of the test.

- A learner's exception message, exit text or exception type name travels through the grader into
  the result (the packs' tests even put it in a test's name). Lone surrogates and NULs there made a
  result the bot cannot store or print (``--json``); line breaks other than ``\\n`` (``\\r``,
  ``\\u2028`` ...) made one test's line several.
- The cut of the test sent to the learner's process (its shared classes) was made with
  ``str.splitlines``: a form feed or a U+2028 in the test shifted it, keeping test lines (the
  expected value) in place of the class's, and a learner reading them passed.
- An exception whose ``__str__`` raises crashed a plain run's harness ("exited with status 70"), and
  an exception type name ``type()`` refuses became the grader's own ValueError.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from sandbox import Result, bridge
from sandbox._assemble import assemble
from sandbox._feedback import one_line
from sandbox._messages import JobLimits, Report
from sandbox._testprep import shared_classes
from tests.sandbox.sandbox_support import Pool, not_passed
from tests.sandbox.test_sandbox_attacks_review import READ_THE_EXPECTED

TWO_TESTS = textwrap.dedent(
    """
    import unittest

    class TestTwo(unittest.TestCase):
        def test_a(self):
            import user_code
            user_code.f()

        def test_b(self):
            import user_code
            self.assertEqual(user_code.g(), 1)
    """
)

PACKS = Path(__file__).resolve().parents[2] / "content" / "packs"
LIMITS = JobLimits(wall_s=2.0, cpu_s=2.0, memory_mb=256, output_bytes=65536)
BREAKS = "\r\u2028\u2029\x0b\x0c\x1c\x1d\x1e\x85"


def _encodable(r: Result) -> None:
    """Every text of the result is valid Unicode without NUL: a database stores it, a JSON printout prints it."""
    text = json.dumps(r.to_dict(), ensure_ascii=False)
    text.encode("utf-8")
    assert "\x00" not in text and "\\u0000" not in text, text


def _one_line_each(r: Result) -> None:
    for t in r.tests:
        for text in (t.name, t.message):
            assert text.splitlines() == ([text] if text else []), repr(text)


def test_a_surrogate_in_a_tests_exception_message_arrives_as_valid_text(clean_pool: Pool) -> None:
    code = "def f():\n    raise ValueError('bad \\ud800 x\\x00')\ndef g():\n    return 2\n"
    r = clean_pool.run(code, test=TWO_TESTS)
    assert r.status == "failed" and not any(t.passed for t in r.tests), r
    _encodable(r)
    assert "bad \ufffd x\ufffd" in r.tests[0].message


def test_a_surrogate_in_an_error_at_load_arrives_as_valid_text(clean_pool: Pool) -> None:
    r = clean_pool.run("raise ValueError('bad \\udcff x')\n", test=TWO_TESTS)
    assert r.status == "error", r
    _encodable(r)
    assert r.error is not None and r.error.message == "bad \ufffd x"


def test_a_surrogate_in_a_plain_runs_exit_text_arrives_as_valid_text(clean_pool: Pool) -> None:
    r = clean_pool.run("raise SystemExit('\\udcff bye')\n")
    assert r.status == "error", r
    _encodable(r)


def test_a_forged_results_line_of_a_plain_run_arrives_as_valid_text(clean_pool: Pool) -> None:
    """A plain run holds its results channel: whatever it writes there is made valid text."""
    code = textwrap.dedent(
        """
        import gc, json, os
        for obj in gc.get_objects():
            if type(obj).__name__ == "_Channel":
                obj.send("error", where="user", type="E\\ud800", message="m\\udfff", line=None, col=None,
                         source=None)
                obj.send("done", exit=1)
                os._exit(1)
        """
    )
    r = clean_pool.run(code)
    assert r.status == "error", r
    _encodable(r)


def test_every_kind_of_line_break_stays_out_of_a_tests_line(clean_pool: Pool) -> None:
    code = (
        f"def f():\n    raise ValueError({('boom' + BREAKS + '✅ test_b passed')!r})\n"
        f"E = type({('Fine' + BREAKS + 'passed')!r}, (Exception,), {{}})\n"
        "def g():\n    raise E('x')\n"
    )
    r = clean_pool.run(code, test=TWO_TESTS)
    assert r.status == "failed" and not any(t.passed for t in r.tests), r
    _one_line_each(r)
    assert "✅ test_b passed" in r.tests[0].message


def test_one_line_flattens_every_line_break() -> None:
    for brk in BREAKS:
        assert one_line(f"a{brk}b") == "a b"
    assert one_line("a\r") == "a"
    assert one_line("  kept as it is  ") == "  kept as it is  "


def test_assemble_makes_every_text_of_a_forged_report_valid() -> None:
    bad = "x\ud800y\udfff\x00"
    report: Report = {
        "op": "report",
        "stdout": "",
        "stderr": "",
        "messages": [
            {"n": "0", "op": "plan", "tests": [bad]},
            {"n": "0", "op": "test", "i": 0, "name": bad, "passed": False, "message": bad},
            {"n": "0", "op": "done", "exit": 0},
        ],
    }
    graded = assemble(report, graded=True, limits=LIMITS, layers=())
    _encodable(graded)
    assert graded.tests[0].name == "x\ufffdy\ufffd\ufffd"
    report["messages"] = [
        {"n": "0", "op": "error", "where": "user", "type": bad, "message": bad, "line": 1, "source": bad},
        {"n": "0", "op": "exit", "code": 3, "text": bad},
    ]
    _encodable(assemble(report, graded=False, limits=LIMITS, layers=()))


# A test module whose source holds a line break Python's tokenizer does not count (a form feed on a
# line of its own, a U+2028 in a docstring): the cut sent to the learner's process was off by a line
# per such break, keeping test lines (the expected value) in place of the shared class's.
SHIFTED_TESTS = {
    "form-feed": "import unittest\n\x0c\nEXPECTED = 4217\nclass Box:\n    pass\n\n"
    "class TestAnswer(unittest.TestCase):\n    def test_answer(self):\n        import user_code\n"
    "        self.assertEqual(user_code.answer, EXPECTED)\n",
    "form-feed-crlf": "import unittest\r\n\x0c\r\nEXPECTED = 4217\r\nclass Box:\r\n    pass\r\n\r\n"
    "class TestAnswer(unittest.TestCase):\r\n    def test_answer(self):\r\n        import user_code\r\n"
    "        self.assertEqual(user_code.answer, EXPECTED)\r\n",
    "line-separator": "import unittest\n\nclass TestAnswer(unittest.TestCase):\n    def test_answer(self):\n"
    '        """Say \u2028 it."""\n        import user_code\n        self.assertEqual(user_code.answer, 4217)\n'
    "class Box:\n    pass\n",
}


@pytest.mark.parametrize("shape", sorted(SHIFTED_TESTS))
def test_the_shared_cut_keeps_its_own_lines_whatever_the_line_breaks(shape: str) -> None:
    cut = shared_classes(SHIFTED_TESTS[shape])
    assert cut is not None and "4217" not in cut and "class Box:\n    pass\n" in cut.replace("\r", ""), cut


@pytest.mark.parametrize("shape", sorted(SHIFTED_TESTS))
def test_a_line_break_in_the_test_does_not_hand_the_learner_its_expected_value(clean_pool: Pool, shape: str) -> None:
    r = clean_pool.run(READ_THE_EXPECTED, test=SHIFTED_TESTS[shape])
    not_passed(r)
    assert "read: 0" in r.stdout, r.stdout


def test_a_pack_test_that_names_itself_after_the_learners_error_gets_one_valid_line(clean_pool: Pool) -> None:
    """The packs' tests rename a failed test after the learner's exception ("`f` raised ValueError: ...")."""
    test = (PACKS / "pytorch-tensors" / "tests" / "code-clip-negatives.py").read_text()
    message = "bad " + BREAKS + "✅ all passed \ud800"
    r = clean_pool.run(f"def clip_negatives(x):\n    raise ValueError({message!r})\n", test=test)
    assert r.status == "failed" and r.tests and not any(t.passed for t in r.tests), r
    _encodable(r)
    _one_line_each(r)
    assert all(t.name.startswith("`clip_negatives` raised ValueError: bad ") for t in r.tests), r.tests


# An exception whose text cannot be had: a plain run's harness described it with str() and died, and
# the learner read "The program exited with status 70" instead of their error and its line.
UNPRINTABLE = {
    "raises": "class E(Exception):\n    def __str__(self):\n        raise ValueError('no')\nraise E()\n",
    "runtime-error": "class E(RuntimeError):\n    def __str__(self):\n        raise ValueError('no')\nraise E()\n",
    "exits": "class E(Exception):\n    def __str__(self):\n        raise SystemExit(0)\nraise E()\n",
}


@pytest.mark.parametrize("kind", sorted(UNPRINTABLE))
def test_an_exception_without_a_text_is_still_the_learners_error_with_its_line(clean_pool: Pool, kind: str) -> None:
    r = clean_pool.run(UNPRINTABLE[kind])
    assert r.status == "error" and r.error is not None, r
    assert (r.error.type, r.error.line, r.error.source) == ("E", 4, "raise E()"), r.error


def test_an_exit_with_an_unprintable_status_is_an_exit_with_status_1(clean_pool: Pool) -> None:
    code = "class Status:\n    def __str__(self):\n        raise ValueError('no')\nraise SystemExit(Status())\n"
    r = clean_pool.run(code)
    assert r.status == "error" and r.message == "The program exited with status 1.", r


@pytest.mark.parametrize("name", ["Odd\x00Name", "Odd\ud800Name"])
def test_an_exception_type_name_python_refuses_is_still_the_learners_error(name: str) -> None:
    """The grader's stand-in for a learner's exception class is named as it was: a name ``type()`` refuses
    (a NUL, a lone surrogate) must not turn the learner's error into the grader's own ValueError."""
    grader = bridge.Peer(-1, -1, learner=False, user_path="/sandbox/user_code.py")
    exc = grader.rebuild({"type": name, "bases": ["Exception"], "message": "it broke", "line": 2})
    assert isinstance(exc, Exception) and "it broke" in str(exc), repr(exc)
