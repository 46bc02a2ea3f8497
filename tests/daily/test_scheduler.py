"""The scheduler over a fake clock: days of posts across DST and restarts, answers, tally, reveal, pauses."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from bot.core.daily import DailyService
from bot.core.daily.errors import AlreadyAnswered, BadTime, NoSchedule, QuestionClosed, UnknownZone
from bot.core.errors import NotAllowed, UnknownName
from bot.core.model import Actor
from bot.core.render import correct_answer_text
from bot.scheduler import Scheduler
from tests.daily.support import FakePoster, Stores, open_stores
from tests.fakes import FakeClock

BERLIN = ZoneInfo("Europe/Berlin")
NEW_YORK = ZoneInfo("America/New_York")
ADMIN = Actor("discord", "g1", "admin", "Admin", is_admin=True)
MEMBER = Actor("discord", "g1", "m1", "Mia")


class Stop(Exception):
    """Raised by the fake sleep when the test's time is up."""


def parts(stores: Stores, clock: FakeClock, poster: FakePoster) -> tuple[Scheduler, DailyService]:
    scheduler = Scheduler(
        store=stores.daily, packs=stores.repo, clock=clock, poster=poster, max_sleep_s=86_400
    )
    service = DailyService(store=stores.daily, packs=stores.repo, clock=clock, wake=scheduler.wake)
    return scheduler, service


async def drive(scheduler: Scheduler, clock: FakeClock, until: datetime) -> None:
    """Run the scheduler's real loop, sleeping on the fake clock, until `until`."""

    async def sleep(seconds: float) -> None:
        clock.advance(seconds=seconds)
        if clock.now() >= until:
            raise Stop

    scheduler._sleep = sleep
    with pytest.raises(Stop):
        await scheduler.run()


async def test_a_week_in_berlin_posts_at_nine_local_across_the_spring_change(sqlite_stores: Stores) -> None:
    clock = FakeClock(datetime(2026, 3, 25, 6, 0, tzinfo=UTC))
    poster = FakePoster()
    scheduler, service = parts(sqlite_stores, clock, poster)
    await service.set_schedule(ADMIN, channel_id="c1", time="09:00", timezone="Europe/Berlin", pack="demo")
    await drive(scheduler, clock, datetime(2026, 4, 1, 6, 0, tzinfo=UTC))

    posts = await sqlite_stores.daily.posts("discord", "c1")
    assert [p.day for p in posts] == [date(2026, 3, 25) + timedelta(days=i) for i in range(7)]
    assert {(p.posted_at.astimezone(BERLIN).hour, p.posted_at.astimezone(BERLIN).minute) for p in posts} == {(9, 0)}
    assert [p.posted_at.hour for p in posts] == [8, 8, 8, 8, 7, 7, 7]  # UTC: CET, then CEST from the 29th
    assert all(p.status == "posted" and p.message_ref for p in posts)
    # Five demo items: the first five days show each once, then a new round begins.
    assert len({(p.pack, p.question) for p in posts[:5]}) == 5
    # Each post is revealed when the next is posted; the last is still open.
    assert [p.revealed_at for p in posts[:-1]] == [p.posted_at for p in posts[1:]]
    assert posts[-1].revealed_at is None
    assert len(poster.of("post")) == 7 and len(poster.of("reveal")) == 6
    first = poster.of("post")[0][2]
    assert first.title == "Daily question · 2026-03-25 · Basics"
    assert first.footer == "0 people have answered · 0 right"
    assert first.session_id == posts[0].id
    actions = [c.action for c in first.controls()]
    assert actions and all(a.startswith(f"dp:{posts[0].id}:0:") for a in actions)
    assert not any(a.endswith((":s", ":x")) for a in actions)  # no Skip or Stop on a channel's question


