"""Where an item was posted (the anchor) waits for its quiz's next save, or is written a moment later.

On PostgreSQL two repositories on one database stand for two bot processes; the last test is SQLite (one process).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from bot.core import QuizService
from bot.core import queries as q
from bot.core import requests as rq
from bot.core.model import Actor, Anchor, Owner
from bot.core.packs import load_path
from bot.core.ports import Conflict, RunOutcome, RunRequest
from bot.storage import SqlRepository, anchors, open_repository
from tests.conftest import DEMO_PACK
from tests.fakes import FakeClock, LocalRunner
from tests.storage import clicks

ANN = Actor("discord", "guild-1", "ann", "Ann")


@pytest.fixture(autouse=True)
def wait(monkeypatch: pytest.MonkeyPatch) -> float:
    """A longer moment than the bot's, so that what a test does before it ends is not outrun on a busy host."""
    monkeypatch.setattr(anchors, "WAIT", 1.0)
    return anchors.WAIT


@pytest.fixture
async def two(pg_url: str) -> AsyncIterator[tuple[SqlRepository, SqlRepository]]:
    """Two processes on one PostgreSQL database (`here` remembers, `there` reads), with quiz s1 (three items) stored here."""
    here, there = await open_repository(pg_url), await open_repository(pg_url)
    try:
        await here.create_session(clicks.new_session("s1", "ann", 3))
        yield here, there
    finally:
        await here.close()
        await there.close()


async def anchored(repo: SqlRepository, session_id: str, message: str) -> None:
    """What `QuizDesk.remember` does with the quiz this process stored last."""
    session = await repo.recent_session(session_id)
    assert session is not None
    session.anchor = Anchor(channel="C1", message=message)
    await repo.save_anchor(session)


async def test_an_anchor_is_written_a_moment_later_for_every_process(two: tuple[SqlRepository, SqlRepository]) -> None:
    here, there = two
    await anchored(here, "s1", "m0")
    theirs = await there.get_session("s1")
    assert theirs is not None and theirs.anchor.message is None  # waiting: not written yet

    await asyncio.sleep(anchors.WAIT * 3)  # the moment passes: written, for every process
    theirs = await there.get_session("s1")
    assert theirs is not None and (theirs.anchor.message, theirs.version, theirs.position) == ("m0", 1, 0)
    guess = await here.recent_session("s1", 0)  # this process's guess moved on with it
    assert guess is not None and (guess.version, guess.anchor.message) == (1, "m0")
    guess.position = 1
    await here.save_session(guess, clicks.attempt(guess, "k1"))  # the guess saves: no conflict


async def test_an_anchor_rides_with_the_quizs_next_save(two: tuple[SqlRepository, SqlRepository]) -> None:
    here, there = two
    await anchored(here, "s1", "m0")
    assert (await here.get_session("s1")).anchor.message == "m0"  # type: ignore[union-attr] # here: at once
    click = await here.recent_session("s1", 0)
    assert click is not None and click.anchor.message == "m0"
    click.current.picked.append(1)  # type: ignore[union-attr] # a click that stays on the item (a multi-select's toggle)
    await here.save_session(click)
    stored = await there.get_session("s1")
    assert stored is not None and (stored.anchor.message, stored.version) == ("m0", 1)  # one save, both in
    await asyncio.sleep(anchors.WAIT * 3)  # nothing waits: no second write
    stored = await there.get_session("s1")
    assert stored is not None and stored.version == 1


async def test_a_click_decided_while_its_anchor_is_written_is_not_refused(two: tuple[SqlRepository, SqlRepository]) -> None:
    here, there = two
    await anchored(here, "s1", "m0")
    click = await here.recent_session("s1", 0)  # decided on...
    assert click is not None
    await here.write_anchors()  # ...while the anchor is written
    click.position = 1
    await here.save_session(click, clicks.attempt(click, "k1"))  # no Conflict: made once, not again
    stored = await there.get_session("s1")
    assert stored is not None and (stored.position, stored.anchor.message, stored.version) == (1, "m0", 2)

    # another process's save from before the anchor was written is refused, as any stale save
    await anchored(here, "s1", "m1")
    stale = await there.get_session("s1")
    assert stale is not None and stale.anchor.message == "m0"
    await here.write_anchors()
    stale.filters = {"topics": ["tensors"]}
    with pytest.raises(Conflict):
        await there.save_session(stale)
    stored = await there.get_session("s1")
    assert stored is not None and (stored.anchor.message, stored.filters, stored.version) == ("m1", {}, 3)


async def test_a_read_while_the_anchor_is_written_still_carries_it(pg_url: str) -> None:
    """A read racing the write may see the row just before it: this process still knows the anchor."""
    here = await open_repository(pg_url)
    try:
        for n in range(20):
            sid = f"r{n}"
            await here.create_session(clicks.new_session(sid, f"u{n}", 3))
            await anchored(here, sid, f"m{n}")
            writing = asyncio.create_task(here.write_anchors())
            await asyncio.sleep(0)  # the write's statement is on its way
            read = await here.active_session(clicks.new_session(sid, f"u{n}", 3).owner)
            await writing
            assert read is not None and read.anchor.message == f"m{n}", f"quiz {sid}, read at version {read and read.version}"
    finally:
        await here.close()


