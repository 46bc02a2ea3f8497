"""Converted packs played through a quiz in the core, item by item, with the real grading rules."""

from __future__ import annotations

import random

import pytest

from bot.core import Actor, QuizService
from bot.core.packs import BlanksQuestion, ChoiceQuestion, CodeQuestion, Pack, ShortQuestion
from bot.core.replies import Button, Message, Reply, Select
from bot.storage import SqlRepository
from tests.fakes import FakeClock, LocalRunner

from .helpers import convert_fixture

ANN = Actor("console", "local", "ann", "Ann")


def item_of(reply: Reply) -> Message | None:
    items = [m for m in reply.messages if m.kind == "item"]
    return items[-1] if items else None


async def answer_right(service: QuizService, pack: Pack, message: Message) -> Reply:
    """Answer the current item correctly, using only the controls the learner sees."""
    session = await service.active_session(ANN)
    assert session is not None and session.current is not None
    state = session.current
    q = pack.question(state.question)
    controls = message.controls()
    if isinstance(q, ChoiceQuestion) and q.multiple:
        menu = next(c for c in controls if isinstance(c, Select))
        right = [str(shown) for shown, original in enumerate(state.order) if q.choices[original].correct]
        await service.act(ANN, menu.action, right)
        return await service.act(ANN, next(c for c in controls if isinstance(c, Button) and c.label == "Check").action)
    if isinstance(q, ChoiceQuestion):
        right_text = next(c.text for c in q.choices if c.correct)
        button = next(c for c in controls if isinstance(c, Button) and c.text == right_text)
        return await service.act(ANN, button.action)
    if isinstance(q, BlanksQuestion):
        for menu in (c for c in controls if isinstance(c, Select)):
            number = int(menu.placeholder.removeprefix("Blank "))
            await service.act(ANN, menu.action, [str(q.options.index(q.answers[number]))])
        return await service.act(ANN, next(c for c in controls if isinstance(c, Button) and c.label == "Check").action)
    if isinstance(q, ShortQuestion):
        return await service.submit_text(ANN, q.accept[0] if q.accept else str(q.number.value if q.number else ""))
    assert isinstance(q, CodeQuestion)
    return await service.submit_text(ANN, f"```python\n{q.solution}```")


@pytest.fixture
async def quiz(repository: SqlRepository, clock: FakeClock) -> QuizService:
    return QuizService(repository=repository, runner=LocalRunner(), clock=clock, rng=random.Random(5))


@pytest.mark.parametrize("fixture", ["moodle-pytorch-basics-20261130-1412.xml", "pytorch-gift.txt"])
async def test_a_converted_pack_plays_from_start_to_summary(quiz: QuizService, fixture: str) -> None:
    conversion = convert_fixture(fixture)
    assert conversion.loaded is not None
    pack = conversion.loaded.pack
    report = await quiz.import_pack(pack)
    assert report.summary().startswith(f"Pack `{pack.pack}` v1 added with {len(pack.questions)} questions")
    reply = await quiz.start(ANN, pack=pack.pack, count=len(pack.questions))
    seen: list[str] = []
    message = item_of(reply)
    while message is not None:
        session = await quiz.active_session(ANN)
        assert session is not None and session.current is not None
        seen.append(session.current.question)
        reply = await answer_right(quiz, pack, message)
        assert reply.update is not None and "Correct" in reply.update.text(), seen[-1]
        message = item_of(reply)
    assert sorted(seen) == sorted(q.id for q in pack.questions)
    summary = reply.messages[-1]
    assert summary.kind == "summary" and f"{len(seen)} of {len(seen)} right" in summary.text()


async def test_converted_feedback_reaches_the_learner(quiz: QuizService) -> None:
    conversion = convert_fixture("pytorch-gift.txt")
    assert conversion.loaded is not None
    await quiz.import_pack(conversion.loaded.pack)
    reply = await quiz.start(ANN, pack="pytorch-gift", question="zeros-shape")
    message = item_of(reply)
    assert message is not None
    wrong = next(c for c in message.controls() if isinstance(c, Button) and c.text == "torch.zeros(6)")
    answered = (await quiz.act(ANN, wrong.action)).update
    assert answered is not None
    text = answered.text()
    assert "That is a flat tensor of six zeros." in text
    assert "torch.zeros(2, 3) fills a new 2x3 tensor with 0." in text