async def test_new_york_posts_survive_a_restart_and_the_fall_change(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'restart.db'}"
    clock = FakeClock(datetime(2026, 10, 29, 4, 0, tzinfo=UTC))  # midnight in New York
    stores = await open_stores(url)
    poster = FakePoster()
    scheduler, service = parts(stores, clock, poster)
    await service.set_schedule(ADMIN, channel_id="c1", time="07:15", timezone="America/New_York")
    await drive(scheduler, clock, datetime(2026, 10, 31, 15, 0, tzinfo=UTC))
    await stores.close()

    stores = await open_stores(url, with_pack=False)  # a new process: only the database remembers
    try:
        scheduler, _ = parts(stores, clock, poster)
        await drive(scheduler, clock, datetime(2026, 11, 4, 4, 0, tzinfo=UTC))
        posts = await stores.daily.posts("discord", "c1")
    finally:
        await stores.close()
    assert [p.day for p in posts] == [date(2026, 10, 29) + timedelta(days=i) for i in range(6)]
    local = [p.posted_at.astimezone(NEW_YORK) for p in posts]
    assert {(t.hour, t.minute) for t in local} == {(7, 15)}
    assert {t.utcoffset() for t in local} == {timedelta(hours=-4), timedelta(hours=-5)}
    assert len(poster.of("post")) == 6


async def test_down_at_the_set_time_posts_once_that_day_and_never_yesterdays(sqlite_stores: Stores) -> None:
    clock = FakeClock(datetime(2026, 6, 1, 6, 0, tzinfo=UTC))
    poster = FakePoster()
    scheduler, service = parts(sqlite_stores, clock, poster)
    await service.set_schedule(ADMIN, channel_id="c1", time="09:00", timezone="Europe/Berlin")
    clock.current = datetime(2026, 6, 1, 13, 0, tzinfo=UTC)  # back at 15:00 local
    await scheduler.tick()
    await scheduler.tick()
    assert len(poster.of("post")) == 1
    clock.current = datetime(2026, 6, 3, 6, 0, tzinfo=UTC)  # down all of 2 June, back at 08:00 on the 3rd
    wake = await scheduler.tick()
    assert len(poster.of("post")) == 1
    assert wake == datetime(2026, 6, 3, 7, 0, tzinfo=UTC)  # the stale look moved on to 09:00 on the 3rd
    assert len(poster.of("reveal")) == 1  # 1 June's question closed at 2 June's time
    clock.current = wake
    await scheduler.tick()
    days = [p.day for p in await sqlite_stores.daily.posts("discord", "c1")]
    assert days == [date(2026, 6, 1), date(2026, 6, 3)]


async def test_a_schedule_set_after_todays_time_starts_tomorrow(sqlite_stores: Stores) -> None:
    clock = FakeClock(datetime(2026, 6, 1, 12, 0, tzinfo=UTC))
    poster = FakePoster()
    scheduler, service = parts(sqlite_stores, clock, poster)
    reply = await service.set_schedule(ADMIN, channel_id="c1", time="09:00", timezone="Europe/Berlin")
    assert "Tue 2 Jun 09:00 (Europe/Berlin)" in reply.messages[0].text()
    assert await scheduler.tick() == datetime(2026, 6, 2, 7, 0, tzinfo=UTC)
    assert poster.calls == []


