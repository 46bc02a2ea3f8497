"""One streak and one mastered count, whatever path the answers took: a quiz, the daily post, a race.

Real SQLite, the services wired as the composition root wires them, a fake clock. The learner
lives in Los Angeles: her three practice days (04:00 to 04:00 there) fall on two UTC dates only,
so a place counting UTC dates would not say three.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from sqlalchemy import select, update

from bot.core import QuizService
from bot.core import requests as rq
from bot.core.daily.learner import Learner
from bot.core.model import Actor
from bot.core.pictures import progress_alt
from bot.core.race import ChannelPost, RaceService
from bot.core.race import actions as rx
from bot.core.replies import Message
from bot.storage import SqlRepository
from bot.storage import tables as t
from bot.storage.daily import DailyRepository
from bot.storage.social import SocialStore
from tests.daily.support import FakePoster
from tests.daily.wired import Wired, wire
from tests.fakes import FakeClock, LocalRunner
from tests.race.helpers import race_pack

ADA = Actor("discord", "g1", "ada", "Ada", is_admin=True, channel_id="c1")
ANN = Actor("discord", "g1", "ann", "Ann", channel_id="c1")
ANN_RACING = Actor("discord", "g1", "ann", "Ann", channel_id="c2")
# Her practice days in Los Angeles (UTC-8), and when she answered (UTC).
QUIZ_AT = datetime(2026, 12, 1, 18, 0, tzinfo=UTC)  # Tuesday 10:00 there: Tuesday
DAILY_AT = datetime(2026, 12, 3, 10, 0, tzinfo=UTC)  # Thursday 02:00 there: still Wednesday's practice day
RACE_AT = datetime(2026, 12, 3, 18, 0, tzinfo=UTC)  # Thursday 10:00 there: Thursday


@dataclass
class Posts:
    posts: list[ChannelPost] = field(default_factory=list)

    async def __call__(self, post: ChannelPost) -> None:
        self.posts.append(post)


async def _wired(repository: SqlRepository, clock: FakeClock, tmp_path: Path) -> tuple[Wired, FakePoster]:
    wired = await wire(repository, clock, LocalRunner(), tmp_path)
    poster = FakePoster()
    await wired.posters.add("discord", poster)
    await DailyRepository.beside(repository).save_learner(Learner("discord", "ann", zone="America/Los_Angeles"))
    return wired, poster


async def _quiz_answer(wired: Wired) -> None:
    started = await wired.service.handle(ANN, rq.Start(pack="demo", question="q-choice"))
    item = next(m for m in started.messages if m.kind == "item")
    await wired.service.handle(ANN, rq.Act(_choices(item)[0]))


async def _daily_post(wired: Wired, poster: FakePoster) -> list[str]:
    """Post the study pack's question now; return its choice buttons' actions (the first is right, the second wrong)."""
    await wired.service.handle(ADA, rq.DailySet(time="11:00", timezone="UTC", pack="study"))
    await wired.service.handle(ADA, rq.DailyNow())
    _, _, shown = poster.of("post")[-1]
    return _choices(shown)


def _choices(message: Message) -> list[str]:
    """The actions of an item's choice buttons, in order (their texts are code: `requires_grad=True` ...)."""
    return [c.action for c in message.controls() if getattr(c, "text", "").startswith("`")]


async def _race_answer(repository: SqlRepository, clock: FakeClock) -> None:
    await _race_pack(repository)
    store = SocialStore.beside(repository)
    races = RaceService(
        repository=repository, store=store, clock=clock, publish=Posts(), rng=random.Random(3), timers=False,
        admins=frozenset(),
    )
    try:
        await races.start(ANN_RACING, pack="chooser", rounds=3, seconds=30)
        race = await store.running_race("discord", "g1", "c2")
        assert race is not None
        await races.act(ANN_RACING, rx.make(race.id, 0, rx.CHOOSE, 0))
        clock.advance(seconds=31)
        await races.tick()
        await races.drain()
        await races.stop(ANN_RACING)
        # The first round closed: its answer is stored, with its card.
        assert len(await repository.history("discord", "ann", ["chooser"])) == 1
    finally:
        await races.aclose()


