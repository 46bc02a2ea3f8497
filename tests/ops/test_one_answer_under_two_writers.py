"""What the two-process tests found, pinned down in one process each.

A learner's click whose save loses to another process's write of the same quiz (a change that
keeps the item) is made again on what is stored, not refused as an old click; the
next item's message being remembered never refuses anything when the learner's answer to it is
stored first by another process; and a Slack click is acknowledged only once its answer is stored.
"""

from __future__ import annotations

import asyncio
import random
from dataclasses import replace
from pathlib import Path
from typing import Any

from sqlalchemy import func, select

from bot.core import QuizService
from bot.core import actions as ax
from bot.core import queries as q
from bot.core import requests as rq
from bot.core.answer import AnswerWrite
from bot.core.model import Actor, Attempt, Owner, Session
from bot.core.packs import load_path
from bot.core.review import Review
from bot.storage import SqlRepository, open_repository
from bot.storage import tables as t
from tests.conftest import DEMO_PACK
from tests.fakes import SHORT_PACK, FakeClock, LocalRunner
from tests.ops.services import write_choice_pack
from tests.slack.conftest import LEARNER, TEAM, Slack, block_text, dm, make_service
from tests.slack.helpers import SOLUTION, feedback_on, is_item

ALICE = Actor("slack", TEAM, "U1ALICE", "Alice")


class WrittenMeanwhile:
    """A repository (the port) that lets another process write the quiz just before this one's first answer is saved."""

    def __init__(self, inner: SqlRepository, theirs: SqlRepository) -> None:
        self.inner, self.theirs, self.interleaved = inner, theirs, 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


    async def write_answer(self, unit: AnswerWrite) -> None:
        # The answer path's one write: a session's answer passes the same fault as its save.
        if unit.session is None or unit.attempt is None:
            await self.inner.write_answer(unit)
            return
        await self.save_session(unit.session, unit.attempt, unit.card)

    async def save_session(self, session: Session, attempt: Attempt | None = None, review: Review | None = None) -> None:
        if attempt is not None and self.interleaved == 0:
            self.interleaved += 1
            theirs = await self.theirs.get_session(session.id)  # the other process writes the quiz first
            assert theirs is not None
            theirs.filters = {**theirs.filters, "next": {"pack": "ops"}}  # a change that keeps the item
            await self.theirs.save_session(theirs)
        await self.inner.save_session(session, attempt, review)


class AnsweredMeanwhile:
    """A repository (the port) where, before each save of an item's message (the anchor), the learner's answer
    to the quiz's current item reaches the other process and is stored first: the learner is quicker than
    this process remembering where it posted."""

    def __init__(self, inner: SqlRepository, other: QuizService, actor: Actor) -> None:
        self.inner, self.other, self.actor, self.answered = inner, other, actor, 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


    async def write_answer(self, unit: AnswerWrite) -> None:
        # The answer path's one write: a session's answer passes the same fault as its save.
        if unit.session is None or unit.attempt is None:
            await self.inner.write_answer(unit)
            return
        await self.save_session(unit.session, unit.attempt, unit.card)

    async def save_anchor(self, session: Session) -> None:
        stored = await self.inner.get_session(session.id)
        if stored is not None and stored.status == "active":
            self.answered += 1
            action = ax.make(session.id, stored.position, ax.CHOOSE, 0)  # "A", the right one
            await self.other.handle(self.actor, rq.Act(action, (), f"other-process-{self.answered}"))
        await self.inner.save_anchor(session)


class AnchoredMeanwhile:
    """A repository (the port) where the other process remembers the item's message just before this one
    stores the learner's code answer to it: this process read the quiz before the anchor was stored."""

    def __init__(self, inner: SqlRepository, other: QuizService, theirs: SqlRepository) -> None:
        self.inner, self.other, self.theirs, self.item_ts, self.anchored = inner, other, theirs, "", 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


    async def write_answer(self, unit: AnswerWrite) -> None:
        # The answer path's one write: a session's answer passes the same fault as its save.
        if unit.session is None or unit.attempt is None:
            await self.inner.write_answer(unit)
            return
        await self.save_session(unit.session, unit.attempt, unit.card)

    async def save_session(self, session: Session, attempt: Attempt | None = None, review: Review | None = None) -> None:
        if attempt is not None and self.item_ts and not self.anchored:
            self.anchored += 1
            anchor = replace(session.anchor, message=self.item_ts)
            await self.other.ask(q.RememberQuiz(session.id, anchor, position=session.position - 1))
            await self.theirs.write_anchors()  # stored now (not with its next save, or a moment later)
        await self.inner.save_session(session, attempt, review)


