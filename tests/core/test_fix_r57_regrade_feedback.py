"""A second click on a graded choice item redraws its grade with the picked choices' own feedback.

The first grade showed a wrong choice's `feedback:` ("There is no `track` argument.") under the
item; the same click delivered again, or a stale click on the answered item, got "its one grade,
in place" without that line, and on Slack and Discord the redraw replaces the message, so the
explanation of the learner's mistake was gone.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from bot.core import Actor, QuizService
from bot.core import requests as rq
from bot.core.packs import load_bytes, load_path
from bot.core.replies import Button, Message, Reply, Select
from tests.conftest import DEMO_PACK
from tests.fakes import FakeClock
from tests.memory_repo import MemoryRepository

ANN = Actor("discord", "guild-1", "ann", "Ann")

# Shuffled, two attempts, feedback on a wrong choice and on the right one too.
SHUFFLED = b"""pack: fb
title: Feedback pack
version: 1
topics:
  - {id: basics, title: Basics}
questions:
  - id: q-shuffled
    type: choice
    topic: basics
    difficulty: easy
    prompt: Which call turns a list into a tensor?
    explanation: "`torch.tensor` copies the data."
    attempts: 2
    choices:
      - {text: "`torch.tensor(xs)`", correct: true, feedback: "It copies the list."}
      - {text: "`torch.list(xs)`", feedback: "There is no `torch.list`."}
      - {text: "`xs.tensor()`", feedback: "A list has no `tensor` method."}
      - {text: "`tensor[xs]`", feedback: "Square brackets index; they do not convert."}
"""


@pytest.fixture
def repo() -> MemoryRepository:
    return MemoryRepository()


@pytest.fixture
async def core(repo: MemoryRepository, tmp_path: Path) -> QuizService:
    service = QuizService(repository=repo, runner=None, clock=FakeClock(), rng=random.Random(3))
    await service.import_pack(load_path(DEMO_PACK).pack)
    await service.import_pack(load_bytes("pack.yaml", SHUFFLED).pack)
    return service


def item_of(reply: Reply) -> Message:
    return next(m for m in reply.messages if m.kind == "item")


def button(message: Message, label: str) -> Button:
    return next(c for c in message.controls() if isinstance(c, Button) and c.label == label)


def shown(reply: Reply) -> str:
    assert reply.update is not None, reply
    return reply.update.text()


async def test_the_same_wrong_click_again_keeps_the_choice_feedback(core: QuizService) -> None:
    item = item_of(await core.handle(ANN, rq.Start(pack="demo", question="q-choice")))
    click = rq.Act(button(item, "B").action, key="click-b")
    first = await core.handle(ANN, click)
    assert "There is no `track` argument." in shown(first)
    again = await core.handle(ANN, click)  # the same delivery again: its one grade, in place
    assert "There is no `track` argument." in shown(again)
    assert shown(again) == shown(first)
    assert again.messages == ()


async def test_a_stale_click_on_the_answered_item_keeps_the_choice_feedback(core: QuizService) -> None:
    item = item_of(await core.handle(ANN, rq.Start(pack="demo", question="q-choice")))
    first = await core.handle(ANN, rq.Act(button(item, "B").action, key="click-b"))
    stale = await core.handle(ANN, rq.Act(button(item, "A").action, key="click-a"))  # a second, different click
    assert shown(stale) == shown(first)
    assert "There is no `track` argument." in shown(stale)


async def test_select_all_that_apply_keeps_each_picked_choice_feedback(core: QuizService) -> None:
    item = item_of(await core.handle(ANN, rq.Start(pack="demo", question="q-multi")))
    menu = next(c for c in item.controls() if isinstance(c, Select))
    await core.handle(ANN, rq.Act(menu.action, ("0", "2"), key="pick"))
    check = rq.Act(button(item, "Check").action, key="check")
    first = await core.handle(ANN, check)
    assert "Quotes make a string." in shown(first)
    again = await core.handle(ANN, check)
    assert shown(again) == shown(first)


async def test_shuffled_last_attempt_redraws_the_feedback_of_the_choice_picked_last(core: QuizService) -> None:
    item = item_of(await core.handle(ANN, rq.Start(pack="fb", question="q-shuffled")))
    wrong = [c for c in item.controls() if isinstance(c, Button) and c.text and "torch.tensor" not in c.text]
    one = await core.handle(ANN, rq.Act(wrong[0].action, key="one"))
    assert "1 attempt left" in shown(one)
    last = rq.Act(wrong[1].action, key="two")
    first = await core.handle(ANN, last)
    assert "Not quite" in shown(first)
    again = await core.handle(ANN, last)
    assert shown(again) == shown(first)
    feedbacks = ("There is no `torch.list`.", "A list has no `tensor` method.", "Square brackets index; they do not convert.")
    assert sum(f in shown(again) for f in feedbacks) == 1  # the last pick's, not the first attempt's


async def test_a_right_choice_keeps_its_own_feedback_and_a_skip_shows_none(core: QuizService) -> None:
    item = item_of(await core.handle(ANN, rq.Start(pack="fb", question="q-shuffled")))
    right = next(c for c in item.controls() if isinstance(c, Button) and c.text and "torch.tensor" in c.text)
    first = await core.handle(ANN, rq.Act(right.action, key="right"))
    assert "It copies the list." in shown(first)
    again = await core.handle(ANN, rq.Act(right.action, key="right"))
    assert shown(again) == shown(first)
    item = item_of(await core.handle(ANN, rq.Start(pack="fb", question="q-shuffled")))
    wrong = next(c for c in item.controls() if isinstance(c, Button) and c.text and "torch.tensor" not in c.text)
    await core.handle(ANN, rq.Act(wrong.action, key="wrong"))  # one attempt left, then a skip
    skipped = await core.handle(ANN, rq.Act(button(item, "Skip").action, key="skip"))
    assert "Skipped." in shown(skipped)
    stale = await core.handle(ANN, rq.Act(wrong.action, key="late"))
    assert shown(stale) == shown(skipped)  # a skip earned no choice's feedback, then or now
