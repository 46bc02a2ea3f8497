"""Fix: the daily review started twice threw away the first review.

The reminder's Start (`dy:start`) or `/quiz daily`, pressed or sent twice (a double click, a replayed
click, asking again while the review runs), stopped the running review ("Your previous quiz was
stopped; the review starts.") and started another: the answer to the item the first press showed
was refused ("This quiz was stopped"). A running review is now shown again (its current item); a
running quiz asks first, as `/quiz start` does; the very same click again never restarts.
"""

from __future__ import annotations

import asyncio
from datetime import timedelta
from pathlib import Path

import pytest

from bot.core import requests as rq
from bot.core.model import Actor, Owner
from bot.core.replies import Button, Message, Reply
from bot.storage import SqlRepository
from tests.daily.support import add_cards
from tests.daily.wired import Wired, wire
from tests.fakes import FakeClock, LocalRunner

ANN = Actor("discord", "g1", "ann", "Ann", channel_id="c1")


@pytest.fixture
async def wired(repository: SqlRepository, clock: FakeClock, runner: LocalRunner, tmp_path: Path) -> Wired:
    built = await wire(repository, clock, runner, tmp_path)
    await add_cards(repository, "discord", "ann", ["q-choice", "q-short"], clock.now() - timedelta(hours=2))
    await built.service.handle(ANN, rq.DailySettings(new=0))
    return built


def item_of(reply: Reply) -> Message:
    return next(m for m in reply.messages if m.kind == "item")


def button(message: Message, text: str) -> Button:
    return next(b for b in message.controls() if isinstance(b, Button) and (b.text or b.label) == text)


def said(reply: Reply) -> str:
    return "\n".join(m.text() for m in reply.messages)


async def running(wired: Wired) -> str | None:
    session = await wired.service.gate.active(Owner.user(ANN))
    return session.id if session is not None else None


async def test_start_pressed_twice_shows_the_running_review_and_its_first_item_still_works(wired: Wired) -> None:
    service = wired.service
    first = await service.handle(ANN, rq.Act("dy:start", key="ann:1"))
    shown = item_of(first)
    assert shown.title == "Question 1 of 2"
    again = await service.handle(ANN, rq.Act("dy:start", key="ann:2"))  # a double click: its own delivery
    assert "was stopped" not in said(again), said(again)
    assert item_of(again).session_id == shown.session_id and item_of(again).title == "Question 1 of 2"
    assert again.private
    right = await service.handle(ANN, rq.Act(button(shown, "`requires_grad=True`").action))  # the first press's message
    assert right.update is not None and "Correct" in right.update.text()
    assert await running(wired) == shown.session_id


async def test_daily_typed_again_while_the_review_runs_shows_where_it_is(wired: Wired) -> None:
    service = wired.service
    shown = item_of(await service.handle(ANN, rq.DailyReview()))
    await service.handle(ANN, rq.Act(button(shown, "`requires_grad=True`").action))
    again = await service.handle(ANN, rq.DailyReview())
    assert "was stopped" not in said(again)
    assert item_of(again).session_id == shown.session_id and item_of(again).title == "Question 2 of 2"


async def test_the_same_click_again_never_restarts_even_once_the_review_ended(wired: Wired) -> None:
    service = wired.service
    first = item_of(await service.handle(ANN, rq.Act("dy:start", key="ann:1")))
    await service.handle(ANN, rq.Stop())
    assert await running(wired) is None
    replayed = await service.handle(ANN, rq.Act("dy:start", key="ann:1"))  # the platform delivered it again
    assert await running(wired) is None, said(replayed)
    assert not [m for m in replayed.messages if m.kind == "item"]
    assert first.session_id is not None


async def test_two_presses_at_once_open_one_review(wired: Wired) -> None:
    service = wired.service
    one, two = await asyncio.gather(
        service.handle(ANN, rq.Act("dy:start", key="ann:1")), service.handle(ANN, rq.Act("dy:start", key="ann:2"))
    )
    assert item_of(one).session_id == item_of(two).session_id == await running(wired)
    assert "was stopped" not in said(one) + said(two)


async def test_start_with_a_quiz_running_asks_first_and_start_new_twice_starts_one_review(wired: Wired) -> None:
    service = wired.service
    quiz = item_of(await service.handle(ANN, rq.Start(pack="demo", count=3)))
    asked = await service.handle(ANN, rq.Act("dy:start", key="ann:1"))
    assert "You have a quiz running: question 1 of 3" in said(asked)
    assert not [m for m in asked.messages if m.kind == "item"] and await running(wired) == quiz.session_id
    prompt = asked.messages[-1]
    resume, new = button(prompt, "Resume"), button(prompt, "Start new")
    assert item_of(await service.handle(ANN, rq.Act(resume.action))).session_id == quiz.session_id
    review = await service.handle(ANN, rq.Act(new.action, key="ann:2"))
    assert "Your previous quiz was stopped; the review starts." in said(review)
    started = item_of(review)
    assert started.title == "Question 1 of 2" and started.session_id != quiz.session_id
    twice = await service.handle(ANN, rq.Act(new.action, key="ann:3"))  # Start new pressed twice
    assert "was stopped" not in said(twice) and item_of(twice).session_id == started.session_id
    assert await running(wired) == started.session_id