class SlowSaves:
    """A repository (the port) on a slow database: each save takes a second (Slack's ack must still wait for it)."""

    def __init__(self, inner: SqlRepository) -> None:
        self.inner = inner

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


    async def write_answer(self, unit: AnswerWrite) -> None:
        # The answer path's one write: a session's answer passes the same fault as its save.
        if unit.session is None or unit.attempt is None:
            await self.inner.write_answer(unit)
            return
        await self.save_session(unit.session, unit.attempt, unit.card)

    async def save_session(self, session: Session, attempt: Attempt | None = None, review: Review | None = None) -> None:
        await asyncio.sleep(1.0)
        await self.inner.save_session(session, attempt, review)


async def attempts_in(repository: SqlRepository) -> int:
    async with repository.engine.connect() as c:
        return int((await c.execute(select(func.count()).select_from(t.attempts))).scalar_one())


async def test_an_answer_whose_save_lost_to_another_processes_write_is_made_again(pg_url: str, tmp_path: Path) -> None:
    mine, theirs = await open_repository(pg_url), await open_repository(pg_url)  # two processes' connections
    try:
        other = QuizService(repository=theirs, runner=LocalRunner(), clock=FakeClock())
        await other.import_pack(load_path(write_choice_pack(tmp_path, 3) / "ops").pack)
        repository = WrittenMeanwhile(mine, theirs)
        service = QuizService(repository=repository, runner=LocalRunner(), clock=FakeClock(), rng=random.Random(3))  # type: ignore[arg-type]
        await service.handle(ALICE, rq.Start(pack="ops", count=2))
        session = await mine.active_session(Owner.user(ALICE))
        assert session is not None
        reply = await service.handle(ALICE, rq.Act(ax.make(session.id, 0, ax.CHOOSE, 0), key="click-1"))
        assert repository.interleaved == 1  # the other write did come between this click's read and save
        assert reply.update is not None and "Correct" in reply.update.text()
        stored = await mine.get_session(session.id)
        assert stored is not None and stored.position == 1  # the answer is in...
        assert stored.filters["next"] == {"pack": "ops"}  # ...and the other process's write kept
        assert await attempts_in(mine) == 1
    finally:
        await mine.close()
        await theirs.close()


async def test_a_slack_click_is_acknowledged_once_its_answer_is_stored(
    open_slack: Any, repository: SqlRepository, runner: LocalRunner, clock: FakeClock, tmp_path: Path
) -> None:
    service = make_service(SlowSaves(repository), runner, clock)
    await service.import_pack(load_path(write_choice_pack(tmp_path, 3) / "ops").pack)
    async with open_slack(service) as slack:
        await slack.command("start ops count:2")
        channel = dm(LEARNER)
        (item,) = [m for m in slack.fake.posts(channel) if is_item(m)]
        unsettled = Slack(slack.http, slack.url, slack.fake, None)  # returns with the ack, not after the work
        unsettled._triggers = slack._triggers  # trigger ids go on from the command's: not taken for a repeat
        status, _ = await unsettled.click(channel, item["ts"], label="A")
        assert status == 200
        assert await attempts_in(repository) == 1  # stored before the ack went out
        await slack.settle()
        assert "Correct" in block_text(slack.fake.message(channel, item["ts"])["blocks"])
        assert len([m for m in slack.fake.posts(channel) if is_item(m)]) == 2


