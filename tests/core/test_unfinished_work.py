"""Work a stopped or killed process never finished: the learner's next request is told once, no attempt used.

Two QuizServices over one in-memory repository stand for two bot processes on one database; each
has its own `Unfinished` (its own start id). The sandbox is a runner that holds each job until the
test releases it, so a grading is "in flight" for as long as the test wants.
"""

from __future__ import annotations

import asyncio
import random
from datetime import timedelta

import pytest

from bot.core import Actor, QuizError, QuizService, error_reply
from bot.core import actions as ax
from bot.core.packs import load_path
from bot.core.ports import RunOutcome, RunRequest
from bot.core.replies import Message, Reply
from bot.core.work import MARGIN, Unfinished, Work
from tests.conftest import DEMO_PACK
from tests.fakes import FakeClock
from tests.memory_repo import MemoryRepository, MemoryWorkLog

ANN = Actor("slack", "T1", "ann", "Ann")
BEN = Actor("slack", "T1", "ben", "Ben")
BOB = Actor("slack", "T1", "bob", "Bob")
CODE = "```python\ntotal = sum(range(1, 11))\nprint(total)\n```"
NOTE = "The bot restarted before it finished grading your answer to **Define total as the sum of the numbers 1 to 10"


class HeldRunner:
    """A sandbox port whose jobs wait until released; then they pass."""

    max_code_bytes = 10_000

    def __init__(self) -> None:
        self.started = asyncio.Event()
        self.release = asyncio.Event()

    async def run(self, request: RunRequest) -> RunOutcome:
        self.started.set()
        await self.release.wait()
        return RunOutcome(status="passed", tests=(("It works.", True, ""),))

    async def close(self) -> None:
        return None


class Process:
    """One bot process: its service, its unfinished-work tracker, its sandbox."""

    def __init__(self, repo: MemoryRepository, clock: FakeClock) -> None:
        self.runner = HeldRunner()
        self.work = Unfinished(MemoryWorkLog(repo), clock)
        self.service = QuizService(repository=repo, runner=self.runner, clock=clock, rng=random.Random(1), work=self.work)

    async def grading(self, actor: Actor = ANN) -> asyncio.Task[Reply]:
        """Send code for the current item and return once the sandbox holds it."""
        task = asyncio.create_task(self.service.submit_text(actor, CODE))
        await asyncio.wait_for(self.runner.started.wait(), 5)
        return task


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
async def repo() -> MemoryRepository:
    repo = MemoryRepository()
    pack = load_path(DEMO_PACK).pack
    repo.packs[pack.pack] = pack
    return repo


async def started(process: Process, actor: Actor = ANN) -> str:
    """Start a one-item code quiz; return the session id."""
    await process.service.start(actor, pack="demo", question="q-code")
    session = await process.service.active_session(actor)
    assert session is not None
    return session.id


async def kill(task: asyncio.Task[Reply]) -> None:
    """What is left of a request in a process that died: its row, nothing else (no reply, no save)."""
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task


def notes(reply: Reply) -> list[str]:
    return [m.text() for m in reply.messages if "The bot restarted" in m.text()]


async def attempts_left_untouched(repo: MemoryRepository, session_id: str) -> None:
    session = await repo.get_session(session_id)
    assert session is not None and session.items[0].attempts == 0 and session.position == 0
    assert repo.attempts == []


async def test_a_killed_process_work_is_told_once_after_its_deadline_and_costs_no_attempt(
    repo: MemoryRepository, clock: FakeClock
) -> None:
    a, b = Process(repo, clock), Process(repo, clock)
    sid = await started(a)
    await kill(await a.grading())
    assert len(repo.work) == 1

    early = await b.service.current(ANN)  # the row's deadline has not passed: maybe it still runs
    assert notes(early) == []
    clock.advance(seconds=60 + MARGIN.total_seconds())
    told = await b.service.current(ANN)
    assert told.messages[0].text().startswith("🔄 " + NOTE), told.messages[0].text()
    assert told.messages[0].text().endswith("please send it again. It did not count as an attempt.")
    assert told.messages[-1].kind == "item"  # then the request goes on as usual
    assert notes(await b.service.current(ANN)) == []  # once
    assert repo.work == {}
    await attempts_left_untouched(repo, sid)


async def test_a_shutdown_marks_its_work_abandoned_and_the_other_process_tells_at_once(
    repo: MemoryRepository, clock: FakeClock
) -> None:
    a, b = Process(repo, clock), Process(repo, clock)
    sid = await started(a)
    grading = await a.grading()
    assert await a.work.abandon() == 1  # the grace ran out
    await kill(grading)
    reply = await b.service.stats(ANN)
    assert len(notes(reply)) == 1 and reply.messages[0].text().startswith("🔄 " + NOTE)
    assert notes(await b.service.stats(ANN)) == []
    await attempts_left_untouched(repo, sid)
    # and the answer sent again is graded and counted as usual
    b.runner.release.set()
    graded = await b.service.submit_text(ANN, CODE)
    assert graded.update is not None and "Correct" in graded.update.text()
    assert len(repo.attempts) == 1 and repo.work == {}


