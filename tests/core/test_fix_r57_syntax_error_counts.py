"""Code that parses counts as an attempt, even when it raises SyntaxError itself.

The bot decided "did not parse" from the run's error type alone, so code that raised SyntaxError at
import (`raise SyntaxError`, or a class of its own by that name) was told "This did not count as
an attempt", and could be run again and again for free. The bot now compiles the code itself
(never running it) when the run reports a syntax error: only code that does not compile is
refused without costing an attempt.
"""

from __future__ import annotations

import random

import pytest

from bot.core import Actor, QuizService
from bot.core import requests as rq
from bot.core.packs import load_path
from bot.core.ports import RunOutcome, RunRequest
from bot.core.replies import Message, Reply
from tests.conftest import DEMO_PACK
from tests.fakes import FakeClock
from tests.memory_repo import MemoryRepository

ANN = Actor("discord", "guild-1", "ann", "Ann")
NOT_COUNTED = "did not count as an attempt"


class ScriptedRunner:
    """A sandbox port that answers with the outcome the test chose (what the sandbox reports of the code)."""

    max_code_bytes = 64 * 1024

    def __init__(self, outcome: RunOutcome) -> None:
        self.outcome = outcome
        self.requests: list[RunRequest] = []

    async def run(self, request: RunRequest) -> RunOutcome:
        self.requests.append(request)
        return self.outcome

    async def close(self) -> None:
        return None


def raised(line: int, text: str = "SyntaxError: free run") -> RunOutcome:
    """The sandbox's report of code whose import raised a syntax error at `line`, every test erroring."""
    return RunOutcome(status="error", error_text=text, error_line=line, tests=(("It prints 55.", False, text),))


@pytest.fixture
def repo() -> MemoryRepository:
    return MemoryRepository()


@pytest.fixture
def runner() -> ScriptedRunner:
    return ScriptedRunner(raised(1))


@pytest.fixture
async def core(repo: MemoryRepository, runner: ScriptedRunner) -> QuizService:
    service = QuizService(repository=repo, runner=runner, clock=FakeClock(), rng=random.Random(3))
    await service.import_pack(load_path(DEMO_PACK).pack)
    return service


def item_of(reply: Reply) -> Message:
    return next(m for m in reply.messages if m.kind == "item")


async def footer(core: QuizService) -> str:
    return item_of(await core.handle(ANN, rq.Current())).footer or ""


RAISING = [
    ("raise SyntaxError('free run')\n", 1),
    ("class SyntaxError(Exception):\n    pass\n\nraise SyntaxError('free run')\n", 4),
    ("total = 55\nraise IndentationError('free run')\n", 2),
    ("exec('print(')\n", 1),  # a syntax error of code the learner's code compiles at run time: it ran
]


@pytest.mark.parametrize(("code", "line"), RAISING, ids=["raise", "own class", "indentation", "exec"])
async def test_code_that_parses_and_raises_a_syntax_error_costs_an_attempt(
    core: QuizService, repo: MemoryRepository, runner: ScriptedRunner, code: str, line: int
) -> None:
    await core.handle(ANN, rq.Start(pack="demo", question="q-code"))
    runner.outcome = raised(line)
    for sent in range(1, 3):
        reply = await core.handle(ANN, rq.Submit(f"```python\n{code}```"))
        text = "\n".join(m.text() for m in reply.messages) + (reply.update.text() if reply.update else "")
        assert NOT_COUNTED not in text, text
        assert len(repo.attempts) == sent and not repo.attempts[-1].correct
    assert "1 attempt left" in await footer(core)
    assert len(runner.requests) == 2


async def test_code_that_does_not_parse_still_costs_nothing(core: QuizService, repo: MemoryRepository, runner: ScriptedRunner) -> None:
    await core.handle(ANN, rq.Start(pack="demo", question="q-code"))
    runner.outcome = RunOutcome(status="error", error_text="SyntaxError: '(' was never closed", error_line=2, error_col=6)
    for code in ("total = 1\nprint(total\n", "if True:\nprint(1)\n", "x = (" * 300 + ")" * 300 + "\n", "return 5\n"):
        reply = await core.handle(ANN, rq.Submit(f"```python\n{code}```"))
        assert NOT_COUNTED in reply.messages[0].text(), code
    assert repo.attempts == []
    assert "3 attempts left" in await footer(core)


@pytest.mark.parametrize(
    ("code", "expected"),
    [
        ("total = sum(range(1, 11))\nprint(total)\n", True),
        ("raise SyntaxError('x')\n", True),
        ("s = '\\d'\n", True),  # a warning while compiling, not an error
        ("print(\n", False),
        ("def f():\n  x = 1\n    return x\n", False),
        ("nonlocal x\n", False),  # refused by the compiler, not the parser
        ("x = " + "(" * 1000 + ")" * 1000 + "\n", False),  # nested too deep for the parser
        ("x = " + "-" * 60000 + "1\n", False),
        ("x = " + "1+" * 30000 + "1\n", False),  # too deep for the compiler: RecursionError
        ("x = 1\x00\n", False),  # a NUL byte: ValueError
    ],
    ids=["plain", "raises", "warning", "unclosed", "indent", "nonlocal", "parens", "unary", "binary", "nul"],
)
def test_the_bot_tells_parsing_code_from_code_that_does_not_parse(code: str, expected: bool) -> None:
    from bot.core.items.codetext import parses  # compiled, never run

    assert parses(code) is expected