async def test_members_answer_privately_the_tally_is_throttled_and_the_reveal_names_the_first(sqlite_stores: Stores) -> None:
    clock = FakeClock(datetime(2026, 6, 1, 6, 0, tzinfo=UTC))
    poster = FakePoster()
    scheduler, service = parts(sqlite_stores, clock, poster)
    await service.set_schedule(
        ADMIN, channel_id="c1", time="09:00", timezone="Europe/Berlin", reveal_after_hours="2"
    )
    clock.current = datetime(2026, 6, 1, 7, 0, tzinfo=UTC)
    await scheduler.tick()
    (post,) = await sqlite_stores.daily.posts("discord", "c1")
    pack = await sqlite_stores.repo.get_pack(post.pack)
    question = pack.question(post.question)  # type: ignore[union-attr]
    assert question is not None
    tries = question.max_attempts()

    members = [Actor("discord", "g1", f"u{i}", f"Member {i}") for i in range(6)]
    # u0 and u1 right at once, u2 wrong on every attempt, u3 right after a hint.
    clock.advance(seconds=30)
    first = await service.answer_post(members[1], post.id, correct=True)
    assert first.scored and first.reply.private and "Right!" in first.reply.messages[0].text()
    await scheduler.tick()  # the first tally edit goes out at once
    clock.advance(seconds=1)
    await service.answer_post(members[0], post.id, correct=True)
    for _ in range(tries):
        last = await service.answer_post(members[2], post.id, correct=False)
    assert last.scored and not last.answer.correct
    hint = await service.hint_post(members[3], post.id)
    assert hint.private and hint.messages[0].title == "Hint"
    assert (await service.answer_post(members[3], post.id, correct=True)).answer.hinted
    await scheduler.tick()  # within 5 s of the last edit: no edit yet
    edits = [m for kind, _, m in poster.calls if kind == "edit"]
    assert [m.footer for m in edits] == ["1 person has answered · 1 right"]
    clock.advance(seconds=5)
    await scheduler.tick()
    edits = [m for kind, _, m in poster.calls if kind == "edit"]
    assert [m.footer for m in edits][-1] == "4 people have answered · 3 right"
    assert all("Member" not in m.text() for m in edits)  # no names, no spoilers

    with pytest.raises(AlreadyAnswered):
        await service.answer_post(members[1], post.id, correct=True)

    clock.current = datetime(2026, 6, 1, 9, 0, tzinfo=UTC)  # two hours after posting
    await scheduler.tick()
    (reveal,) = [m for kind, _, m in poster.calls if kind == "reveal"]
    text = reveal.text()
    assert correct_answer_text(question) in text
    assert question.explanation is not None and question.explanation in text
    assert "Right first: Member 1, Member 0, Member 3" in text
    assert "Tally: 4 people have answered · 3 right" in text
    with pytest.raises(QuestionClosed) as closed:
        await service.answer_post(members[5], post.id, correct=True)
    assert str(closed.value).startswith("This question closed. " + correct_answer_text(question)[:20])

    # The day counts for the members' streaks.
    stats = await service.stats(members[1])
    assert ("Streak", "1 day (longest 1)") in stats.items


async def test_a_channel_the_bot_cannot_post_in_pauses_and_tells_the_admin_once(sqlite_stores: Stores) -> None:
    clock = FakeClock(datetime(2026, 6, 1, 6, 0, tzinfo=UTC))
    poster = FakePoster(broken={"c1"})
    scheduler, service = parts(sqlite_stores, clock, poster)
    await service.set_schedule(ADMIN, channel_id="c1", time="09:00", timezone="Europe/Berlin")
    await drive(scheduler, clock, datetime(2026, 6, 4, 6, 0, tzinfo=UTC))
    assert poster.of("post") == []
    dms = poster.of("dm")
    assert len(dms) == 1 and dms[0][1] == "admin"
    assert "paused" in dms[0][2].text() and "cannot post there" in dms[0][2].text()
    shown = await service.show_schedule(ADMIN, channel_id="c1")
    assert "paused: the bot cannot post there" in shown.messages[0].text()
    assert [p.status for p in await sqlite_stores.daily.posts("discord", "c1")] == ["failed"]


async def test_once_the_admin_mends_a_channel_daily_now_posts_the_day_that_failed(sqlite_stores: Stores) -> None:
    """A failed post does not hold its day: after `daily set` again, `daily now` posts, once."""
    clock = FakeClock(datetime(2026, 6, 1, 6, 0, tzinfo=UTC))
    poster = FakePoster(broken={"c1"})
    scheduler, service = parts(sqlite_stores, clock, poster)
    await service.set_schedule(ADMIN, channel_id="c1", time="09:00", timezone="Europe/Berlin")
    await drive(scheduler, clock, datetime(2026, 6, 1, 8, 0, tzinfo=UTC))
    assert [p.status for p in await sqlite_stores.daily.posts("discord", "c1")] == ["failed"]
    clock.current = datetime(2026, 6, 1, 8, 0, tzinfo=UTC)  # the loop's fake sleep ran on to tomorrow's time
    poster.broken.clear()  # the admin invites the bot to the channel
    await service.set_schedule(ADMIN, channel_id="c1", time="09:00", timezone="Europe/Berlin")
    assert "is posted" in (await scheduler.post_now(ADMIN, channel_id="c1")).messages[0].text()
    assert "already posted" in (await scheduler.post_now(ADMIN, channel_id="c1")).messages[0].text()
    assert [(p.day, p.status) for p in await sqlite_stores.daily.posts("discord", "c1")] == [(date(2026, 6, 1), "posted")]
    assert len(poster.of("post")) == 1


