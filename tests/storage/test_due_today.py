"""The stats' due count on SQLite and PostgreSQL: cards due before the learner's next 04:00, by the core's rule.

Storage compares with the instant the core's rule (`bot.core.review.due_before`) gives for the
learner's stored zone; it counts the cards the daily review would bring (not a leech's, not a
removed question's).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from functools import partial

import pytest

from bot.core import QuizService
from bot.core.daily.learner import Learner
from bot.core.packs import load_path
from bot.core.review import due_before
from bot.storage import SqlRepository, open_repository
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
