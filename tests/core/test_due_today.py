"""What is due today: a card falling due before the learner's next 04:00 rollover (as Anki counts it).

A learner who reviewed at 21:00 with a one-day interval has that card due the next morning, not
only from 21:00. The rule is `bot.core.review.is_due` (with `due_before`, the practice day's end);
the stats count it through a real SQLite database.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from bot.core import requests as rq
from bot.core.answer import AnswerWrite, graded
from bot.core.daily.learner import Learner
from bot.core.model import Actor
from bot.core.progress import practice_day
from bot.core.review import due_before, is_due, review
from bot.storage import SqlRepository
from bot.storage.daily import DailyRepository
from tests.daily.support import add_cards
from tests.daily.wired import Wired, wire
from tests.fakes import FakeClock, LocalRunner

BERLIN = ZoneInfo("Europe/Berlin")
ANN = Actor("discord", "g1", "ann", "Ann", channel_id="c1")
# Wednesday 2 December 2026, 08:00 in Berlin (UTC+1); Ann reviewed at 21:00 the evening before.
MORNING = datetime(2026, 12, 2, 7, 0, tzinfo=UTC)
TONIGHT_21 = datetime(2026, 12, 2, 20, 0, tzinfo=UTC)  # 21:00 in Berlin: one day after her review
NEXT_ROLLOVER = datetime(2026, 12, 3, 3, 0, tzinfo=UTC)  # 04:00 on Thursday in Berlin


def test_a_card_due_tonight_is_due_this_morning_and_one_due_at_the_next_rollover_is_not() -> None:
    assert due_before(MORNING, BERLIN) == NEXT_ROLLOVER
    assert is_due(TONIGHT_21, MORNING, BERLIN)
    assert is_due(MORNING - timedelta(days=30), MORNING, BERLIN)  # overdue stays due
    assert not is_due(NEXT_ROLLOVER, MORNING, BERLIN)  # tomorrow's practice day
    assert is_due(NEXT_ROLLOVER - timedelta(microseconds=1), MORNING, BERLIN)
    # 03:30 on Thursday is still Wednesday's practice day: Thursday's cards wait for 04:00.
    small_hours = datetime(2026, 12, 3, 2, 30, tzinfo=UTC)
    assert due_before(small_hours, BERLIN) == NEXT_ROLLOVER
    assert not is_due(datetime(2026, 12, 3, 9, 0, tzinfo=UTC), small_hours, BERLIN)
    assert is_due(TONIGHT_21.replace(tzinfo=None), MORNING, BERLIN)  # a naive time is UTC


@pytest.mark.parametrize("zone", ["UTC", "Europe/Berlin", "America/New_York", "Asia/Kolkata", "Pacific/Chatham"])
def test_the_due_day_ends_where_the_practice_day_rolls_over_all_year(zone: str) -> None:
    """Through both clock changes: the instant `due_before` gives starts the next practice day, and no earlier one does."""
    tz = ZoneInfo(zone)
    at = datetime(2026, 1, 1, 0, 17, tzinfo=UTC)
    while at < datetime(2027, 1, 1, tzinfo=UTC):
        end = due_before(at, tz)
        today = practice_day(at, tz)
        assert end > at
        assert practice_day(end, tz) == today + timedelta(days=1), (zone, at)
        assert practice_day(end - timedelta(seconds=1), tz) == today, (zone, at)
        at += timedelta(hours=5, minutes=13)


def test_a_card_reviewed_hours_before_it_falls_due_is_scheduled_from_the_real_review_time() -> None:
    """Early is a normal FSRS review: it takes the answer's time, not the due time."""
    first, _ = review(None, correct=True, hinted=False, at=datetime(2026, 11, 20, 20, 0, tzinfo=UTC))
    second, due = review(first, correct=True, hinted=False, at=datetime(2026, 11, 20, 20, 10, tzinfo=UTC))
    early = due - timedelta(hours=13)  # the evening before it falls due: due today, by the rule
    assert is_due(due, early, BERLIN)
    card, next_due = review(second, correct=True, hinted=False, at=early)
    assert json.loads(card)["last_review"] == early.isoformat()
    _on_time, on_time_due = review(second, correct=True, hinted=False, at=due)
    assert early < next_due < on_time_due  # scheduled from the real review time, not the due time


async def _learner_in_berlin(repository: SqlRepository, clock: FakeClock, tmp_path: Path) -> Wired:
    wired = await wire(repository, clock, LocalRunner(), tmp_path)
    await DailyRepository.beside(repository).save_learner(Learner("discord", "ann", zone="Europe/Berlin"))
    return wired


async def _stats_text(wired: Wired, actor: Actor = ANN) -> str:
    reply = await wired.service.handle(actor, rq.Stats())
    return "\n".join(m.text() for m in reply.messages)


async def test_stats_count_a_card_due_tonight_as_due_this_morning_until_the_rollover(
    repository: SqlRepository, tmp_path: Path
) -> None:
    clock = FakeClock(MORNING)
    wired = await _learner_in_berlin(repository, clock, tmp_path)
    await add_cards(repository, "discord", "ann", ["q-short"], TONIGHT_21)
    await add_cards(repository, "discord", "ann", ["q-choice"], NEXT_ROLLOVER)  # Thursday's
    await _answer_once(repository)  # stats show nothing but a prompt before the first attempt
    assert "Due for review: **1**" in await _stats_text(wired)
    clock.current = NEXT_ROLLOVER - timedelta(minutes=1)  # 03:59 on Thursday: still Wednesday's day
    assert "Due for review: **1**" in await _stats_text(wired)
    clock.current = NEXT_ROLLOVER
    assert "Due for review: **2**" in await _stats_text(wired)


async def test_stats_do_not_count_a_leech_as_due_as_the_daily_review_does_not(
    repository: SqlRepository, tmp_path: Path
) -> None:
    clock = FakeClock(MORNING)
    wired = await _learner_in_berlin(repository, clock, tmp_path)
    await add_cards(repository, "discord", "ann", ["q-short", "q-blanks"], MORNING - timedelta(days=2))
    await DailyRepository.beside(repository).save_card_failures("discord", "ann", ("demo", "q-blanks"), 8, True)
    await _answer_once(repository)
    text = await _stats_text(wired)
    assert "Due for review: **1**" in text
    assert (await wired.daily.review_queue(ANN)).due_total == 1


async def test_the_daily_review_and_its_stats_field_bring_a_card_due_tonight_this_morning(
    repository: SqlRepository, tmp_path: Path
) -> None:
    clock = FakeClock(MORNING)
    wired = await _learner_in_berlin(repository, clock, tmp_path)
    await add_cards(repository, "discord", "ann", ["q-short"], TONIGHT_21)
    await _answer_once(repository)
    queue = await wired.daily.review_queue(ANN)
    assert [(c.pack, c.question) for c in queue.reviews] == [("demo", "q-short")]
    text = await _stats_text(wired)
    assert "Due for review: **1**" in text and "Due today: 1" in text


async def _answer_once(repository: SqlRepository) -> None:
    """Store one attempt with no card (stats show a prompt until the first attempt; a card would be due itself)."""
    attempt, _ = graded(
        platform="discord", scope="g1", user_id="ann", pack="demo", question="q-code", topic=None, points=1,
        text="x", correct=False, hinted=False, card=None, at=MORNING - timedelta(days=3), mode="quiz", final=False,
    )
    await repository.write_answer(AnswerWrite(attempt=attempt))
