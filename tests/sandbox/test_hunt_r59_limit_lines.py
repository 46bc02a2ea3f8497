"""Round 59's hunt: each test's line when a graded job goes over a limit.

A job over a limit passes nothing, so every test is failed then; but a test that had run and passed
before the limit read "not run", and the test during which the memory limit ended the learner's
program read "your program ended before this test could check it", although the summary knew it
was the memory limit. The test that passed now says it ran and is not counted, naming the limit;
the one the limit ended names the limit.
"""

from __future__ import annotations

import textwrap
from typing import Any

from sandbox import Result
from sandbox._assemble import assemble
from sandbox._messages import JobLimits
from tests.sandbox.sandbox_support import Pool

TEST = textwrap.dedent(
    """
    import unittest
    import user_code

    class TestAnswer(unittest.TestCase):
        def test_a_small(self):
            self.assertEqual(user_code.small(), 1)

        def test_b_big(self):
            self.assertEqual(user_code.big(), 1)
    """
)

MEMORY = textwrap.dedent(
    """
    def small():
        return 1

    def big():
        chunks = []
        while True:
            chunks.append(bytearray(32 * 1024 * 1024))
    """
)

OUTPUT = textwrap.dedent(
    """
    import os

    def small():
        return 1

    def big():
        for _ in range(64):
            os.write(1, b"x" * 4096 + b"\\n")
        return 1
    """
)


def _lines(r: Result) -> dict[str, str]:
    assert [t.name for t in r.tests] == ["test_a_small", "test_b_big"], r.tests
    assert not any(t.passed for t in r.tests), r.tests  # a job over a limit passes nothing
    return {t.name: t.message for t in r.tests}


def test_the_memory_limit_is_named_on_the_lines_it_touched(clean_pool: Pool) -> None:
    r = clean_pool.run(MEMORY, test=TEST)
    assert r.status == "memory", (r.status, r.message, r.tests)
    lines = _lines(r)
    assert "not run" not in lines["test_a_small"] and "passed" in lines["test_a_small"], lines
    assert "memory limit (256 MB)" in lines["test_a_small"], lines
    assert "memory limit (256 MB)" in lines["test_b_big"], lines
    assert "ended before this test" not in lines["test_b_big"], lines


def test_the_output_limit_is_named_on_the_test_that_passed_before_it(clean_pool: Pool) -> None:
    r = clean_pool.run(OUTPUT, test=TEST)
    assert r.status == "output_limit", (r.status, r.message, r.tests)
    lines = _lines(r)
    assert "not run" not in lines["test_a_small"] and "passed" in lines["test_a_small"], lines
    assert "output limit (64 KiB)" in lines["test_a_small"], lines


LIMITS = JobLimits(wall_s=10, cpu_s=10, memory_mb=768, output_bytes=65536)
PLAN: dict[str, Any] = {"op": "plan", "tests": ["m.T.test_a", "m.T.test_b", "m.T.test_c"]}
PASSED_A: dict[str, Any] = {"op": "test", "i": 0, "name": "test_a", "passed": True, "message": ""}


def test_only_the_test_running_when_the_program_ended_reads_during_this_test() -> None:
    report: Any = {"messages": [PLAN, PASSED_A], "exit_code": 1}
    r = assemble(report, graded=True, limits=LIMITS, layers=())
    assert [t.message for t in r.tests[1:]] == [
        "did not report a result: the program ended during this test",
        "not run: the program ended before this test",
    ], r.tests


def test_the_oom_kill_is_named_on_the_test_it_ended_and_not_on_those_after() -> None:
    report: Any = {
        "messages": [PLAN, PASSED_A],
        "signal": 9,
        "cgroup": {"oom_kills": 1},
    }
    r = assemble(report, graded=True, limits=LIMITS, layers=())
    assert r.status == "memory", r
    assert [t.message for t in r.tests] == [
        "passed, but not counted: the run then went over the memory limit (768 MB)",
        "the memory limit (768 MB) ended your program during this test",
        "not run: the program ended before this test",
    ], r.tests


def test_after_the_graders_own_memory_line_the_rest_were_not_run() -> None:
    out_of_memory = {"op": "test", "i": 1, "name": "test_b", "passed": False, "message": "MemoryError (line 3 of your code)"}
    report: Any = {"messages": [PLAN, PASSED_A, out_of_memory, {"op": "memory"}]}
    r = assemble(report, graded=True, limits=LIMITS, layers=())
    assert r.status == "memory", r
    assert [t.message for t in r.tests[1:]] == [
        "MemoryError (line 3 of your code)",
        "not run: the program ended before this test",
    ], r.tests
