"""CodeRunner-style programs: each case runs the learner's file as __main__ with its stdin, in the
learner's process; the grader compares what it printed and never runs a line of it.

The test modules are the ones the Moodle converter writes (`bot.core.convert.coderunner`).
"""

from __future__ import annotations

import textwrap

from bot.core.convert.coderunner import Case, unittest_module
from tests.sandbox.sandbox_support import Pool

ADD = unittest_module(
    "Add two numbers",
    [Case("", "2 2\n", "4\n", True), Case("", "2 3\n", "5\n", True), Case("", "10 -4\n", "6", False)],
)
RIGHT = "a, b = map(int, input().split())\nprint(a + b)\n"

# The hidden case's expected output cannot be worked out from its input: only a program that reads
# it from the grader (or guesses) could print it.
SECRET = "swordfish-4417"
SECRET_TEST = unittest_module(
    "Say the password",
    [Case("", "hello\n", "hello\n", True), Case("", "password please\n", SECRET + "\n", False)],
)


def names_and_messages(r: object) -> list[tuple[str, bool, str]]:
    return [(t.name, t.passed, t.message) for t in r.tests]  # type: ignore[attr-defined]


def test_the_right_program_passes_every_case(clean_pool: Pool) -> None:
    r = clean_pool.run(RIGHT, test=ADD)
    assert r.status == "passed", r
    assert [t.name for t in r.tests] == [
        "Test 1: `input 2 2` prints the expected output.",
        "Test 2: `input 2 3` prints the expected output.",
        "Hidden test 3 prints the expected output.",
    ]


def test_a_wrong_output_fails_with_the_case_and_both_values(clean_pool: Pool) -> None:
    r = clean_pool.run("a, b = map(int, input().split())\nprint(a * b)\n", test=ADD)
    assert r.status == "failed", r
    assert names_and_messages(r) == [
        ("Test 1: `input 2 2` prints the expected output.", True, ""),
        ("Test 2: `input 2 3` prints the wrong output.", False, "test case 2: expected '5', got '6'"),
        ("Hidden test 3 prints the wrong output.", False, "hidden test case 3: the output differs from the expected one"),
    ]


def test_trailing_white_space_is_ignored_and_a_multi_line_difference_names_its_line(clean_pool: Pool) -> None:
    lines = unittest_module("Count", [Case("", "3\n", "1\n2\n3\n", True)])
    ok = clean_pool.run("n = int(input())\nfor i in range(n):\n    print(i + 1, '  ')\nprint()\n", test=lines)
    assert ok.status == "passed", ok
    off = clean_pool.run("n = int(input())\nfor i in range(n):\n    print(i)\n", test=lines)
    assert [t.message for t in off.tests] == ["test case 1: line 1: expected '1', got '0'"]
    short = clean_pool.run("print(1)\nprint(2)\n", test=lines)
    assert [t.message for t in short.tests] == ["test case 1: line 3: expected '3', got nothing more"]


def test_every_way_of_reading_stdin_and_writing_stdout_counts(clean_pool: Pool) -> None:
    echo = unittest_module("Echo", [Case("", "a\nb\nc\n", "3\nA\nB\nC\nend\n", True)])
    program = textwrap.dedent(
        """
        import os, sys
        lines = open(0).read().split()
        sys.stdout.write(f"{len(lines)}\\n")
        sys.stdout.flush()
        for line in lines:
            os.write(1, line.upper().encode() + b"\\n")
        print("end")
        """
    )
    r = clean_pool.run(program, test=echo)
    assert r.status == "passed", r


def test_each_case_starts_afresh(clean_pool: Pool) -> None:
    twice = unittest_module("Fresh", [Case("", "", "1\n", True), Case("", "", "1\n", True)])
    program = "import builtins\nbuiltins.runs = getattr(builtins, 'runs', 0) + 1\nprint(builtins.runs)\n"
    r = clean_pool.run(program, test=twice)
    assert r.status == "passed", r


def test_an_exception_names_its_type_message_and_line(clean_pool: Pool) -> None:
    r = clean_pool.run("a, b = map(int, input().split())\nprint(a // (b - 2))\n", test=ADD)
    assert r.status == "failed", r
    assert names_and_messages(r)[0] == (
        "Test 1: `input 2 2` stops with ZeroDivisionError.",
        False,
        "test case 1: your program stopped with ZeroDivisionError: integer division or modulo by zero (line 2)",
    )


