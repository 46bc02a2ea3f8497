"""CodeRunner "write a program" questions, exported from Moodle as it writes them, graded as CodeRunner does.

Each converted question passes with its own sample answer and fails with a wrong one. The runs go
through LocalRunner, which serves `# sandbox: program` tests as the sandbox does (the real sandbox
runs the same tests in tests/sandbox/test_sandbox_program.py).
"""

from __future__ import annotations

import pytest

from bot.core.convert import Conversion
from bot.core.ports import RunOutcome, RunRequest
from tests.fakes import LocalRunner

from .helpers import assumed, convert_fixture, item, skipped

FIXTURE = "moodle-coderunner-programs-20261204-1650.xml"


@pytest.fixture(scope="module")
def programs() -> Conversion:
    return convert_fixture(FIXTURE)


async def grade(conversion: Conversion, qid: str, code: str) -> RunOutcome:
    test = conversion.files[f"tests/{qid}.py"]
    assert "# sandbox: program" in test
    return await LocalRunner().run(RunRequest(code, test=test))


def messages(outcome: RunOutcome) -> list[str]:
    return [message for _, ok, message in outcome.tests if not ok]


def test_programs_convert_and_other_graders_and_harness_templates_are_listed(programs: Conversion) -> None:
    assert [(c.id, c.type, c.line) for c in programs.converted] == [
        ("sum-of-a-line", "code", 15),
        ("count-the-words", "code", 130),
        ("greeting", "code", 233),
        ("shout-it", "code", 315),
        ("echoed-menu", "code", 395),
    ]
    reasons = skipped(programs)
    assert reasons[495] == "CodeRunner grader `RegexGrader`: only exact and nearly exact output matches are reproduced"
    assert reasons[575] == "a customised CodeRunner template (a test harness of its own) is not reproduced"
    assert assumed(programs) == {"the customised template's echoing `input()` is reproduced; the rest of it is not carried": (395,)}
    assert "with the input\n```\n2 3\n```\nprints\n```\n5\n```" in item(programs, "sum-of-a-line")["prompt"]


@pytest.mark.parametrize("qid", ["sum-of-a-line", "count-the-words", "greeting", "shout-it", "echoed-menu"])
async def test_each_program_passes_with_its_own_sample_answer(programs: Conversion, qid: str) -> None:
    outcome = await grade(programs, qid, item(programs, qid)["solution"])
    assert outcome.status == "passed", outcome.tests


async def test_a_wrong_sum_fails_its_cases_with_the_values(programs: Conversion) -> None:
    outcome = await grade(programs, "sum-of-a-line", "a, b = map(int, input().split())\nprint(a - b)\n")
    assert outcome.status == "failed"
    assert messages(outcome) == [
        "test case 1: expected '5', got '-1'",
        "hidden test case 2: the output differs from the expected one",  # HIDE_IF_FAIL: hidden when it fails
        "hidden test case 3: the output differs from the expected one",
    ]


async def test_a_multi_line_output_names_the_line_that_differs(programs: Conversion) -> None:
    shortest = await grade(programs, "count-the-words", "import sys\nwords = sys.stdin.read().split()\nprint(len(words))\nprint(min(words, key=len))\n")
    assert messages(shortest) == [
        "test case 1: line 2: expected 'the', got 'on'",
        "hidden test case 2: the output differs from the expected one",
    ]


async def test_without_the_echo_the_greeting_misses_the_typed_name(programs: Conversion) -> None:
    outcome = await grade(programs, "greeting", "name = input('Name? ')\nprint(f'Hello, {name}!')\nprint('bye')\n")
    assert messages(outcome) == ["test case 1: line 3: expected nothing more, got 'bye'"]


async def test_nearly_exact_ignores_spacing_and_case_but_not_words(programs: Conversion) -> None:
    spaced = await grade(programs, "shout-it", "print(input().lower().replace(' ', '\\t'))\n")
    assert spaced.status == "passed"
    wrong = await grade(programs, "shout-it", "print(input()[::-1])\n")
    assert messages(wrong) == ["test case 1: expected 'hello world', got 'dlrow olleh'"]


async def test_a_crash_names_the_exception_and_the_line(programs: Conversion) -> None:
    outcome = await grade(programs, "sum-of-a-line", "line = input()\na, b = line.split(',')\nprint(int(a) + int(b))\n")
    assert messages(outcome)[0] == (
        "test case 1: your program stopped with ValueError: not enough values to unpack (expected 2, got 1) (line 2)"
    )
    assert messages(outcome)[2] == "hidden test case 3: your program stopped with ValueError"
