"""Issue 20: one answer path. A daily post's answer is one transaction; streak and mastered mean one thing."""

from __future__ import annotations

import ast
import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import event, text

from bot.core import QuizService
from bot.core import requests as rq
from bot.core.daily import DailyService
from bot.core.daily.errors import QuestionClosed
from bot.core.errors import QuizError
from bot.core.model import Actor
from bot.scheduler import PlatformPosters, Scheduler
from bot.storage import SqlRepository
from bot.storage.daily import DailyRepository
from tests.daily.support import FakePoster
from tests.daily.wired import wire
from tests.fakes import FakeClock, LocalRunner

ADMIN = Actor("discord", "g1", "ada", "Ada", is_admin=True, channel_id="c1")
ANN = Actor("discord", "g1", "ann", "Ann", channel_id="c1")
STORAGE = Path(__file__).resolve().parents[2] / "bot" / "storage"
RULES = {"bot.core.review", "bot.core.answer", "bot.core.progress", "bot.core.daily.streak", "bot.core.daily.cards"}


async def test_a_daily_post_answer_whose_save_fails_once_is_kept_whole_on_the_retry(
    repository: SqlRepository, clock: FakeClock, runner: LocalRunner, tmp_path: Path
) -> None:
    wired = await wire(repository, clock, runner, tmp_path)
    service, store = wired.service, wired.scheduler._store
    poster = FakePoster()
    await wired.posters.add("discord", poster)
    await service.handle(ADMIN, rq.DailySet(time="11:00", timezone="UTC", pack="demo", difficulty="easy"))
    await service.handle(ADMIN, rq.DailyNow())
    [post] = await store.open_posts("discord", "c1")
    [(_, _, shown)] = poster.of("post")
    first = next(c for c in shown.controls() if c.action.startswith(f"dp:{post.id}:0:"))
    # A real fault in the database: the attempt's insert fails, once.
    async with repository.engine.begin() as c:
        await c.execute(
            text("CREATE TRIGGER fail_once BEFORE INSERT ON attempts BEGIN INSERT INTO gone_table VALUES (1); END")
        )
    with pytest.raises(Exception) as failed:
        await service.handle(ANN, rq.Act(first.action))
    assert not isinstance(failed.value, QuizError)  # a fault, not a refusal
    async with repository.engine.begin() as c:
        await c.execute(text("DROP TRIGGER fail_once"))
    # Nothing of the failed click was kept: not the tally, not the member's row, not the streak.
    kept = await store.get_post(post.id)
    assert kept is not None and kept.answered == 0
    assert await store.member_answer(post.id, "ann") is None
    # The learner tries again: the answer is counted once, with its attempt, card and streak.
    again = await service.handle(ANN, rq.Act(first.action))
    assert "already" not in again.messages[-1].text()
    counted = await store.get_post(post.id)
    assert counted is not None and counted.answered == 1
    seen = (await repository.history("discord", "ann", ["demo"]))[(post.pack, post.question)]
    assert seen.attempts == 1
    assert (await store.get_learner("discord", "ann")).streak.current == 1


async def test_one_streak_on_the_stats_card_after_a_quiz_answer(
    repository: SqlRepository, clock: FakeClock, runner: LocalRunner, tmp_path: Path
) -> None:
    wired = await wire(repository, clock, runner, tmp_path)
    started = await wired.service.handle(ANN, rq.Start(pack="demo", question="q-choice"))
    item = next(m for m in started.messages if m.kind == "item")
    choice = next(c for c in item.controls() if getattr(c, "text", "").startswith("`"))
    await wired.service.handle(ANN, rq.Act(choice.action))
    stats = await wired.service.handle(ANN, rq.Stats())
    text_ = "\n".join(m.text() for m in stats.messages)
    assert "streak **1** day" in text_ and "1 day (longest 1)" in text_