async def test_a_new_process_adopting_a_killed_ones_work_tells_at_once_and_keeps_its_own(
    repo: MemoryRepository, clock: FakeClock
) -> None:
    a, b = Process(repo, clock), Process(repo, clock)
    sid = await started(a)
    grading = await a.grading()
    await kill(grading)  # killed: nothing marked, the row keeps its deadline minutes away
    assert notes(await b.service.stats(ANN)) == []
    await started(b, BEN)
    own = await b.grading(BEN)  # the new process's own work, started before it adopts
    assert await b.work.adopt() == 1  # only the killed process's row
    reply = await b.service.stats(ANN)
    assert len(notes(reply)) == 1 and reply.messages[0].text().startswith("🔄 " + NOTE)
    await attempts_left_untouched(repo, sid)
    assert notes(await b.service.stats(BEN)) == []  # still grading here: not abandoned
    b.runner.release.set()
    assert (await own).update is not None


async def test_work_still_running_here_is_not_abandoned_even_past_its_deadline(
    repo: MemoryRepository, clock: FakeClock
) -> None:
    a = Process(repo, clock)
    await started(a)
    grading = await a.grading()
    assert notes(await a.service.stats(ANN)) == []
    clock.advance(hours=1)  # a long queue in the sandbox: this process knows the job still runs
    assert notes(await a.service.stats(ANN)) == []
    a.runner.release.set()
    reply = await grading
    assert reply.update is not None and "Correct" in reply.update.text() and notes(reply) == []
    assert len(repo.attempts) == 1 and repo.work == {}  # the row went with the attempt


async def test_a_grade_that_lands_after_the_learner_was_told_is_refused(repo: MemoryRepository, clock: FakeClock) -> None:
    a, b = Process(repo, clock), Process(repo, clock)
    sid = await started(a)
    grading = await a.grading()
    await a.work.abandon()
    assert len(notes(await b.service.current(ANN))) == 1  # told to send it again...
    a.runner.release.set()
    with pytest.raises(QuizError, match="not counted"):  # ...so the late grade must not use up an attempt
        await grading
    await attempts_left_untouched(repo, sid)


async def test_the_note_comes_with_an_error_reply_too(repo: MemoryRepository, clock: FakeClock) -> None:
    a, b = Process(repo, clock), Process(repo, clock)
    sid = await started(a)
    grading = await a.grading()
    await a.work.abandon()
    await kill(grading)
    with pytest.raises(QuizError) as caught:
        await b.service.act(ANN, ax.make(sid, 5, ax.HINT))  # a stale button
    reply = error_reply(caught.value)
    assert reply.messages[0].text().startswith("🔄 " + NOTE) and len(reply.messages) == 2
    assert notes(await b.service.current(ANN)) == []


async def test_an_abandoned_run_is_told_and_only_to_its_learner(repo: MemoryRepository, clock: FakeClock) -> None:
    a, b = Process(repo, clock), Process(repo, clock)
    runs = [asyncio.create_task(a.service.run_code(ANN, f"```python\nprint({n})\n```")) for n in (1, 2)]
    await asyncio.wait_for(a.runner.started.wait(), 5)
    while len(repo.work) < 2:  # both runs reach the sandbox; the second must not replace the first's row
        await asyncio.sleep(0)
    assert await a.work.abandon() == 2
    for running in runs:
        await kill(running)
    assert notes(await b.service.stats(BOB)) == []
    reply = await b.service.stats(ANN)
    assert [m.text() for m in reply.messages[:2]] == [
        "🔄 The bot restarted before it finished running your code; please send it again."
    ] * 2
    assert notes(await b.service.stats(ANN)) == []


async def test_finished_work_leaves_no_row(repo: MemoryRepository, clock: FakeClock) -> None:
    a = Process(repo, clock)
    a.runner.release.set()
    await started(a)
    graded = await a.service.submit_text(ANN, "```python\ntotal = 1\n```")
    assert graded.update is not None and repo.work == {}
    with pytest.raises(QuizError):  # refused before it reaches the sandbox: an error reply, no row
        await a.service.submit_text(ANN, "```python\n" + "x = 1\n" * 3000 + "```")
    await a.service.run_code(ANN, "```python\nprint(1)\n```")
    assert repo.work == {}
    clock.advance(days=1)
    assert all(not notes(r) for r in [await a.service.stats(ANN)])


def test_the_note_names_the_question() -> None:
    from datetime import UTC, datetime

    from bot.core.work import restarted_note

    now = datetime(2026, 12, 1, tzinfo=UTC)
    work = Work("w1", "slack", "ann", "s1:0", "grade", "Sum of a range", "p1", now, now + timedelta(minutes=3))
    note: Message = restarted_note(work)
    assert note.text() == (
        "🔄 The bot restarted before it finished grading your answer to **Sum of a range**; please send it again."
        " It did not count as an attempt."
    )


class BrokenLog(MemoryWorkLog):
    """A work log whose database is gone: nothing can be written."""

    async def begin(self, work: Work) -> None:
        raise OSError("database unreachable")


async def test_work_runs_untracked_when_its_row_cannot_be_written(repo: MemoryRepository, clock: FakeClock) -> None:
    a = Process(repo, clock)
    a.work = Unfinished(BrokenLog(repo), clock)
    a.service = QuizService(repository=repo, runner=a.runner, clock=clock, rng=random.Random(1), work=a.work)
    a.runner.release.set()
    sid = await started(a)
    ran = await a.service.run_code(ANN, "```python\nprint(1)\n```")
    assert ran.messages[0].title == "Run"
    graded = await a.service.submit_text(ANN, CODE)
    assert graded.update is not None and "Correct" in graded.update.text()
    assert len(repo.attempts) == 1 and repo.attempts[0].work is None and repo.work == {}
    assert (await repo.get_session(sid)) is not None
