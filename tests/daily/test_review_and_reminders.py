"""A learner's daily review over days: due cards, caps, the 04:00 rollover, leeches, streaks, reminders."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

from sqlalchemy import update

from bot.core.answer import AnswerWrite, graded
from bot.core.daily import DailyService
from bot.core.daily.cards import LEECH_FAILURES
from bot.core.model import Actor
from bot.core.replies import Button
from bot.scheduler import Scheduler
from bot.storage import tables as t
from tests.daily.support import FakePoster, Stores, add_cards
from tests.daily.test_scheduler import drive
from tests.fakes import FakeClock

ANN = Actor("discord", "g1", "ann", "Ann")
BO = Actor("discord", "g1", "bo", "Bo")


def parts(stores: Stores, clock: FakeClock, poster: FakePoster) -> tuple[Scheduler, DailyService]:
    scheduler = Scheduler(store=stores.daily, packs=stores.repo, clock=clock, poster=poster, max_sleep_s=86_400)
    return scheduler, DailyService(store=stores.daily, packs=stores.repo, clock=clock, wake=scheduler.wake)


async def _push_due(stores: Stores, user_id: str, due: datetime) -> None:
    """Stand in for reviewing every card: the quiz path stores each card with a later due date."""
    async with stores.repo.engine.begin() as c:
        await c.execute(update(t.reviews).where(t.reviews.c.user_id == user_id).values(due=due))


async def test_the_review_is_exactly_the_due_cards_most_overdue_first_then_new(sqlite_stores: Stores) -> None:
    now = datetime(2026, 6, 1, 10, 0, tzinfo=UTC)
    _, service = parts(sqlite_stores, FakeClock(now), FakePoster())
    await add_cards(sqlite_stores.repo, "discord", "ann", ["q-short", "q-choice"], now - timedelta(hours=1), step=timedelta(hours=-5))
    await add_cards(sqlite_stores.repo, "discord", "ann", ["q-blanks"], now + timedelta(days=2))
    queue, reply = await service.review_intro(ANN)
    assert queue.items() == [("demo", "q-choice"), ("demo", "q-short"), ("demo", "q-code"), ("demo", "q-multi")]
    assert [c.question for c in queue.reviews] == ["q-choice", "q-short"]
    assert reply.messages[0].text() == "2 reviews and 2 new items today, about 2 minutes."


async def test_caps_hold_for_the_day_and_the_day_rolls_over_at_four_local(sqlite_stores: Stores) -> None:
    # 22:00 in Berlin on 1 June.
    clock = FakeClock(datetime(2026, 6, 1, 20, 0, tzinfo=UTC))
    _, service = parts(sqlite_stores, clock, FakePoster())
    await service.settings(ANN, reviews=3, new=1, timezone="Europe/Berlin")
    await add_cards(sqlite_stores.repo, "discord", "ann", [f"r{i}" for i in range(10)], clock.now() - timedelta(days=1))
    queue = await service.review_queue(ANN)
    assert (len(queue.reviews), queue.due_total) == (3, 10)
    for card in queue.reviews:
        await record_review(sqlite_stores, service, (card.pack, card.question), correct=True, at=clock.now())
    await _push_due(sqlite_stores, "ann", clock.now() - timedelta(hours=1))  # still due: the cap is what stops it
    clock.current = datetime(2026, 6, 2, 1, 59, tzinfo=UTC)  # 03:59 local: the same review day
    assert (await service.review_queue(ANN)).reviews == ()
    clock.current = datetime(2026, 6, 2, 2, 0, tzinfo=UTC)  # 04:00 local: a new day, a fresh cap
    assert len((await service.review_queue(ANN)).reviews) == 3
    settings = await service.settings(ANN)
    assert ("Reviews a day", "3") in settings.messages[0].parts[0].items  # type: ignore[union-attr]


async def test_nothing_due_says_when_the_next_card_is_due(sqlite_stores: Stores) -> None:
    now = datetime(2026, 6, 1, 10, 0, tzinfo=UTC)
    _, service = parts(sqlite_stores, FakeClock(now), FakePoster())
    await service.settings(ANN, timezone="America/New_York", new=0)
    await add_cards(sqlite_stores.repo, "discord", "ann", ["q-short"], datetime(2026, 6, 3, 22, 30, tzinfo=UTC))
    queue, reply = await service.review_intro(ANN)
    assert queue.empty
    assert reply.messages[0].text() == "Nothing is due for today. Your next card is due Wed 3 Jun 04:00 (America/New_York)."  # from that day's 04:00


async def test_a_card_failed_eight_times_leaves_the_review_until_reset(sqlite_stores: Stores) -> None:
    now = datetime(2026, 6, 1, 10, 0, tzinfo=UTC)
    _, service = parts(sqlite_stores, FakeClock(now), FakePoster())
    await add_cards(sqlite_stores.repo, "discord", "ann", ["q-short", "q-choice"], now - timedelta(hours=1))
    results = [await record_review(sqlite_stores, service, ("demo", "q-short"), correct=False, at=now) for _ in range(LEECH_FAILURES)]
    assert results == [False] * (LEECH_FAILURES - 1) + [True]
    queue = await service.review_queue(ANN)
    assert [c.question for c in queue.reviews] == ["q-choice"]
    stats = await service.stats(ANN)
    assert ("Leeches", "`demo/q-short`") in stats.items
    assert ("Due today", "1") in stats.items
    await service.reset_leech(ANN, ("demo", "q-short"))
    assert [c.question for c in (await service.review_queue(ANN)).reviews] == ["q-choice", "q-short"]
    assert ("Leeches", "none") in (await service.stats(ANN)).items


async def test_a_streak_over_two_weeks_with_a_freeze_spent_on_a_missed_day(sqlite_stores: Stores) -> None:
    clock = FakeClock(datetime(2026, 3, 20, 12, 0, tzinfo=UTC))
    _, service = parts(sqlite_stores, clock, FakePoster())
    await service.settings(ANN, timezone="Europe/Berlin")
    for day in range(14):
        if day == 9:  # missed: the freeze earned on day 7 covers it
            clock.advance(days=1)
            continue
        # Practise at 13:00 local (14:00 after the spring change on the 29th): one review a day.
        await record_review(sqlite_stores, service, ("demo", "q-short"), correct=True, at=clock.now())
        clock.advance(days=1)
    stats = dict((await service.stats(ANN)).items)
    assert stats["Streak"] == "13 days (longest 13)"
    assert stats["Streak freezes"] == "0"
    clock.advance(days=2)  # two more days missed, no freeze left
    assert dict((await service.stats(ANN)).items)["Streak"] == "0 days (longest 13)"


async def test_one_reminder_a_day_only_when_due_and_it_stops_after_two_failures(sqlite_stores: Stores) -> None:
    clock = FakeClock(datetime(2026, 6, 1, 4, 0, tzinfo=UTC))
    poster = FakePoster(broken={"bo"})
    scheduler, service = parts(sqlite_stores, clock, poster)
    await add_cards(sqlite_stores.repo, "discord", "ann", [f"r{i}" for i in range(7)], clock.now() - timedelta(hours=1))
    await add_cards(sqlite_stores.repo, "discord", "bo", ["r0"], clock.now() - timedelta(hours=1))
    reply = await service.remind(ANN, time="08:00", timezone="Europe/Berlin")
    assert "08:00 (Europe/Berlin)" in reply.messages[0].text()
    await service.remind(BO, time="08:00", timezone="Europe/Berlin")

    await drive(scheduler, clock, datetime(2026, 6, 2, 4, 0, tzinfo=UTC))  # day 1
    (dm,) = poster.of("dm")
    assert dm[1] == "ann" and dm[2].text() == "7 reviews due, about 4 minutes."
    assert [(c.label, c.action) for c in dm[2].controls() if isinstance(c, Button)] == [("Start", "dy:start")]

    # Ann reviews everything: due next on 3 June at 05:00 in Berlin, after that night's 04:00 rollover
    await _push_due(sqlite_stores, "ann", datetime(2026, 6, 3, 3, 0, tzinfo=UTC))
    await drive(scheduler, clock, datetime(2026, 6, 3, 4, 0, tzinfo=UTC))  # day 2: nothing due for Ann
    assert len(poster.of("dm")) == 1
    await drive(scheduler, clock, datetime(2026, 6, 6, 4, 0, tzinfo=UTC))  # days 3-5: due again
    assert [d[1] for d in poster.of("dm")] == ["ann"] * 4
    sent = await sqlite_stores.daily.reminder_log("discord", "ann")
    assert [status for _, status, _ in sent] == ["sent", "skipped", "sent", "sent", "sent"]

    # Bo's DMs are closed: tried on days 1 and 2, then never again, and stats say so.
    assert [status for _, status, _ in await sqlite_stores.daily.reminder_log("discord", "bo")] == ["failed", "failed"]
    stats = dict((await service.stats(BO)).items)
    assert stats["Reminder"].startswith("stopped: direct messages failed twice")
    await service.remind_off(ANN)
    await drive(scheduler, clock, datetime(2026, 6, 8, 4, 0, tzinfo=UTC))
    assert len(poster.of("dm")) == 4


async def test_mastered_items_are_counted_per_topic(sqlite_stores: Stores) -> None:
    now = datetime(2026, 6, 1, 10, 0, tzinfo=UTC)
    _, service = parts(sqlite_stores, FakeClock(now), FakePoster())
    await add_cards(sqlite_stores.repo, "discord", "ann", ["q-short", "q-choice", "q-code"], now)
    async with sqlite_stores.repo.engine.begin() as c:
        rows = (await c.execute(t.reviews.select())).all()
        for row in rows:
            data = json.loads(row.card)
            data["stability"] = 30.0 if row.question_id != "q-code" else 5.0
            await c.execute(
                update(t.reviews).where(t.reviews.c.question_id == row.question_id).values(card=json.dumps(data))
            )
    assert await service.mastered(ANN) == {("demo", "Basics"): 2}
    assert await service.mastered(BO) == {}


async def record_review(stores: Stores, service: DailyService, item: tuple[str, str], *, correct: bool, at: datetime) -> bool:
    """Record one graded review answer as the answer path does; return whether it made a leech."""
    attempt, _ = graded(
        platform="discord", scope="g1", user_id="ann", pack=item[0], question=item[1], topic=None, points=1,
        text="x", correct=correct, hinted=False, card=None, at=at, mode="review", final=False,
    )
    unit, leech = await service.review_parts("discord", "ann", item, AnswerWrite(attempt=attempt), new=False)
    await stores.repo.write_answer(unit)
    return leech


async def test_cards_of_a_removed_pack_are_no_longer_due_in_the_review_or_the_stats(sqlite_stores: Stores) -> None:
    """A removed pack's cards stay in the learner's history; the review and the stats no longer count them due."""
    now = datetime(2026, 6, 1, 10, 0, tzinfo=UTC)
    _, service = parts(sqlite_stores, FakeClock(now), FakePoster())
    await add_cards(sqlite_stores.repo, "discord", "ann", ["q-short", "q-choice"], now - timedelta(hours=1))
    assert (await service.review_queue(ANN)).due_total == 2
    assert (await sqlite_stores.repo.user_stats("discord", "ann", now)).due == 2
    await sqlite_stores.repo.delete_pack("demo")
    queue, reply = await service.review_intro(ANN)
    assert (queue.due_total, queue.reviews, queue.new) == (0, (), ())
    assert "review" not in reply.messages[0].text().split(" today")[0], reply.messages[0].text()
    assert (await sqlite_stores.repo.user_stats("discord", "ann", now)).due == 0
