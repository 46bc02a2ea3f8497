"""Prove a pack's keys by running them: `quizbot pack validate --run`.

What is run, all through the sandbox and many jobs at once:

- every code item: the solution must pass every test; the starter and each wrong-solution fixture
  (`wrong/<question id>/*.py` beside a folder pack's `pack.yaml`) must fail at least one;
- every `verify: run` blanks item: the key and each `also_correct` filling must run cleanly, and
  no other filling may (see `fillings`);
- every `verify: output` short item: the prompt's first code block must print `accept[0]`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bot.core.errors import PackInvalid, Problem
from bot.core.i18n import M_
from bot.core.items.proving import first_code_block, why
from bot.core.ports import CodeRunner, RunOutcome, RunRequest

from . import fillings as fill
from .loader import PACK_FILE, LoadedPack
from .models import AnyQuestion, BlanksQuestion

WRONG_DIR = "wrong"
MAX_WRONG_PER_ITEM = 20
MAX_WRONG_BYTES = 64 * 1024
IN_FLIGHT = 6  # jobs handed to the sandbox at once; more would only be turned away as busy


__all__ = ["Proof", "count_jobs", "first_code_block", "passing_part", "proof_of", "prove", "why", "wrong_solutions"]


@dataclass(frozen=True)
class WrongSolution:
    """A wrong-solution fixture: `wrong/<question id>/<name>.py`."""

    question_id: str
    path: Path
    code: str


def pack_folder(loaded: LoadedPack) -> Path | None:
    """Return the folder of a pack read from `<folder>/pack.yaml` on disk, else None."""
    source = Path(loaded.source)
    if source.name == PACK_FILE and source.is_file():
        return source.parent
    return None


def wrong_solutions(loaded: LoadedPack, folder: Path | None) -> tuple[list[WrongSolution], list[Problem]]:
    """Find the wrong-solution fixtures of a folder pack, with a problem for each misplaced one."""
    if folder is None or not (folder / WRONG_DIR).is_dir():
        return [], []
    found: list[WrongSolution] = []
    problems: list[Problem] = []
    from bot.core.items import kind_of

    code_ids = {q.id for q in loaded.pack.questions if kind_of(q).wrong_solutions}
    for entry in sorted((folder / WRONG_DIR).iterdir()):
        if not entry.is_dir():
            problems.append(Problem(str(entry), 1, 1, M_("wrong solutions go in wrong/<question id>/<name>.py")))
            continue
        if entry.name not in code_ids:
            known = ", ".join(sorted(code_ids)) or "none"
            problems.append(Problem(str(entry), 1, 1, M_("`{name}` is not a code question of this pack (code questions: {known})", name=entry.name, known=known)))
            continue
        files = sorted(p for p in entry.iterdir() if p.suffix == ".py" and p.is_file())
        if len(files) > MAX_WRONG_PER_ITEM:
            problems.append(Problem(str(entry), 1, 1, M_("at most {most} wrong solutions per question", most=MAX_WRONG_PER_ITEM)))
            files = files[:MAX_WRONG_PER_ITEM]
        for path in files:
            if path.stat().st_size > MAX_WRONG_BYTES:
                problems.append(Problem(str(path), 1, 1, M_("larger than {size}", size=f"{MAX_WRONG_BYTES // 1024} KiB")))
                continue
            try:
                code = path.read_bytes().decode("utf-8")
            except UnicodeDecodeError as exc:
                problems.append(Problem(str(path), 1, 1, M_("not UTF-8 text (byte {byte})", byte=exc.start)))
                continue
            found.append(WrongSolution(entry.name, path, code))
    return found, problems


def _judge_wrong(outcome: RunOutcome) -> str | None:
    if outcome.status == "passed":
        return M_("passes every test; the tests must reject this wrong solution")
    if any(not ok for _, ok, _ in outcome.tests) or outcome.status in ("timeout", "memory"):
        return None
    return M_("does not reach the tests ({why}); a wrong solution must load and then fail a test", why=why(outcome))


class _Prover:
    def __init__(self, loaded: LoadedPack, runner: CodeRunner, on_step: Callable[[], None] | None) -> None:
        self.loaded = loaded
        self.runner = runner
        self.on_step = on_step
        self.problems: list[Problem] = []
        self.failing: dict[str, list[Problem]] = {}  # the problems of each failing question, by its id
        self.gate = asyncio.Semaphore(IN_FLIGHT)

    def fail(self, qid: str, problem: Problem) -> None:
        self.problems.append(problem)
        self.failing.setdefault(qid, []).append(problem)

    def step(self) -> None:
        if self.on_step is not None:
            self.on_step()

    async def run(self, request: RunRequest) -> RunOutcome:
        async with self.gate:
            outcome = await self.runner.run(request)
            for _ in range(120):  # the pool said busy: wait for room, this is not the pack's fault
                if outcome.status != "rejected":
                    break
                await asyncio.sleep(0.25)
                outcome = await self.runner.run(request)
        return outcome

    async def check(self, qid: str, request: RunRequest, judge: Callable[[RunOutcome], str | None]) -> None:
        verdict = judge(await self.run(request))
        if verdict:
            self.fail(qid, self.loaded.problem(qid, M_("question `{id}`: {problem}", id=qid, problem=verdict)))
        self.step()

    async def wrong(self, q: AnyQuestion, fixture: WrongSolution) -> None:
        from bot.core.items import kind_of

        outcome = await self.run(kind_of(q).graded_run(q, fixture.code))
        verdict = _judge_wrong(outcome)
        if verdict:
            line = outcome.error_line or 1
            self.fail(q.id, Problem(str(fixture.path), line, 1, M_("wrong solution of question `{id}`: {problem}", id=q.id, problem=verdict)))
        self.step()

    async def others(self, q: BlanksQuestion, batch: list[fill.Filling]) -> None:
        """Screen a batch of other fillings; confirm each that ran with a job of its own."""
        pending = list(batch)
        ran: list[fill.Filling] = []
        while pending:
            job = fill.batch(q, pending)
            outcome = await self.run(RunRequest(job.code))
            reported = job.read(outcome.stdout)
            if not reported:  # the first filling alone stopped the job: decide it as a job of its own
                reported = {0: (await self.run(RunRequest(q.filled(pending[0])))).status == "passed"}
            ran.extend(pending[i] for i, ok in reported.items() if ok)
            pending = [f for i, f in enumerate(pending) if i not in reported]
        for filling in ran:
            outcome = await self.run(RunRequest(q.filled(filling)))
            if outcome.status == "passed":
                self.fail(
                    q.id,
                    self.loaded.problem(
                        q.id,
                        M_(
                            "question `{id}`: the filling {filling} also runs cleanly, so a learner who picks it is marked "
                            "wrong for working code; make the template reject it or list it in `also_correct`",
                            id=q.id, filling=fill.describe(q, filling),
                        ),
                    )
                )
        self.step()


@dataclass(frozen=True)
class Proof:
    """What a proof found: every problem, and those of each failing question by its id.

    `whole_pack` are the problems no question owns (a misplaced wrong-solution fixture): with any
    of them, no part of the pack may be loaded.
    """

    problems: tuple[Problem, ...] = ()
    failing: dict[str, tuple[Problem, ...]] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not self.problems

    @property
    def whole_pack(self) -> tuple[Problem, ...]:
        owned = {id(p) for found in self.failing.values() for p in found}
        return tuple(p for p in self.problems if id(p) not in owned)

    def passing(self, loaded: LoadedPack) -> list[str]:
        """Return the ids of the pack's questions that passed, in pack order."""
        return [q.id for q in loaded.pack.questions if q.id not in self.failing]


