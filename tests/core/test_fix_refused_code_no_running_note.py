"""A code answer the bot refuses (empty, over the size limit, a NUL byte) shows no "Running your code" first.

The learner was told "⏳ Running your code in the sandbox…" and then, in its place, the refusal
("The code is 117 KiB; the limit is 64 KiB"): the checks ran after the note. `Submit.progress` is
told only for code that goes to the sandbox; a refusal comes alone, as a message or from the form,
with or without unfinished work being recorded. Code that is accepted still gets the note.
"""

from __future__ import annotations

import random

import pytest

from bot.core import Actor, QuizService
from bot.core import actions as ax
from bot.core import requests as rq
from bot.core.errors import BadSubmission
from bot.core.packs import load_path
from bot.core.work import Unfinished
from bot.storage import SqlRepository
from tests.conftest import DEMO_PACK
from tests.fakes import FakeClock, LocalRunner

ANN = Actor("discord", "dm", "ann", "Ann")
RUNNING = "Running your code"
REFUSED = {
    "too big": ("```python\n" + "x = 1  # " + "y" * (117 * 1024) + "\n```", "the limit is 64 KiB"),
    "nul byte": ("```python\nx = 1\x00\n```", "NUL byte"),
    "empty": ("```python\n\n```", "The code is empty"),
}
RIGHT = "```python\ntotal = sum(range(1, 11))\nprint(total)\n```"


@pytest.fixture(params=[False, True], ids=["no-work-log", "work-log"])
async def core(request: pytest.FixtureRequest, repository: SqlRepository, runner: LocalRunner, clock: FakeClock) -> QuizService:
    work = Unfinished(repository.work, clock) if request.param else None
    service = QuizService(repository=repository, runner=runner, clock=clock, rng=random.Random(7), work=work)
    await service.import_pack(load_path(DEMO_PACK).pack)
    await service.handle(ANN, rq.Start(pack="demo", difficulty="hard"))
    return service


class Notes:
    def __init__(self) -> None:
        self.told: list[str] = []

    async def __call__(self, note: str) -> None:
        self.told.append(note)


@pytest.mark.parametrize("case", sorted(REFUSED))
async def test_a_refused_code_message_gets_no_running_note(core: QuizService, case: str) -> None:
    code, why = REFUSED[case]
    notes = Notes()
    with pytest.raises(BadSubmission, match=why):
        await core.handle(ANN, rq.Submit(code, code_only=True, key=f"m-{case}", progress=notes))
    assert notes.told == []


@pytest.mark.parametrize("case", sorted(REFUSED))
async def test_refused_code_from_the_form_gets_no_running_note(core: QuizService, case: str) -> None:
    code, why = REFUSED[case]
    session = await core.gate.find(ANN)
    notes = Notes()
    action = ax.make(session.id, session.position, ax.CODE_FORM)
    with pytest.raises(BadSubmission, match=why):
        await core.handle(ANN, rq.Act(action, (code,), key=f"f-{case}", progress=notes))
    assert notes.told == []


async def test_code_that_runs_still_gets_the_note_once(core: QuizService) -> None:
    notes = Notes()
    reply = await core.handle(ANN, rq.Submit(RIGHT, code_only=True, key="m-right", progress=notes))
    assert len(notes.told) == 1 and RUNNING in notes.told[0]
    assert any("Correct" in str(m) for m in (*reply.messages, reply.update))
