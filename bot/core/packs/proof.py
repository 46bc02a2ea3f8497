"""Prove a pack's keys by running them: `quizbot pack validate --run`."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from bot.core.errors import Problem
from bot.core.grading import normalize
from bot.core.ports import CodeRunner, RunOutcome, RunRequest

from .loader import LoadedPack
from .models import BlanksQuestion, CodeQuestion, ShortQuestion

FENCE_START = "```"


def first_code_block(markdown: str) -> str | None:
    lines = markdown.splitlines()
    for i, line in enumerate(lines):
        if line.strip().startswith(FENCE_START):
            body: list[str] = []
            for following in lines[i + 1 :]:
                if following.strip().startswith(FENCE_START):
                    return "\n".join(body) + "\n"
                body.append(following)
            return None
    return None


def _why(outcome: RunOutcome) -> str:
    failed = [f"{name}: {message}" for name, ok, message in outcome.tests if not ok]
    if outcome.error_text:
        where = f" at line {outcome.error_line}" if outcome.error_line else ""
        return f"{outcome.status}: {outcome.error_text}{where}"
    if failed:
        return f"{outcome.status}: " + "; ".join(failed[:3])
    return f"{outcome.status}: {outcome.message or outcome.stderr.strip()[-300:]}"


async def prove(loaded: LoadedPack, runner: CodeRunner, *, on_step: Callable[[], None] | None = None) -> list[Problem]:
    """Run every solution, starter, `verify: run` template and `verify: output` snippet."""
    problems: list[Problem] = []

    async def check(qid: str, request: RunRequest, judge: Callable[[RunOutcome], str | None]) -> None:
        outcome = await runner.run(request)
        for _ in range(20):  # the pool said busy: wait for room, this is not the pack's fault
            if outcome.status != "rejected":
                break
            await asyncio.sleep(0.5)
            outcome = await runner.run(request)
        verdict = judge(outcome)
        if verdict:
            problems.append(loaded.problem(qid, f"question `{qid}`: {verdict}"))
        if on_step is not None:
            on_step()

    jobs = []
    for q in loaded.pack.questions:
        if isinstance(q, CodeQuestion):
            time_s = q.limits.time_s if q.limits else None
            memory = q.limits.memory_mb if q.limits else None
            jobs.append(
                check(
                    q.id,
                    RunRequest(q.solution or "", test=q.test, time_s=time_s, memory_mb=memory),
                    lambda o: None if o.status == "passed" else "the solution does not pass its test (" + _why(o) + ")",
                )
            )
            jobs.append(
                check(
                    q.id,
                    RunRequest(q.starter, test=q.test, time_s=time_s, memory_mb=memory),
                    lambda o: "the starter already passes every test; a starter must not be an answer"
                    if o.status == "passed"
                    else None,
                )
            )
        elif isinstance(q, BlanksQuestion) and q.verify == "run":
            jobs.append(
                check(
                    q.id,
                    RunRequest(q.filled()),
                    lambda o: None if o.status == "passed" else "with its answers filled in the code does not run (" + _why(o) + ")",
                )
            )
        elif isinstance(q, ShortQuestion) and q.verify == "output":
            snippet = first_code_block(q.prompt) or ""
            expected = q.accept[0] if q.accept else ""

            def judge(o: RunOutcome, expected: str = expected) -> str | None:
                if o.status != "passed":
                    return "the prompt's code does not run (" + _why(o) + ")"
                if normalize(o.stdout) != normalize(expected):
                    return f"the prompt's code prints {o.stdout.strip()[:200]!r}, not accept[0] {expected!r}"
                return None

            jobs.append(check(q.id, RunRequest(snippet), judge))
    await asyncio.gather(*jobs)
    return sorted(problems, key=lambda p: (p.line, p.col, p.message))


def count_jobs(loaded: LoadedPack) -> int:
    total = 0
    for q in loaded.pack.questions:
        if isinstance(q, CodeQuestion):
            total += 2
        elif (isinstance(q, BlanksQuestion) and q.verify == "run") or (isinstance(q, ShortQuestion) and q.verify == "output"):
            total += 1
    return total