async def test_a_waiting_anchor_never_undoes_what_another_process_stored(two: tuple[SqlRepository, SqlRepository]) -> None:
    here, there = two
    await here.create_session(clicks.new_session("s2", "bob", 3))
    await anchored(here, "s1", "m0")  # item 1's message
    await anchored(here, "s2", "n0")
    # the learner answers item 1 on the other process before the anchor is written
    theirs = await there.get_session("s1")
    assert theirs is not None
    theirs.position = 1
    theirs.anchor = Anchor(channel="C1", message="m1")
    await there.save_session(theirs, clicks.attempt(theirs, "k1"))
    # the quiz of s2 was saved there at the same item: its anchor still belongs, on the row as read
    other = await there.get_session("s2")
    assert other is not None
    other.filters = {"topics": ["tensors"]}
    await there.save_session(other)

    await here.write_anchors()
    s1, s2 = await there.get_session("s1"), await there.get_session("s2")
    assert s1 is not None and (s1.position, s1.anchor.message, s1.version) == (1, "m1", 1)  # untouched
    assert s2 is not None and (s2.anchor.message, s2.filters, s2.version) == ("n0", {"topics": ["tensors"]}, 2)


async def test_a_stop_writes_what_waits(pg_url: str) -> None:
    here, there = await open_repository(pg_url), await open_repository(pg_url)
    try:
        await here.create_session(clicks.new_session("s1", "ann", 3))
        await anchored(here, "s1", "m0")
    finally:
        await here.close()
    try:
        stored = await there.get_session("s1")
        assert stored is not None and stored.anchor.message == "m0"
    finally:
        await there.close()


async def test_sqlite_keeps_an_anchor_in_its_cache_and_writes_it_without_refusing_a_save(db_url: str) -> None:
    """SQLite (one process): the anchor is in the cache at once, in the file with the next save or soon after."""
    repo = await open_repository(db_url)
    try:
        await repo.create_session(clicks.new_session("s1", "ann", 3))
        await anchored(repo, "s1", "m0")
        click = await repo.recent_session("s1", 0)  # what this process reads: the cache
        assert click is not None and (click.anchor.message, click.version) == ("m0", 0)
        await repo.write_anchors()  # written while the click is decided...
        click.position = 1
        await repo.save_session(click, clicks.attempt(click, "k1"))  # ...which is not refused for it
        later = await open_repository(db_url)  # the file, as the next start reads it
        try:
            stored = await later.get_session("s1")
            assert stored is not None and (stored.position, stored.anchor.message, stored.version) == (1, "m0", 1)
        finally:
            await later.close()
        await anchored(repo, "s1", "m1")  # kept, not yet written...
    finally:
        await repo.close()  # ...until the stop writes it
    again = await open_repository(db_url)
    try:
        stored = await again.get_session("s1")
        assert stored is not None and (stored.anchor.message, stored.version) == ("m1", 1)
    finally:
        await again.close()


async def test_an_anchor_is_kept_on_the_quiz_this_process_holds_without_a_read(any_url: str) -> None:
    """`save_anchor_at`: SQLite sets it on the cached quiz at that item; elsewhere (or PostgreSQL) the caller reads."""
    repo = await open_repository(any_url)
    try:
        await repo.create_session(clicks.new_session("s1", "ann", 3))
        click = await repo.recent_session("s1", 0)  # a click decided before the item's message is known
        assert click is not None
        kept = await repo.save_anchor_at("s1", 0, Anchor(channel="C1", message="m0"))
        assert kept == repo.db.sqlite
        assert not await repo.save_anchor_at("s1", 2, Anchor(channel="C1", message="m2"))  # not at that item
        assert not await repo.save_anchor_at("nope", None, Anchor(channel="C1", message="m9"))  # not held here
        if not kept:
            return
        read = await repo.get_session("s1")
        assert read is not None and (read.anchor.message, read.version) == ("m0", 0)
        click.position = 1
        await repo.save_session(click, clicks.attempt(click, "k1"))  # its save carries the anchor
        stored = await repo.get_session("s1")
        assert stored is not None and (stored.position, stored.anchor.message, stored.version) == (1, "m0", 1)
        assert await repo.save_anchor_at("s1", None, Anchor(channel="C1", message="m1"))
    finally:
        await repo.close()  # writes what was kept
    if repo.db.sqlite:
        again = await open_repository(any_url)
        try:
            stored = await again.get_session("s1")
            assert stored is not None and (stored.anchor.message, stored.version) == ("m1", 1)
        finally:
            await again.close()


class HeldRunner(LocalRunner):
    """A sandbox whose runs wait until the test lets them go: a code answer in the middle of its grading."""

    def __init__(self) -> None:
        super().__init__()
        self.started, self.go = asyncio.Event(), asyncio.Event()

    async def run(self, request: RunRequest) -> RunOutcome:
        self.started.set()
        await self.go.wait()
        return await super().run(request)


async def test_an_anchor_remembered_while_a_code_answer_grades_rides_with_its_save(any_url: str) -> None:
    """The item's message is remembered while the learner's code answer to it grades (a quick learner).

    Remembering waits for no lock the answer holds, and the answer's save carries the anchor: the
    reply names the item's message (the front end edits it rather than posting the item again).
    """
    repo, runner = await open_repository(any_url), HeldRunner()
    try:
        service = QuizService(repository=repo, runner=runner, clock=FakeClock())
        await service.import_pack(load_path(DEMO_PACK).pack)
        await service.handle(ANN, rq.Start(pack="demo", question="q-code"))
        session = await repo.active_session(Owner.user(ANN))
        assert session is not None
        answering = asyncio.create_task(service.handle(ANN, rq.Submit("```python\ntotal = 55\nprint(total)\n```", code_only=True)))
        await runner.started.wait()  # grading, the quiz's lock held
        posted = Anchor(channel="C1", message="item-1")
        await asyncio.wait_for(service.ask(q.RememberQuiz(session.id, posted, position=0)), 5)
        runner.go.set()
        reply = await answering
        assert reply.anchor == posted
        await repo.write_anchors()
        stored = await repo.get_session(session.id)
        assert stored is not None and (stored.position, stored.anchor) == (1, posted)
    finally:
        await repo.close()
