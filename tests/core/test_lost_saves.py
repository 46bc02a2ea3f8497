"""A request whose save loses to another write of the same quiz is made again on what is stored, not refused.

Another bot process, or this one's write of where an item was posted a moment after posting it,
may change a quiz between a request's read and its save. The save's version check refuses it and
keeps nothing; the request is then made again on a fresh read. Before, a `/quiz start` on a running
quiz was not: the learner read "That question was already answered" in answer to a start.
"""

from __future__ import annotations

import random

import pytest

from bot.core import Actor, QuizService
from bot.core import requests as rq
from bot.core.errors import SaveConflict
from bot.core.model import Owner, Session
from bot.core.packs import load_path
from tests.conftest import DEMO_PACK
from tests.fakes import FakeClock
from tests.memory_repo import MemoryRepository

ANN = Actor("console", "local", "ann", "Ann")


class OvertakenRepository(MemoryRepository):
    """Once armed, the next read of a quiz is followed by another write of it (its version moves on)."""

    def __init__(self) -> None:
        super().__init__()
        self.overtake = 0  # reads still to be overtaken
        self.overtaken = 0
        self.reads = {"get", "active"}  # which reads: of a quiz by its id, of an owner's running quiz

    def _after(self, read: Session | None, kind: str) -> Session | None:
        if read is not None and self.overtake and kind in self.reads:
            self.overtake -= 1
            self.overtaken += 1
            self.sessions[read.id].version += 1  # someone else's save, after this read
        return read

    async def get_session(self, session_id: str) -> Session | None:
        return self._after(await super().get_session(session_id), "get")

    async def active_session(self, owner: Owner) -> Session | None:
        return self._after(await super().active_session(owner), "active")


async def running_quiz() -> tuple[OvertakenRepository, QuizService, Session]:
    """Ann's 3-item quiz, running, on a repository not yet armed."""
    repo = OvertakenRepository()
    service = QuizService(repository=repo, runner=None, clock=FakeClock(), rng=random.Random(3))
    await service.import_pack(load_path(DEMO_PACK).pack)
    await service.handle(ANN, rq.Start(pack="demo", count=3))
    (running,) = repo.sessions.values()
    return repo, service, running


async def test_a_start_on_a_running_quiz_asks_first_even_when_its_save_lost() -> None:
    repo, service, running = await running_quiz()
    repo.overtake, repo.reads = 1, {"get"}  # the read the question is saved on
    reply = await service.handle(ANN, rq.Start(pack="demo", count=2))
    assert repo.overtaken == 1
    assert "You have a quiz running: question 1 of 3" in reply.messages[0].text()
    assert "already answered" not in reply.messages[0].text()
    assert repo.sessions[running.id].filters["next"]["count"] == 2  # kept, for "Start new"


async def test_a_new_quiz_in_place_of_a_running_one_starts_even_when_stopping_it_lost_its_save() -> None:
    repo, service, running = await running_quiz()
    repo.overtake = 1
    reply = await service.handle(ANN, rq.Start(pack="demo", count=2, replace=True))
    assert repo.overtaken == 1
    assert "Your previous quiz was stopped" in reply.messages[0].text()
    assert repo.sessions[running.id].status == "stopped"
    (new,) = (s for s in repo.sessions.values() if s.id != running.id)
    assert new.status == "active" and len(new.items) == 2


async def test_a_start_whose_quiz_keeps_changing_is_refused_and_changes_nothing() -> None:
    repo, service, running = await running_quiz()
    repo.overtake = 10
    with pytest.raises(SaveConflict):
        await service.handle(ANN, rq.Start(pack="demo", count=2))
    assert repo.overtaken == 6  # tried three times in all (each reads the running quiz twice), then refused
    assert "next" not in repo.sessions[running.id].filters
