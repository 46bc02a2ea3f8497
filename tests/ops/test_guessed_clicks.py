"""A click decided on a guess: the quiz as this process last stored it, with no read (PostgreSQL, two processes).

The guess saves a round trip on every plain click; when another process wrote the quiz since, the
guess's save is refused by its version, and the click is decided again on what is stored.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator, Awaitable
from pathlib import Path
from typing import Any, TypeVar

import pytest
from sqlalchemy import event, func, select

from bot.core import QuizService
from bot.core import actions as ax
from bot.core import queries as q
from bot.core import requests as rq
from bot.core.errors import QuizExpired
from bot.core.model import Actor, Anchor, Owner
from bot.core.packs import load_path
from bot.storage import SqlRepository, open_repository
from bot.storage import tables as t
from tests.fakes import FakeClock, LocalRunner
from tests.ops.services import write_choice_pack

ALICE = Actor("discord", "G1", "111", "Alice")
BOB = Actor("discord", "G1", "222", "Bob")
T = TypeVar("T")


@pytest.fixture
async def two(pg_url: str, tmp_path: Path) -> AsyncIterator[tuple[QuizService, QuizService, SqlRepository, str]]:
    """Two processes' services on one database, and Alice's three-item quiz, started by the first."""
    mine, theirs = await open_repository(pg_url), await open_repository(pg_url)
    try:
        here = QuizService(repository=mine, runner=LocalRunner(), clock=FakeClock(), rng=random.Random(3))
        there = QuizService(repository=theirs, runner=LocalRunner(), clock=FakeClock(), rng=random.Random(3))
        await here.import_pack(load_path(write_choice_pack(tmp_path, 5) / "ops").pack)
        await here.handle(ALICE, rq.Start(pack="ops", count=3))
        session = await mine.active_session(Owner.user(ALICE))
        assert session is not None
        yield here, there, mine, session.id
    finally:
        await mine.close()
        await theirs.close()


async def written(repository: SqlRepository, session_id: str, anchor: Anchor) -> None:
    """Wait for another process's anchor to be stored (it waits a moment for its quiz's next save: storage/anchors.py)."""
    for _ in range(200):
        stored = await repository.get_session(session_id)
        if stored is not None and stored.anchor == anchor:
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"the anchor {anchor} was never stored")


def click(session_id: str, position: int, key: str, choice: int = 0) -> rq.Act:
    return rq.Act(ax.make(session_id, position, ax.CHOOSE, choice), key=key)


async def statements_of(repository: SqlRepository, work: Awaitable[T], statements: list[str]) -> T:
    """Do `work`, with the SQL it sends through `repository` added to `statements`."""

    def seen(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        statements.append(statement)

    event.listen(repository.engine.sync_engine, "before_cursor_execute", seen)
    try:
        return await work
    finally:
        event.remove(repository.engine.sync_engine, "before_cursor_execute", seen)


def reads_of_sessions(statements: list[str]) -> list[str]:
    return [s for s in statements if s.lstrip().upper().startswith("SELECT") and "sessions" in s]


async def attempts_in(repository: SqlRepository) -> int:
    async with repository.engine.connect() as c:
        return int((await c.execute(select(func.count()).select_from(t.attempts))).scalar_one())


async def test_a_click_on_a_quiz_this_process_stored_last_reads_no_session(two: Any) -> None:
    here, _there, mine, sid = two
    await here.handle(ALICE, click(sid, 0, "k0"))
    statements: list[str] = []

    reply = await statements_of(mine, here.handle(ALICE, click(sid, 1, "k1")), statements)
    assert reply.update is not None and "Correct" in reply.update.text()
    assert statements, "the answer was written"
    assert not reads_of_sessions(statements)
    stored = await mine.get_session(sid)
    assert stored is not None and stored.position == 2


async def test_a_guess_another_process_overtook_is_decided_again_on_the_stored_quiz(two: Any) -> None:
    here, there, mine, sid = two
    await here.handle(ALICE, click(sid, 0, "k0"))  # this process's guess: item 1 is next
    await there.handle(ALICE, click(sid, 1, "k1"))  # the other process answers item 1
    reply = await here.handle(ALICE, click(sid, 2, "k2"))  # on the guess, item 2 is not yet asked
    assert reply.update is not None and "Correct" in reply.update.text()
    stored = await mine.get_session(sid)
    assert stored is not None and stored.status == "finished" and stored.position == 3
    assert await attempts_in(mine) == 3


async def test_a_second_click_the_other_process_answered_is_not_counted_again(two: Any) -> None:
    here, there, mine, sid = two
    await here.handle(ALICE, click(sid, 0, "k0"))
    await there.handle(ALICE, click(sid, 1, "k1"))  # the learner's first click on item 1
    reply = await here.handle(ALICE, click(sid, 1, "k1-again", choice=1))  # a second click on it, "wrong"
    assert reply.update is not None and "Correct" in reply.update.text()  # the stored grade, in place
    assert not reply.messages  # what follows was shown by the first click's reply
    assert await attempts_in(mine) == 2
    stored = await mine.get_session(sid)
    assert stored is not None and stored.position == 2 and stored.items[1].correct


async def test_a_click_on_a_quiz_the_other_process_stopped_is_refused_as_stopped(two: Any) -> None:
    here, there, mine, sid = two
    await here.handle(ALICE, click(sid, 0, "k0"))  # this process's guess: item 1 is next, the quiz active
    await there.handle(ALICE, rq.Act(ax.make(sid, 1, ax.STOP)))
    with pytest.raises(QuizExpired, match="stopped"):
        await here.handle(ALICE, click(sid, 1, "k1"))
    assert await attempts_in(mine) == 1
    stored = await mine.get_session(sid)
    assert stored is not None and stored.status == "stopped" and stored.position == 1


async def test_a_reply_that_stores_nothing_is_made_on_the_stored_quiz(two: Any) -> None:
    here, there, mine, sid = two
    await here.handle(ALICE, click(sid, 0, "k0"))
    posted = Anchor(channel="C9", message="9001")  # where the other process posted item 1
    await there.ask(q.RememberQuiz(sid, posted, position=1))
    await written(mine, sid, posted)
    reply = await here.handle(ALICE, click(sid, 0, "k0"))  # the same click, delivered again
    assert reply.update is not None and "Correct" in reply.update.text()
    assert reply.anchor == posted  # not the anchor of this process's guess
    assert await attempts_in(mine) == 1


async def test_a_quiz_two_processes_take_turns_at_is_read_not_guessed(two: Any) -> None:
    here, there, mine, _alice = two
    await here.handle(BOB, rq.Start(pack="ops", count=5))
    session = await mine.active_session(Owner.user(BOB))
    assert session is not None
    sid = session.id
    for position, service in enumerate((here, there, here, there)):  # round robin: each guess is behind
        await service.handle(BOB, click(sid, position, f"b{position}"))
    statements: list[str] = []
    reply = await statements_of(mine, here.handle(BOB, click(sid, 4, "b4")), statements)
    assert reply.update is not None and "Correct" in reply.update.text()
    assert len(reads_of_sessions(statements)) == 1  # read once, as stored...
    writes = [s for s in statements if not s.lstrip().upper().startswith("SELECT")]
    assert len(writes) == 1, writes  # ...and no save on the guess: it was refused before it wrote
    assert await attempts_in(mine) == 5


async def test_a_guess_behind_the_item_clicked_is_not_taken(two: Any) -> None:
    here, there, mine, sid = two
    await here.handle(ALICE, click(sid, 0, "k0"))  # this process stored the quiz at item 1
    await there.handle(ALICE, click(sid, 1, "k1"))  # the other moved it to item 2
    behind = await mine.recent_session(sid)
    assert behind is not None and behind.position == 1  # as this process last stored it
    clicked = await mine.recent_session(sid, 2)  # for a click on item 2: that guess is behind, so read
    stored = await mine.get_session(sid)
    assert clicked is not None and stored is not None
    assert (clicked.position, clicked.version) == (stored.position, stored.version) == (2, behind.version + 1)