async def test_a_removed_pack_pauses_the_schedule(sqlite_stores: Stores) -> None:
    clock = FakeClock(datetime(2026, 6, 1, 6, 0, tzinfo=UTC))
    poster = FakePoster()
    scheduler, service = parts(sqlite_stores, clock, poster)
    await service.set_schedule(ADMIN, channel_id="c1", time="09:00", timezone="Europe/Berlin", pack="demo")
    await sqlite_stores.repo.delete_pack("demo")
    await drive(scheduler, clock, datetime(2026, 6, 3, 6, 0, tzinfo=UTC))
    assert poster.of("post") == []
    (dm,) = poster.of("dm")
    assert "was a pack removed?" in dm[2].text()


async def test_post_now_posts_todays_question_once(sqlite_stores: Stores) -> None:
    clock = FakeClock(datetime(2026, 6, 1, 5, 0, tzinfo=UTC))
    poster = FakePoster()
    scheduler, service = parts(sqlite_stores, clock, poster)
    await service.set_schedule(ADMIN, channel_id="c1", time="09:00", timezone="Europe/Berlin")
    with pytest.raises(NotAllowed):
        await scheduler.post_now(MEMBER, channel_id="c1")
    with pytest.raises(NoSchedule):
        await scheduler.post_now(ADMIN, channel_id="nowhere")
    assert "is posted" in (await scheduler.post_now(ADMIN, channel_id="c1")).messages[0].text()
    assert "already posted" in (await scheduler.post_now(ADMIN, channel_id="c1")).messages[0].text()
    await drive(scheduler, clock, datetime(2026, 6, 1, 20, 0, tzinfo=UTC))  # past 09:00: no second post today
    assert len(poster.of("post")) == 1


async def test_setting_a_schedule_checks_who_and_what(sqlite_stores: Stores) -> None:
    _, service = parts(sqlite_stores, FakeClock(), FakePoster())
    with pytest.raises(NotAllowed):
        await service.set_schedule(MEMBER, channel_id="c1", time="09:00", timezone="Europe/Berlin")
    with pytest.raises(UnknownZone) as zone:
        await service.set_schedule(ADMIN, channel_id="c1", time="09:00", timezone="Europe/Berln")
    assert "Europe/Berlin" in str(zone.value)
    with pytest.raises(BadTime):
        await service.set_schedule(ADMIN, channel_id="c1", time="9am", timezone="Europe/Berlin")
    with pytest.raises(UnknownName):
        await service.set_schedule(ADMIN, channel_id="c1", time="09:00", timezone="UTC", pack="nope")
    with pytest.raises(UnknownName):
        await service.set_schedule(ADMIN, channel_id="c1", time="09:00", timezone="UTC", topic="nope")
    with pytest.raises(NoSchedule):
        await service.show_schedule(ADMIN)
    await service.set_schedule(ADMIN, channel_id="c1", time="09:00", timezone="UTC", topic="basics", difficulty="easy")
    await service.set_schedule(ADMIN, channel_id="c2", time="18:30", timezone="Asia/Tokyo")
    assert len((await service.show_schedule(ADMIN)).messages) == 2
    with pytest.raises(NotAllowed):
        await service.turn_off(MEMBER, channel_id="c1")
    await service.turn_off(ADMIN, channel_id="c1")
    assert [s.channel_id for s in await sqlite_stores.daily.list_schedules("discord", "g1")] == ["c2"]


