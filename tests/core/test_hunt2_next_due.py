"""Hunt: "Your next card is due ..." names when the card is due by the due-today rule.

A card falls due at the start of the practice day its due time is in (04:00 local): a card due on
Thursday at 10:00 is in Thursday's review from 04:00. The empty review must say 04:00, not 10:00,
else a learner told "10:00" who looks at 04:01 finds it due already (and one told the 04:00 of a
day whose review they can do now is not misled either way).
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from zoneinfo import ZoneInfo

from bot.core.daily.learner import Learner
from bot.core.daily.queue import Caps
from bot.core.model import Actor
from bot.storage import SqlRepository
from bot.storage.daily import DailyRepository
from tests.daily.support import add_cards
from tests.daily.wired import wire
from tests.fakes import FakeClock, LocalRunner

BERLIN = ZoneInfo("Europe/Berlin")
ANN = Actor("discord", "g1", "ann", "Ann", channel_id="c1")
MORNING = datetime(2026, 12, 2, 7, 0, tzinfo=UTC)  # Wednesday 08:00 in Berlin
THURSDAY_10 = datetime(2026, 12, 3, 9, 0, tzinfo=UTC)  # Thursday 10:00 in Berlin
THURSDAY_0401 = datetime(2026, 12, 3, 3, 1, tzinfo=UTC)


async def test_the_empty_review_names_the_rollover_the_next_card_falls_due_at(
    repository: SqlRepository, tmp_path: Path
) -> None:
    clock = FakeClock(MORNING)
    wired = await wire(repository, clock, LocalRunner(), tmp_path)
    await DailyRepository.beside(repository).save_learner(Learner("discord", "ann", zone="Europe/Berlin", caps=Caps(new=0)))
    await add_cards(repository, "discord", "ann", ["q-short"], THURSDAY_10)
    queue, reply = await wired.daily.review_intro(ANN)
    assert queue.empty
    text = reply.messages[0].text()
    assert "Thu 3 Dec 04:00 (Europe/Berlin)" in text, text
    clock.current = THURSDAY_0401  # where the message sends them: it is due then
    queue, _reply = await wired.daily.review_intro(ANN)
    assert [(c.pack, c.question) for c in queue.reviews] == [("demo", "q-short")]


async def test_the_next_due_of_a_learner_without_a_zone_is_the_utc_rollover(
    repository: SqlRepository, tmp_path: Path
) -> None:
    clock = FakeClock(MORNING)
    wired = await wire(repository, clock, LocalRunner(), tmp_path)
    await DailyRepository.beside(repository).save_learner(Learner("discord", "ann", caps=Caps(new=0)))
    await add_cards(repository, "discord", "ann", ["q-short"], THURSDAY_10)
    queue, reply = await wired.daily.review_intro(ANN)
    assert queue.empty
    assert "Thu 3 Dec 04:00 (UTC)" in reply.messages[0].text()
