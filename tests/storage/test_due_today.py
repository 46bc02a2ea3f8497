"""The stats' due count on SQLite and PostgreSQL: cards due before the learner's next 04:00, by the core's rule.

Storage compares with the instant the core's rule (`bot.core.review.due_before`) gives for the
learner's stored zone; it counts the cards the daily review would bring (not a leech's, not a
removed question's).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from functools import partial
from zoneinfo import ZoneInfo

import pytest
from sqlalchemy import update

from bot.core import QuizService
from bot.core.daily.learner import Learner
from bot.core.packs import load_path
from bot.core.review import due_before, review
from bot.storage import SqlRepository, open_repository
from bot.storage import tables as t
from bot.storage.daily import DailyRepository
from tests.conftest import DEMO_PACK
from tests.daily.support import add_cards
from tests.fakes import FakeClock

MORNING = datetime(2026, 12, 2, 7, 0, tzinfo=UTC)  # 08:00 in Berlin, 23:00 the evening before in Los Angeles
TONIGHT = datetime(2026, 12, 2, 20, 0, tzinfo=UTC)  # 21:00 in Berlin
ROLLOVER = datetime(2026, 12, 3, 3, 0, tzinfo=UTC)  # 04:00 on Thursday in Berlin


@pytest.fixture
async def repo(any_url: str) -> AsyncIterator[SqlRepository]:
    repository = await open_repository(any_url)
    await QuizService(repository=repository, runner=None, clock=FakeClock()).import_pack(load_path(DEMO_PACK).pack)
    yield repository
    await repository.close()


async def due_at(repo: SqlRepository, user_id: str, now: datetime) -> int:
    return (await repo.user_stats("discord", user_id, now, due_by=partial(due_before, now))).due


async def test_the_due_count_runs_to_the_learners_own_next_rollover(repo: SqlRepository) -> None:
    daily = DailyRepository.beside(repo)
    await daily.save_learner(Learner("discord", "ann", zone="Europe/Berlin"))
    await daily.save_learner(Learner("discord", "lou", zone="America/Los_Angeles"))
    for who in ("ann", "lou"):
        await add_cards(repo, "discord", who, ["q-short"], TONIGHT)
        await add_cards(repo, "discord", who, ["q-choice"], ROLLOVER)
    assert await due_at(repo, "ann", MORNING) == 1  # tonight's card, this morning
    assert await due_at(repo, "ann", ROLLOVER - timedelta(seconds=1)) == 1
    assert await due_at(repo, "ann", ROLLOVER) == 2
    # In Los Angeles it is 23:00 on Tuesday: Wednesday's cards wait for 04:00 there (12:00 UTC).
    assert await due_at(repo, "lou", MORNING) == 0
    assert await due_at(repo, "lou", datetime(2026, 12, 2, 12, 0, tzinfo=UTC)) == 2
    # A learner with no daily settings practises in UTC: the day ends at 04:00 UTC.
    await add_cards(repo, "discord", "uma", ["q-short"], TONIGHT)
    assert await due_at(repo, "uma", MORNING) == 1
    assert await due_at(repo, "uma", datetime(2026, 12, 2, 3, 59, tzinfo=UTC)) == 0


async def test_a_leech_and_a_removed_questions_card_are_not_counted_due(repo: SqlRepository) -> None:
    await add_cards(repo, "discord", "ann", ["q-short", "q-blanks", "gone"], MORNING - timedelta(days=3))
    assert await due_at(repo, "ann", MORNING) == 3
    await DailyRepository.beside(repo).save_card_failures("discord", "ann", ("demo", "q-blanks"), 8, True)
    assert await due_at(repo, "ann", MORNING) == 2
    assert (await repo.user_stats("discord", "ann", MORNING)).due == 2  # without the rule: due by now, the same cards
    await repo.delete_pack("demo")
    assert await due_at(repo, "ann", MORNING) == 0


async def test_a_card_in_a_learning_step_is_due_at_its_time_not_for_the_whole_day(repo: SqlRepository) -> None:
    """A card answered right at 18:00 sits in a ten-minute learning step: not due again at once, as a
    card in Review state due tonight is; the stats, the daily review and its next time agree."""
    daily = DailyRepository.beside(repo)
    await daily.save_learner(Learner("discord", "lea", zone="Europe/Berlin"))
    await add_cards(repo, "discord", "lea", ["q-choice"], TONIGHT)  # Review state, due at 21:00
    first, step_due = review(None, correct=True, hinted=False, at=TONIGHT - timedelta(hours=3))  # 18:00, Learning
    assert step_due == TONIGHT - timedelta(hours=2, minutes=50)  # its step: 18:10
    async with repo.engine.begin() as c:
        await c.execute(
            update(t.reviews)
            .where(t.reviews.c.user_id == "lea", t.reviews.c.question_id == "q-choice")
            .values(card=first, due=step_due)
        )
    await add_cards(repo, "discord", "lea", ["q-short"], TONIGHT)
    now = TONIGHT - timedelta(hours=3)  # 18:00 in Berlin
    assert await due_at(repo, "lea", now) == 1  # q-short (tonight), not q-choice (18:10)
    cards, total, nxt = await daily.due_cards("discord", "lea", now, due_before(now, ZoneInfo("Europe/Berlin")), 5)
    assert [c.question for c in cards] == ["q-short"] and total == 1
    assert nxt is not None and (nxt.question, nxt.due) == ("q-choice", step_due)
    later = step_due + timedelta(seconds=1)
    assert await due_at(repo, "lea", later) == 2  # its time came
