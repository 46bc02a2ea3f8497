"""Hunt: a quiz start brings a card due today before the rest, as the review and the stats count it.

`/quiz stats` and `/quiz review` say a card due tonight (before the learner's next 04:00) is due
this morning; the quiz start ranked it "not due" (due <= now), so a one-item quiz drew any other
well-known item instead of it.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from bot.core import requests as rq
from bot.core.daily.learner import Learner
from bot.core.model import Actor, Owner
from bot.core.packs import load_path
from bot.storage import SqlRepository
from bot.storage.daily import DailyRepository
from tests.daily.support import add_cards
from tests.daily.wired import DEMO_PACK, wire
from tests.fakes import FakeClock, LocalRunner

ANN = Actor("discord", "g1", "ann", "Ann", channel_id="c1")
MORNING = datetime(2026, 12, 2, 7, 0, tzinfo=UTC)  # Wednesday 08:00 in Berlin
TONIGHT_21 = datetime(2026, 12, 2, 20, 0, tzinfo=UTC)  # 21:00 in Berlin: due today


async def test_a_one_item_quiz_brings_the_card_due_tonight(repository: SqlRepository, tmp_path: Path) -> None:
    clock = FakeClock(MORNING)
    wired = await wire(repository, clock, LocalRunner(), tmp_path)
    await DailyRepository.beside(repository).save_learner(Learner("discord", "ann", zone="Europe/Berlin"))
    others = [q.id for q in load_path(DEMO_PACK).pack.questions if q.id != "q-short"]
    await add_cards(repository, "discord", "ann", others, MORNING + timedelta(days=5))
    await add_cards(repository, "discord", "ann", ["q-short"], TONIGHT_21)
    picked = []
    for _ in range(6):
        await wired.service.handle(ANN, rq.Start(pack="demo", count=1, replace=True))
        session = await repository.active_session(Owner.user(ANN))
        assert session is not None
        picked.append(session.items[0].question)
    assert picked == ["q-short"] * 6
