"""Prove a pack's keys by running them: `quizbot pack validate --run`."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from bot.core.errors import Problem
from bot.core.items.proving import first_code_block, why
from bot.core.ports import CodeRunner, RunOutcome, RunRequest

from .loader import LoadedPack

__all__ = ["count_jobs", "first_code_block", "prove", "why"]


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

    from bot.core.items import kind_of

    jobs = [
        check(q.id, job.request, job.judge) for q in loaded.pack.questions for job in kind_of(q).proof(q)
    ]
    await asyncio.gather(*jobs)
    return sorted(problems, key=lambda p: (p.line, p.col, p.message))


def count_jobs(loaded: LoadedPack) -> int:
    from bot.core.items import kind_of

    return sum(len(kind_of(q).proof(q)) for q in loaded.pack.questions)