async def _race_pack(repository: SqlRepository) -> None:
    await QuizService(repository=repository, runner=None, clock=FakeClock()).import_pack(
        race_pack(3, pack_id="chooser", others=False)
    )


async def _stats_text(wired: Wired) -> str:
    return "\n".join(m.text() for m in (await wired.service.handle(ANN, rq.Stats())).messages)


async def test_a_quiz_a_daily_post_and_a_race_answer_each_count_a_practice_day_and_a_card(
    repository: SqlRepository, tmp_path: Path
) -> None:
    clock = FakeClock(QUIZ_AT)
    wired, poster = await _wired(repository, clock, tmp_path)
    await _quiz_answer(wired)
    clock.current = DAILY_AT
    right, _wrong = await _daily_post(wired, poster)
    await wired.service.handle(ANN, rq.Act(right))
    clock.current = RACE_AT
    await _race_answer(repository, clock)
    # Three practice days in a row, one from each path: every place says a streak of three.
    text = await _stats_text(wired)
    assert "streak **3** days" in text, text
    assert "Streak: 3 days (longest 3)" in text, text
    picture = (await SocialStore.beside(repository).progress_data("discord", "ann", now=clock.now())).settled(clock.now())
    assert picture.streak == 3 and "streak 3 days" in progress_alt("Ann", picture)
    # Each path moved a review card: once stable, each item is mastered, on the stats card and the picture alike.
    async with repository.engine.begin() as c:
        rows = (await c.execute(select(t.reviews.c.question_id, t.reviews.c.card).where(t.reviews.c.user_id == "ann"))).all()
        assert len(rows) == 3 and {"q-choice", "flag"} < {q for q, _ in rows}  # and the race's item
        for question, card in rows:
            data = json.loads(card)
            data["stability"] = 30.0
            await c.execute(update(t.reviews).where(t.reviews.c.question_id == question).values(card=json.dumps(data)))
    on_card = await wired.daily.mastered(ANN)
    on_picture = (await SocialStore.beside(repository).progress_data("discord", "ann", now=clock.now())).settled(clock.now())
    assert sum(on_card.values()) == 3 == sum(topic.mastered for topic in on_picture.topics)


async def test_a_wrong_first_try_counts_the_day_on_the_daily_post_as_in_a_quiz(
    repository: SqlRepository, tmp_path: Path
) -> None:
    clock = FakeClock(DAILY_AT)
    wired, poster = await _wired(repository, clock, tmp_path)
    _right, wrong = await _daily_post(wired, poster)
    reply = await wired.service.handle(ANN, rq.Act(wrong))
    assert "1 attempt left" in "\n".join(m.text() for m in reply.messages)
    assert (await wired.daily.learner(ANN)).streak.current == 1
    # A quiz's wrong first try of an item with attempts left counts the day (`bot.core.flow`).
    await DailyRepository.beside(repository).save_learner(Learner("discord", "bo", zone="America/Los_Angeles"))
    bo = Actor("discord", "g1", "bo", "Bo", channel_id="c1")
    started = await wired.service.handle(bo, rq.Start(pack="study"))
    item = next(m for m in started.messages if m.kind == "item")
    await wired.service.handle(bo, rq.Act(_choices(item)[1]))
    assert (await wired.daily.learner(bo)).streak.current == 1


async def test_mastered_items_of_a_removed_pack_count_alike_on_the_stats_card_and_the_picture(
    repository: SqlRepository, tmp_path: Path
) -> None:
    clock = FakeClock(QUIZ_AT)
    wired, _poster = await _wired(repository, clock, tmp_path)
    await _quiz_answer(wired)
    async with repository.engine.begin() as c:
        card = json.loads((await c.execute(select(t.reviews.c.card))).scalar_one())
        card["stability"] = 30.0
        await c.execute(update(t.reviews).values(card=json.dumps(card)))
    await repository.delete_pack("demo")
    on_card = await wired.daily.mastered(ANN)
    on_picture = (await SocialStore.beside(repository).progress_data("discord", "ann", now=clock.now())).settled(clock.now())
    assert sum(on_card.values()) == sum(topic.mastered for topic in on_picture.topics)