async def proof_of(
    loaded: LoadedPack,
    runner: CodeRunner,
    *,
    on_step: Callable[[], None] | None = None,
    folder: Path | None = None,
) -> Proof:
    """Run every solution, starter, wrong solution, blanks filling and `verify: output` snippet.

    `folder` is where `wrong/` is looked for; by default the folder of a pack read from disk.
    """
    prover = _Prover(loaded, runner, on_step)
    fixtures, problems = wrong_solutions(loaded, folder or pack_folder(loaded))
    prover.problems.extend(problems)
    from bot.core.items import kind_of

    jobs: list[Coroutine[Any, Any, None]] = []
    for q in loaded.pack.questions:
        kind = kind_of(q)
        jobs.extend(prover.check(q.id, job.request, job.judge) for job in kind.proof(q))
        jobs.extend(prover.wrong(q, w) for w in fixtures if w.question_id == q.id)
        checked = kind.checked_fillings(q)
        if checked is not None:
            jobs.extend(prover.others(checked, part) for part in fill.chunks(fill.fillings_to_try(checked)))
    await asyncio.gather(*jobs)
    order = {q.id: n for n, q in enumerate(loaded.pack.questions)}
    failing = {
        qid: tuple(sorted(found, key=_where))
        for qid, found in sorted(prover.failing.items(), key=lambda pair: order.get(pair[0], len(order)))
    }
    return Proof(tuple(sorted(prover.problems, key=_where)), failing)


async def prove(
    loaded: LoadedPack,
    runner: CodeRunner,
    *,
    on_step: Callable[[], None] | None = None,
    folder: Path | None = None,
) -> list[Problem]:
    """Return every problem `proof_of` finds, in file and line order."""
    return list((await proof_of(loaded, runner, on_step=on_step, folder=folder)).problems)


def passing_part(loaded: LoadedPack, found: Proof) -> LoadedPack:
    """Return the pack without the questions that failed their proof.

    Raise PackInvalid with every problem when no part may be loaded: a problem no question owns,
    or no question left.
    """
    keep = set(found.passing(loaded))
    if found.whole_pack or not keep:
        raise PackInvalid(list(found.problems))
    if len(keep) == len(loaded.pack.questions):
        return loaded
    pack = loaded.pack.model_copy(update={"questions": [q for q in loaded.pack.questions if q.id in keep]})
    return LoadedPack(pack, loaded.source, {k: v for k, v in loaded.lines.items() if k in keep})


def _where(p: Problem) -> tuple[str, int, int, str]:
    return (p.file, p.line, p.col, p.message)


def count_jobs(loaded: LoadedPack, folder: Path | None = None) -> int:
    """Return the number of steps `prove` reports through `on_step`."""
    from bot.core.items import kind_of

    fixtures, _ = wrong_solutions(loaded, folder or pack_folder(loaded))
    total = len(fixtures)
    for q in loaded.pack.questions:
        kind = kind_of(q)
        total += len(kind.proof(q))
        checked = kind.checked_fillings(q)
        if checked is not None:
            total += len(fill.chunks(fill.fillings_to_try(checked)))
    return total
