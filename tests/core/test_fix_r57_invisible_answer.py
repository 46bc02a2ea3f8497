"""A short answer made only of invisible characters is refused as empty, and costs no attempt.

A whitespace-only answer was told "The answer is empty." and kept its attempt; one made of a
zero-width space (U+200B), a word joiner, a byte-order mark or a Hangul filler, which shows exactly
as much, was graded as a wrong answer and used an attempt up.
"""

from __future__ import annotations

import random

import pytest

from bot.core import Actor, BadSubmission, QuizService
from bot.core import requests as rq
from bot.core.packs import load_path
from bot.core.replies import Message
from tests.conftest import DEMO_PACK
from tests.fakes import FakeClock
from tests.memory_repo import MemoryRepository

ANN = Actor("discord", "guild-1", "ann", "Ann")

INVISIBLE = [
    "\u200b",  # zero-width space
    " \u200b\u200b ",  # with spaces around
    "\u2060",  # word joiner
    "\ufeff",  # byte-order mark
    "\u200c\u200d",  # zero-width non-joiner and joiner
    "\u00ad",  # soft hyphen
    "\u3164",  # Hangul filler
    "\u2800",  # blank Braille cell
    "\u200e\u202f\u200f",  # direction marks around a narrow no-break space
]


@pytest.fixture
def repo() -> MemoryRepository:
    return MemoryRepository()


@pytest.fixture
async def core(repo: MemoryRepository) -> QuizService:
    service = QuizService(repository=repo, runner=None, clock=FakeClock(), rng=random.Random(3))
    await service.import_pack(load_path(DEMO_PACK).pack)
    return service


def item_of(messages: tuple[Message, ...]) -> Message:
    return next(m for m in messages if m.kind == "item")


@pytest.mark.parametrize("answer", INVISIBLE, ids=[f"U+{ord(a.strip()[0]):04X}" for a in INVISIBLE])
async def test_an_invisible_answer_is_empty_and_costs_no_attempt(core: QuizService, repo: MemoryRepository, answer: str) -> None:
    await core.handle(ANN, rq.Start(pack="demo", question="q-short"))
    form = (await core.handle(ANN, rq.OpenAnswer())).form
    assert form is not None
    with pytest.raises(BadSubmission, match=r"^The answer is empty\.$"):
        await core.handle(ANN, rq.Act(form.action, (answer,), key="typed-invisible"))
    assert repo.attempts == []
    before = item_of((await core.handle(ANN, rq.Current())).messages)
    assert "3 attempts left" in (before.footer or ""), before.footer
    right = await core.handle(ANN, rq.Act(form.action, ("6",), key="typed-six"))  # the real answer still counts
    assert right.update is not None and "Correct" in right.update.text()
    assert len(repo.attempts) == 1


async def test_the_same_answer_typed_as_a_message_is_empty_too(core: QuizService, repo: MemoryRepository) -> None:
    await core.handle(ANN, rq.Start(pack="demo", question="q-short"))
    with pytest.raises(BadSubmission, match=r"^The answer is empty\.$"):
        await core.handle(ANN, rq.Submit("\u200b\u2060"))
    assert repo.attempts == []


async def test_a_visible_answer_with_a_zero_width_space_is_still_graded(core: QuizService, repo: MemoryRepository) -> None:
    await core.handle(ANN, rq.Start(pack="demo", question="q-short"))
    form = (await core.handle(ANN, rq.OpenAnswer())).form
    assert form is not None
    wrong = await core.handle(ANN, rq.Act(form.action, ("\u200b5",), key="typed-five"))
    assert wrong.update is not None and "Not quite" in wrong.update.text()
    assert len(repo.attempts) == 1
