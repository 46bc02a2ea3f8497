"""`/quiz skip` and `/quiz stop` delivered twice act once, whichever bot process each copy reaches.

A command names its delivery (Discord's interaction id, Slack's trigger_id) as `key`. Before, only
an in-process guard knew a repeat: a copy that reached another process skipped the next question
too, and a stop replayed after a new quiz started stopped the new quiz. Now the key is stored with
what the command did (on the item, in the save whose version check makes it once-only) and noted
as the learner's last command, so any process answers a repeat as the first was.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator

import pytest

from bot.core import Actor, QuizService
from bot.core import requests as rq
from bot.core.errors import QuizError
from bot.core.model import Owner, Session
from bot.core.packs import load_path
from bot.storage import SqlRepository, open_repository
from tests.conftest import DEMO_PACK
from tests.fakes import FakeClock, LocalRunner
from tests.storage.conftest import pg_url

__all__ = ["pg_url"]

ANN = Actor("discord", "g1", "ann", "Ann")


def new_service(repository: SqlRepository, clock: FakeClock) -> QuizService:
    return QuizService(repository=repository, runner=LocalRunner(), clock=clock, rng=random.Random(7))


@pytest.fixture
async def second(db_url: str, service: QuizService, clock: FakeClock) -> AsyncIterator[QuizService]:
    """Another bot process's service on the same SQLite database (its own engine and caches)."""
    repository = await open_repository(db_url, migrate=False)
    yield new_service(repository, clock)
    await repository.close()


async def stored(url: str) -> Session | None:
    """Ann's running quiz as stored (a fresh read: a process's repository keeps what it last stored)."""
    repository = await open_repository(url, migrate=False)
    try:
        return await repository.active_session(Owner.user(ANN))
    finally:
        await repository.close()


async def running(url: str) -> Session:
    session = await stored(url)
    assert session is not None
    return session


async def test_the_same_skip_twice_in_one_process_skips_one_question(service: QuizService, db_url: str) -> None:
    await service.handle(ANN, rq.Start(pack="demo", count=3))
    await service.handle(ANN, rq.Skip(key="i-1"))
    again = await service.handle(ANN, rq.Skip(key="i-1"))
    session = await running(db_url)
    assert session.position == 1
    assert [item.skipped for item in session.items] == [True, False, False]
    assert again.messages and again.messages[-1].kind == "item"  # as the first was: the question now asked


async def test_the_same_skip_in_two_processes_skips_one_question(
    service: QuizService, second: QuizService, db_url: str
) -> None:
    await service.handle(ANN, rq.Start(pack="demo", count=3))
    await service.handle(ANN, rq.Skip(key="i-1"))
    await second.handle(ANN, rq.Skip(key="i-1"))
    session = await running(db_url)
    assert session.position == 1
    assert [item.skipped for item in session.items] == [True, False, False]


async def test_the_same_skip_at_once_in_two_processes_skips_one_question(
    service: QuizService, second: QuizService, db_url: str
) -> None:
    await service.handle(ANN, rq.Start(pack="demo", count=3))
    await asyncio.gather(service.handle(ANN, rq.Skip(key="i-1")), second.handle(ANN, rq.Skip(key="i-1")))
    session = await running(db_url)
    assert session.position == 1


async def test_the_same_skip_of_the_last_question_again_shows_the_summary(
    service: QuizService, second: QuizService, db_url: str
) -> None:
    await service.handle(ANN, rq.Start(pack="demo", count=1))
    await service.handle(ANN, rq.Skip(key="i-1"))
    again = await second.handle(ANN, rq.Skip(key="i-1"))  # no quiz runs any more: not "no active quiz"
    assert again.messages[-1].kind == "summary"


async def test_different_skips_each_skip(service: QuizService, second: QuizService, db_url: str) -> None:
    await service.handle(ANN, rq.Start(pack="demo", count=3))
    await service.handle(ANN, rq.Skip(key="i-1"))
    await second.handle(ANN, rq.Skip(key="i-2"))
    await second.handle(ANN, rq.Skip())  # the terminal's: no key, acts as before
    assert await stored(db_url) is None  # all three skipped: finished


async def test_the_same_stop_after_a_new_quiz_started_leaves_the_new_quiz(
    service: QuizService, second: QuizService, db_url: str
) -> None:
    await service.handle(ANN, rq.Start(pack="demo", count=3))
    first = await service.handle(ANN, rq.Stop(key="i-9"))
    assert first.messages[-1].kind == "summary"
    await service.handle(ANN, rq.Start(pack="demo", count=3))
    new = await running(db_url)
    again = await second.handle(ANN, rq.Stop(key="i-9"))
    assert again.messages[-1].kind == "summary"  # the stopped quiz's, as the first was
    session = await running(db_url)
    assert session.id == new.id and session.status == "active"
    await second.handle(ANN, rq.Stop(key="i-10"))  # another stop does stop it
    assert await stored(db_url) is None


async def test_the_same_stop_at_once_in_two_processes_stops_once(
    service: QuizService, second: QuizService, db_url: str
) -> None:
    await service.handle(ANN, rq.Start(pack="demo", count=3))
    replies = await asyncio.gather(
        service.handle(ANN, rq.Stop(key="i-9")), second.handle(ANN, rq.Stop(key="i-9")), return_exceptions=True
    )
    assert all(not isinstance(r, BaseException) for r in replies), replies
    assert await stored(db_url) is None


async def test_stop_without_a_key_acts_as_before(service: QuizService, db_url: str) -> None:
    await service.handle(ANN, rq.Start(pack="demo", count=3))
    await service.handle(ANN, rq.Stop())
    with pytest.raises(QuizError):
        await service.handle(ANN, rq.Stop())  # no quiz running


async def test_the_same_commands_in_two_processes_on_postgresql(pg_url: str) -> None:
    clock = FakeClock()
    one = await open_repository(pg_url)
    two = await open_repository(pg_url, migrate=False)
    try:
        first, other = new_service(one, clock), new_service(two, clock)
        await first.import_pack(load_path(DEMO_PACK).pack)
        await first.handle(ANN, rq.Start(pack="demo", count=3))
        await asyncio.gather(first.handle(ANN, rq.Skip(key="i-1")), other.handle(ANN, rq.Skip(key="i-1")))
        await other.handle(ANN, rq.Skip(key="i-1"))
        assert (await running(pg_url)).position == 1
        await first.handle(ANN, rq.Stop(key="i-2"))
        await first.handle(ANN, rq.Start(pack="demo", count=3))
        await other.handle(ANN, rq.Stop(key="i-2"))
        assert (await running(pg_url)).status == "active"
    finally:
        await two.close()
        await one.close()