def test_storage_imports_no_rule_module_of_the_core() -> None:
    found = []
    for path in sorted(STORAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module in RULES and not _type_only(path, node):
                found.append(f"{path.name}: {node.module}")
            if isinstance(node, ast.Import):
                found += [f"{path.name}: {a.name}" for a in node.names if a.name in RULES or a.name == "fsrs"]
            if isinstance(node, ast.ImportFrom) and node.module == "fsrs":
                found.append(f"{path.name}: fsrs")
    assert found == []


def _type_only(path: Path, node: ast.ImportFrom) -> bool:
    """An import under `if TYPE_CHECKING:` names a value type for annotations only."""
    tree = ast.parse(path.read_text())
    for block in ast.walk(tree):
        guarded = isinstance(block, ast.If) and isinstance(block.test, ast.Name) and block.test.id == "TYPE_CHECKING"
        if guarded and any(isinstance(n, ast.ImportFrom) and n.lineno == node.lineno for n in ast.walk(block)):
            return True
    return False


async def test_a_scored_answer_wakes_the_scheduler_so_the_tally_moves_at_once(
    repository: SqlRepository, clock: FakeClock, runner: LocalRunner, tmp_path: Path
) -> None:
    await wire(repository, clock, runner, tmp_path)  # the packs
    poster = FakePoster()
    posters = PlatformPosters({})
    await posters.add("discord", poster)
    store = DailyRepository.beside(repository)
    # Asleep for an hour unless woken: only a wake can bring the tally edit in this test's bound.
    scheduler = Scheduler(store=store, packs=repository, clock=clock, poster=posters, max_sleep_s=3600)
    daily = DailyService(store=store, packs=repository, clock=clock, wake=scheduler.wake)
    service = QuizService(repository=repository, runner=runner, clock=clock, daily=daily, post_now=scheduler.post_now)
    await service.handle(ADMIN, rq.DailySet(time="11:00", timezone="UTC", pack="demo", difficulty="easy"))
    await service.handle(ADMIN, rq.DailyNow())
    [post] = await store.open_posts("discord", "c1")
    [(_, _, shown)] = poster.of("post")
    first = next(c for c in shown.controls() if c.action.startswith(f"dp:{post.id}:0:"))
    task = scheduler.start()
    try:
        await _until(lambda: scheduler._woken.is_set() is False and not poster.of("edit"))
        await service.handle(ANN, rq.Act(first.action))
        await asyncio.wait_for(_until(lambda: bool(poster.of("edit"))), timeout=60)
    finally:
        await scheduler.close()
    assert task.done()
    [(_, _, edited)] = poster.of("edit")
    assert edited.footer == "1 person has answered · 1 right"


async def _until(condition: Callable[[], bool]) -> None:
    while not condition():
        await asyncio.sleep(0.01)


async def _posted(wired: Any, poster: FakePoster) -> tuple[Any, str]:
    """The day's post and the action of its first answer control."""
    await wired.posters.add("discord", poster)
    await wired.service.handle(ADMIN, rq.DailySet(time="11:00", timezone="UTC", pack="demo", difficulty="easy"))
    await wired.service.handle(ADMIN, rq.DailyNow())
    [post] = await wired.scheduler._store.open_posts("discord", "c1")
    [(_, _, shown)] = poster.of("post")
    return post, next(c.action for c in shown.controls() if c.action.startswith(f"dp:{post.id}:0:"))


async def test_a_click_on_the_daily_post_reads_the_post_once_and_the_members_answer_twice(
    repository: SqlRepository, clock: FakeClock, runner: LocalRunner, tmp_path: Path
) -> None:
    wired = await wire(repository, clock, runner, tmp_path)
    post, first = await _posted(wired, FakePoster())
    reads: list[str] = []

    def heard(_c: Any, _cursor: Any, statement: str, *_rest: Any) -> None:
        if statement.lstrip().upper().startswith("SELECT"):
            reads.append(" ".join(statement.split()))

    event.listen(repository.engine.sync_engine, "before_cursor_execute", heard)
    try:
        reply = await wired.service.handle(ANN, rq.Act(first))
    finally:
        event.remove(repository.engine.sync_engine, "before_cursor_execute", heard)
    assert "already" not in reply.messages[-1].text()
    stored = await wired.scheduler._store.get_post(post.id)
    assert stored is not None and stored.answered == 1
    # Opened once for grading (the post, its pack's version, the member's answer so far); the
    # member's answer is read again just before it is stored (a hint taken meanwhile is kept).
    assert sum("FROM daily_posts" in r for r in reads) == 1, reads
    assert sum("FROM daily_answers" in r for r in reads) == 2, reads
    assert sum(r.startswith("SELECT packs.version") for r in reads) == 1, reads


async def test_a_hint_taken_while_an_answer_was_graded_is_kept_with_the_answer(
    repository: SqlRepository, clock: FakeClock, runner: LocalRunner, tmp_path: Path
) -> None:
    wired = await wire(repository, clock, runner, tmp_path)
    post, _first = await _posted(wired, FakePoster())
    opened = await wired.daily.open_post(ANN, post.id)  # as a code answer's grading starts
    assert opened.mine is None
    await wired.daily.hint_post(ANN, post.id)  # the member asks for the hint meanwhile
    answered = await wired.daily.answer_post(ANN, post.id, correct=True, opened=opened)
    assert answered.answer.hinted and answered.answer.done
    stored = await wired.scheduler._store.member_answer(post.id, "ann")
    assert stored is not None and stored.hinted and stored.correct


async def test_an_answer_to_a_post_closed_while_it_was_graded_is_refused(
    repository: SqlRepository, clock: FakeClock, runner: LocalRunner, tmp_path: Path
) -> None:
    wired = await wire(repository, clock, runner, tmp_path)
    post, _first = await _posted(wired, FakePoster())
    opened = await wired.daily.open_post(ANN, post.id)
    clock.advance(seconds=(post.reveal_at - clock.now()).total_seconds())  # the reveal time passes while the code runs
    with pytest.raises(QuestionClosed):
        await wired.daily.answer_post(ANN, post.id, correct=True, opened=opened)
    assert await wired.scheduler._store.member_answer(post.id, "ann") is None
