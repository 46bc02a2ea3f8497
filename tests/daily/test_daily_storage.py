"""The daily repository on SQLite and PostgreSQL: round trips, and the claims that make jobs happen once."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from datetime import UTC, date, datetime, time, timedelta

from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import inspect

from bot.core.answer import AnswerWrite, PracticeDay
from bot.core.daily.channel import DailyPost, MemberAnswer
from bot.core.daily.learner import Learner
from bot.core.daily.queue import Caps, DayCount
from bot.core.daily.reminders import Reminder
from bot.core.daily.schedule import Schedule
from bot.storage.daily_tables import DAILY_TABLES
from bot.storage.tables import metadata
from tests.daily.support import Stores, add_cards

T0 = datetime(2026, 6, 1, 7, 0, tzinfo=UTC)


def _schedule(channel: str = "c1", **kw: object) -> Schedule:
    base = Schedule(
        platform="discord", scope="g1", channel_id=channel, at=time(9, 0), zone="Europe/Berlin",
        packs=("demo",), set_by="admin", last_day=date(2026, 5, 31), next_at=T0,
    )
    return replace(base, **kw)  # type: ignore[arg-type]


def _post(day: date, post_id: str, channel: str = "c1") -> DailyPost:
    return DailyPost(post_id, "discord", "g1", channel, day, "demo", "q-choice", T0, T0 + timedelta(hours=6))


async def test_the_migration_creates_exactly_the_daily_tables(stores: Stores) -> None:
    async with stores.repo.engine.connect() as c:
        diff = await c.run_sync(lambda sc: compare_metadata(MigrationContext.configure(sc), metadata))
        names = await c.run_sync(lambda sc: set(inspect(sc).get_table_names()))
    assert diff == []
    assert {tb.name for tb in DAILY_TABLES} <= names


async def test_schedules_round_trip_and_list_per_server(stores: Stores) -> None:
    d = stores.daily
    s = _schedule(topic="basics", difficulty="easy", reveal_after_hours=6.5)
    await d.save_schedule(s)
    await d.save_schedule(_schedule("c2"))
    await d.save_schedule(replace(_schedule("c3"), scope="other"))
    assert await d.get_schedule("discord", "c1") == s
    assert [x.channel_id for x in await d.list_schedules("discord", "g1")] == ["c1", "c2"]
    await d.save_schedule(replace(s, at=time(18, 30)))  # replaces, does not add
    assert (await d.get_schedule("discord", "c1")).at == time(18, 30)  # type: ignore[union-attr]
    assert sorted(x.channel_id for x in await d.due_schedules(T0)) == ["c1", "c2", "c3"]
    assert await d.due_schedules(T0 - timedelta(seconds=1)) == []
    assert await d.pause_schedule(s, "gone") is True
    assert await d.pause_schedule(s, "gone") is False  # told once
    assert sorted(x.channel_id for x in await d.due_schedules(T0)) == ["c2", "c3"]
    assert await d.delete_schedule("discord", "c2") is True
    assert await d.delete_schedule("discord", "c2") is False


async def test_a_post_is_claimed_once_per_channel_and_day(stores: Stores) -> None:
    d = stores.daily
    s = _schedule()
    await d.save_schedule(s)
    day = date(2026, 6, 1)
    nxt = T0 + timedelta(days=1)
    results = await asyncio.gather(
        *(d.claim_post(s, _post(day, f"p{i}"), cycle=0, next_at=nxt) for i in range(5))
    )
    assert sorted(results) == [False, False, False, False, True]
    assert await d.claim_post(s, _post(day + timedelta(days=1), "next"), cycle=1, next_at=nxt) is True
    assert await d.claim_post(_schedule("c9"), _post(day, "other-channel", "c9"), cycle=0, next_at=nxt) is True
    after = await d.get_schedule("discord", "c1")
    assert after is not None and (after.last_day, after.cycle, after.next_at) == (day + timedelta(days=1), 1, nxt)
    assert len(await d.posts("discord", "c1")) == 2
    assert await d.posted_in_cycle(s, 0) == [("demo", "q-choice")]


async def test_the_same_delivery_is_counted_once(stores: Stores) -> None:
    """A retry of the delivery last counted (same key) changes nothing; the next delivery counts."""
    d = stores.daily
    s = _schedule()
    await d.save_schedule(s)
    await d.claim_post(s, _post(date(2026, 6, 1), "p1"), cycle=0, next_at=T0)
    first = MemberAnswer("u1", "Ann", attempts=1, first_at=T0)
    assert await d.save_member_answer("p1", first, previous_attempts=None, key="evt-1") is True
    again = replace(first, attempts=2)
    # The same event read afresh by another process: it would count as a second attempt.
    assert await d.save_member_answer("p1", again, previous_attempts=1, key="evt-1") is False
    assert await d.member_answer("p1", "u1") == replace(first, last_key="evt-1")
    assert await d.save_member_answer("p1", again, previous_attempts=1, key="evt-2") is True
    hinted = replace(again, hinted=True)  # a hint carries no key and never counts as a delivery
    assert await d.save_member_answer("p1", hinted, previous_attempts=2) is True
    assert await d.save_member_answer("p1", replace(hinted, attempts=3), previous_attempts=2, key="evt-2") is False
    assert await d.member_answer("p1", "u1") == replace(hinted, last_key="evt-2")  # the delivery last counted


async def test_answers_compare_and_set_and_move_the_tally(stores: Stores) -> None:
    d = stores.daily
    s = _schedule()
    await d.save_schedule(s)
    await d.claim_post(s, _post(date(2026, 6, 1), "p1"), cycle=0, next_at=T0)
    await d.mark_post("p1", status="posted", message_ref="msg-1")
    first = MemberAnswer("u1", "Ann", attempts=1, first_at=T0)
    assert await d.save_member_answer("p1", first, previous_attempts=None) is True
    assert await d.save_member_answer("p1", first, previous_attempts=None) is False  # a double click
    done = replace(first, attempts=2, done=True, correct=True, done_at=T0)
    racing = await asyncio.gather(*(d.save_member_answer("p1", done, previous_attempts=1) for _ in range(3)))
    assert sorted(racing) == [False, False, True]
    await d.save_member_answer("p1", MemberAnswer("u2", "Bo", 1, done=True, correct=False, done_at=T0), previous_attempts=None)
    post = await d.get_post("p1")
    assert post is not None and (post.answered, post.right, post.message_ref) == (2, 1, "msg-1")
    assert await d.member_answer("p1", "u1") == done
    every = timedelta(seconds=5)
    assert [p.id for p in await d.due_tallies(T0, every)] == ["p1"]
    claimed = await d.claim_tally("p1", T0, every)
    assert claimed is not None and claimed.answered == 2
    assert await d.claim_tally("p1", T0, every) is None
    assert await d.claim_reveal("p1", T0) is True
    assert await d.claim_reveal("p1", T0) is False


async def test_learners_round_trip_and_activity_moves_the_streak(stores: Stores) -> None:
    d = stores.daily
    assert await d.get_learner("slack", "u1") == Learner("slack", "u1")
    learner = Learner(
        "slack", "u1", zone="America/New_York", caps=Caps(10, 2), packs=("demo",),
        reminder=Reminder(time(8, 0), "America/New_York", last_day=date(2026, 6, 1), next_at=T0),
    )
    await d.save_learner(learner)
    assert await d.get_learner("slack", "u1") == learner
    day = date(2026, 6, 2)
    noon = datetime(2026, 6, 2, 16, 0, tzinfo=UTC)  # 12:00 in New York
    # Answers' practice days, written as the answer path writes them (concurrently: counted once each).
    await asyncio.gather(*(stores.repo.write_answer(AnswerWrite(day=PracticeDay("slack", "u1", noon, reviews=1))) for _ in range(4)))
    await stores.repo.write_answer(AnswerWrite(day=PracticeDay("slack", "u1", noon, channel=1)))
    assert await d.day_count("slack", "u1", day) == DayCount(reviews=4, new=0, channel=1)
    after = await d.get_learner("slack", "u1")
    assert (after.streak.current, after.streak.last_day) == (1, day)
    await stores.repo.write_answer(AnswerWrite(day=PracticeDay("slack", "u1", noon + timedelta(days=1), new=1)))
    stored = await d.get_learner("slack", "u1")
    assert stored.streak.current == 2 and stored.caps == Caps(10, 2)


async def test_due_cards_skip_leeches_and_new_items_skip_answered(stores: Stores) -> None:
    d = stores.daily
    await add_cards(stores.repo, "discord", "u1", ["q-choice", "q-blanks", "q-short"], T0 - timedelta(days=2), step=timedelta(days=1))
    # due: q-choice (2 days over), q-blanks (1 day over), q-short just before the cutoff
    cut = T0 + timedelta(seconds=1)
    cards, total, later = await d.due_cards("discord", "u1", cut, cut, 10)
    assert [c.question for c in cards] == ["q-choice", "q-blanks", "q-short"]
    assert (total, later) == (3, None)
    await d.save_card_failures("discord", "u1", ("demo", "q-choice"), 8, True)
    cards, total, _ = await d.due_cards("discord", "u1", cut, cut, 1)
    assert [c.question for c in cards] == ["q-blanks"] and total == 2
    early = T0 - timedelta(days=1, hours=1)
    _, total, later = await d.due_cards("discord", "u1", early, early, 5)  # the next: at T0 - 1 day
    assert total == 0 and later is not None and later.due == T0 - timedelta(days=1)
    assert await d.leeches("discord", "u1") == [("demo", "q-choice")]
    assert await d.card_failures("discord", "u1", ("demo", "q-choice")) == (8, True)
    assert await d.new_items("discord", "u1", ["demo"], 10) == [("demo", "q-code"), ("demo", "q-multi")]
    assert await d.practised_packs("discord", "u1") == ["demo"]
    assert len(await d.cards("discord", "u1")) == 3


async def test_a_reminder_is_claimed_once_per_learner_and_day(stores: Stores) -> None:
    d = stores.daily
    learner = Learner("discord", "u1", reminder=Reminder(time(8, 0), "UTC", next_at=T0))
    await d.save_learner(learner)
    assert [x.user_id for x in await d.due_reminders(T0)] == ["u1"]
    day = date(2026, 6, 1)
    nxt = T0 + timedelta(days=1)
    results = await asyncio.gather(*(d.claim_reminder(learner, day, due=3, now=T0, next_at=nxt) for _ in range(4)))
    assert sorted(results) == [False, False, False, True]
    assert await d.due_reminders(T0) == []
    await d.finish_reminder(learner, day, sent=False, failures=2, stopped=True)
    stored = await d.get_learner("discord", "u1")
    assert stored.reminder is not None and stored.reminder.stopped and stored.reminder.failures == 2
    assert await d.reminder_log("discord", "u1") == [(day, "failed", 3)]
    assert await d.due_reminders(T0 + timedelta(days=9)) == []