async def test_a_short_answer_from_the_slack_form_is_acknowledged_once_stored(
    open_slack: Any, repository: SqlRepository, runner: LocalRunner, clock: FakeClock, tmp_path: Path
) -> None:
    service = make_service(SlowSaves(repository), runner, clock)
    typed = tmp_path / "typed.yaml"
    typed.write_text(SHORT_PACK, encoding="utf-8")
    await service.import_pack(load_path(typed).pack)
    async with open_slack(service) as slack:
        await slack.command("start typed count:1")
        channel = dm(LEARNER)
        (item,) = [m for m in slack.fake.posts(channel) if is_item(m)]
        await slack.click(channel, item["ts"], label="Answer")
        view = slack.last_view()
        unsettled = Slack(slack.http, slack.url, slack.fake, None)  # returns with the ack, not after the work
        unsettled._triggers = slack._triggers
        status, body = await unsettled.submit(view, {"answer": "6"}, settle=False)
        assert status == 200 and body == ""  # the modal closes
        assert await attempts_in(repository) == 1  # stored before the ack went out
        await slack.settle()
        assert "Correct" in block_text(slack.fake.message(channel, item["ts"])["blocks"])


async def test_remembering_an_item_answered_meanwhile_on_another_process_refuses_nothing(
    open_slack: Any, pg_url: str, runner: LocalRunner, clock: FakeClock, tmp_path: Path
) -> None:
    mine, theirs = await open_repository(pg_url), await open_repository(pg_url)  # two processes' connections
    try:
        other = make_service(theirs, runner, clock)
        await other.import_pack(load_path(write_choice_pack(tmp_path, 3) / "ops").pack)
        repository = AnsweredMeanwhile(mine, other, Actor("slack", TEAM, LEARNER, LEARNER))
        service = make_service(repository, runner, clock)
        async with open_slack(service) as slack:
            await slack.command("start ops count:3")
            channel = dm(LEARNER)
            (item,) = [m for m in slack.fake.posts(channel) if is_item(m)]
            said = [block_text(n.get("blocks") or []) + str(n.get("text") or "") for n in [*slack.fake.ephemerals, *slack.fake.responses]]
            said += [block_text(m["blocks"]) + str(m.get("text") or "") for m in slack.fake.posts()]
            assert not [text for text in said if "already answered" in text]  # the learner is refused nothing
            assert repository.answered >= 1  # the other process's answer did come before the anchor's save
        await mine.write_anchors()  # what still waits for its quiz's next save
        async with mine.engine.connect() as c:
            rows = (await c.execute(select(t.sessions.c.id))).scalars().all()
        (session_id,) = rows
        stored = await mine.get_session(session_id)
        assert stored is not None
        assert stored.position == repository.answered  # every answer of the other process is in, once
        assert await attempts_in(mine) == repository.answered
        assert stored.anchor.message != item["ts"]  # the first item's message is not remembered over a later one
    finally:
        await mine.close()
        await theirs.close()


async def test_a_code_answer_edits_the_item_whose_message_was_remembered_while_it_ran(
    open_slack: Any, pg_url: str, runner: LocalRunner, clock: FakeClock
) -> None:
    mine, theirs = await open_repository(pg_url), await open_repository(pg_url)  # two processes' connections
    try:
        other = make_service(theirs, runner, clock)
        await other.import_pack(load_path(DEMO_PACK).pack)
        repository = AnchoredMeanwhile(mine, other, theirs)
        service = make_service(repository, runner, clock)
        async with open_slack(service) as slack:
            await slack.command("start demo difficulty:hard count:1")
            channel = dm(LEARNER)
            (item,) = [m for m in slack.fake.posts(channel) if is_item(m)]
            session_id = (await mine.active_sessions_of("slack", LEARNER))[0].id
            await mine.write_anchors()  # this process's own anchor first, then:
            remembered = await mine.get_session(session_id)
            assert remembered is not None  # as if the item's poster had not remembered its message yet:
            await other.ask(q.RememberQuiz(session_id, replace(remembered.anchor, message=None)))
            await theirs.write_anchors()
            repository.item_ts = item["ts"]
            await slack.message(f"```python\n{SOLUTION}```")
            assert repository.anchored == 1  # remembered between this process's read and its answer's save
            assert [m["ts"] for m in slack.fake.posts(channel) if is_item(m)] == [item["ts"]]  # not posted again
            assert "*Correct!*" in feedback_on(slack, channel, item["ts"])  # the item's own message shows the grade
        assert await attempts_in(mine) == 1
    finally:
        await mine.close()
        await theirs.close()