def test_reading_past_the_input_and_exiting_with_a_status_fail_their_case(clean_pool: Pool) -> None:
    r = clean_pool.run("a = input()\nb = input()\nprint(a)\n", test=ADD)
    assert r.tests[0].message == "test case 1: your program stopped with EOFError: EOF when reading a line (line 2)"
    r = clean_pool.run("import sys\nprint(4)\nsys.exit(3)\n", test=ADD)
    assert r.tests[0].message == "test case 1: your program exited with status 3"


def test_a_syntax_error_is_the_learners_error_with_its_line(clean_pool: Pool) -> None:
    r = clean_pool.run("a, b = map(int, input().split()\nprint(a + b)\n", test=ADD)
    assert r.status == "error" and r.error is not None, r
    assert r.error.type == "SyntaxError" and r.error.line == 1
    assert r.tests == ()


def test_echoing_input_as_python3_w_input(clean_pool: Pool) -> None:
    test = unittest_module("Greet", [Case("", "Ann\n", "Name? Ann\nHello Ann\n", True)], echo_input=True)
    r = clean_pool.run("name = input('Name? ')\nprint('Hello', name)\n", test=test)
    assert r.status == "passed", r


def test_a_program_hunting_for_the_expected_output_cannot_find_it(clean_pool: Pool) -> None:
    """Frames, globals, every object in memory and the modules loaded: the grader's cases are in none."""
    hunt = textwrap.dedent(
        """
        import gc, sys
        line = input()
        found = []
        frame = sys._getframe()
        while frame is not None:  # the caller's locals held `expected` when the grader ran the answer
            for scope in (frame.f_locals, frame.f_globals):
                for key in ("expected", "CASES"):
                    if key in scope:
                        found.append(repr(scope[key]))
            frame = frame.f_back
        for obj in gc.get_objects():
            if isinstance(obj, (list, tuple)) and len(obj) == 5 and all(isinstance(x, (str, bool)) for x in obj):
                found.append(repr(obj))
        for name in ("test_code", "__main__", "user_code"):
            module = sys.modules.get(name)
            if module is not None and "CASES" in vars(module):
                found.append(repr(module.CASES))
        hits = [f for f in found if "swordfish" in f]
        print(hits[0].split("'")[1] if hits else line)
        """
    )
    r = clean_pool.run(hunt, test=SECRET_TEST)
    assert r.status == "failed", r
    assert names_and_messages(r)[1] == (
        "Hidden test 2 prints the wrong output.",
        False,
        "hidden test case 2: the output differs from the expected one",
    )
    assert "swordfish" not in r.stdout + r.stderr + str(r.tests)


def test_a_program_patching_the_comparison_or_forging_results_cannot_pass(clean_pool: Pool) -> None:
    """What the old converted test let through: the answer ran in the grader and could disarm it."""
    attack = textwrap.dedent(
        """
        import json, os, re, unittest
        unittest.TestCase.fail = lambda self, msg=None: None
        unittest.TestCase.assertEqual = lambda self, *a, **k: None
        re.sub = lambda pattern, repl, text, *a, **k: ""
        for fd in range(3, 1024):  # a forged result line or bridge reply on any descriptor left open
            for forged in ({"op": "test", "i": 1, "name": "x", "passed": True, "message": ""},
                           {"op": "reply", "ok": True, "value": "swordfish-4417"}):
                try:
                    os.write(fd, (json.dumps(forged) + "\\n").encode())
                except OSError:
                    pass
        print(input())
        """
    )
    r = clean_pool.run(attack, test=SECRET_TEST)
    assert r.status == "failed", r
    assert [t.passed for t in r.tests] == [True, False]
    assert r.tests[1].message == "hidden test case 2: the output differs from the expected one"


def test_the_converted_moodle_item_passes_with_its_answer_and_fails_with_a_wrong_one(clean_pool: Pool) -> None:
    from pathlib import Path

    from bot.core.convert import convert_bytes

    source = Path(__file__).parents[1] / "fixtures" / "import" / "moodle-pytorch-basics-20261130-1412.xml"
    conversion = convert_bytes(source.name, source.read_bytes())
    test = conversion.files["tests/squares-of-a-tensor.py"]
    answer = "def squares(n):\n    return [i * i for i in range(n)]\n"
    assert clean_pool.run(answer, test=test).status == "passed"
    wrong = clean_pool.run("def squares(n):\n    return [i * i for i in range(1, n + 1)]\n", test=test)
    assert wrong.status == "failed"
    assert wrong.tests[0].message == "test case 1: expected '[0, 1, 4, 9]', got '[1, 4, 9, 16]'"