class FlakyPoster(FakePoster):
    """A platform whose API errors out (not a refusal) for one channel."""

    async def post_item(self, post, message):  # type: ignore[no-untyped-def]
        if post.channel_id == "c1":
            raise RuntimeError("HTTP 502")
        return await super().post_item(post, message)


async def test_an_unexpected_error_loses_that_post_without_repeating_it_or_stopping_others(sqlite_stores: Stores) -> None:
    clock = FakeClock(datetime(2026, 6, 1, 6, 0, tzinfo=UTC))
    poster = FlakyPoster()
    scheduler, service = parts(sqlite_stores, clock, poster)
    for channel in ("c1", "c2"):
        await service.set_schedule(ADMIN, channel_id=channel, time="09:00", timezone="Europe/Berlin")
    await drive(scheduler, clock, datetime(2026, 6, 2, 6, 0, tzinfo=UTC))
    assert [where for _, where, _ in poster.of("post")] == ["c2"]
    assert [p.status for p in await sqlite_stores.daily.posts("discord", "c1")] == ["failed"]
    schedule = await sqlite_stores.daily.get_schedule("discord", "c1")
    assert schedule is not None and not schedule.paused
    assert schedule.next_at == datetime(2026, 6, 2, 7, 0, tzinfo=UTC)  # tomorrow as usual


async def test_each_member_keeps_their_own_menu_picks_until_they_answer(sqlite_stores: Stores) -> None:
    clock = FakeClock(datetime(2026, 6, 1, 6, 0, tzinfo=UTC))
    poster = FakePoster()
    scheduler, service = parts(sqlite_stores, clock, poster)
    await service.set_schedule(ADMIN, channel_id="c1", time="09:00", timezone="Europe/Berlin")
    await scheduler.post_now(ADMIN, channel_id="c1")
    (post,) = await sqlite_stores.daily.posts("discord", "c1")
    ann, bo = Actor("discord", "g1", "ann", "Ann"), Actor("discord", "g1", "bo", "Bo")
    await service.select(ann, post.id, {1: 0})
    await service.select(bo, post.id, {1: 3})
    await service.select(ann, post.id, {2: 2})
    assert (await service.member_answer(post.id, "ann")).selections == {1: 0, 2: 2}  # type: ignore[union-attr]
    assert (await service.member_answer(post.id, "bo")).selections == {1: 3}  # type: ignore[union-attr]
    for _ in range(3):
        result = await service.answer_post(ann, post.id, correct=False)
        if result.scored:
            break
    assert (await service.member_answer(post.id, "ann")).selections == {1: 0, 2: 2}  # type: ignore[union-attr]
    with pytest.raises(AlreadyAnswered):
        await service.select(ann, post.id, {1: 1})
    tally = await sqlite_stores.daily.get_post(post.id)
    assert tally is not None and (tally.answered, tally.right) == (1, 0)


async def test_a_learner_who_deletes_their_data_leaves_the_tally_and_counts_once_on_answering_again(sqlite_stores: Stores) -> None:
    from bot.storage.privacy import PrivacyStore

    clock = FakeClock(datetime(2026, 6, 1, 5, 0, tzinfo=UTC))
    scheduler, service = parts(sqlite_stores, clock, FakePoster())
    await service.set_schedule(ADMIN, channel_id="c1", time="09:00", timezone="Europe/Berlin")
    await scheduler.post_now(ADMIN, channel_id="c1")
    (post,) = await sqlite_stores.daily.posts("discord", "c1")
    await service.answer_post(MEMBER, post.id, correct=True)
    counted = await sqlite_stores.daily.get_post(post.id)
    assert counted is not None and (counted.answered, counted.right) == (1, 1)
    await PrivacyStore(sqlite_stores.repo.engine).delete_user("discord", MEMBER.user_id)
    after = await sqlite_stores.daily.get_post(post.id)
    assert after is not None and (after.answered, after.right) == (0, 0)
    await service.answer_post(MEMBER, post.id, correct=True)
    again = await sqlite_stores.daily.get_post(post.id)
    assert again is not None and (again.answered, again.right) == (1, 1)
