"""Issue 10's sentences that no other test held: a code item on the channel's post, reminders opt-in only."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from bot.core import requests as rq
from bot.core.model import Actor
from bot.storage import SqlRepository
from tests.daily.support import FakePoster, add_cards
from tests.daily.wired import wire
from tests.fakes import FakeClock, LocalRunner

ADMIN = Actor("discord", "g1", "ada", "Ada", is_admin=True, channel_id="c1")
ANN = Actor("discord", "g1", "ann", "Ann", channel_id="c1")

WRONG = "total = 0\nfor n in range(1, 10):\n    total += n\nprint(total)\n"
RIGHT = "total = sum(range(1, 11))\nprint(total)\n"


async def test_a_code_item_on_the_post_is_answered_through_the_form_graded_and_counted(
    repository: SqlRepository, clock: FakeClock, runner: LocalRunner, tmp_path: Path
) -> None:
    wired = await wire(repository, clock, runner, tmp_path)
    service, store = wired.service, wired.scheduler._store
    poster = FakePoster()
    await wired.posters.add("discord", poster)
    # The demo pack's only hard item is its code item.
    await service.handle(ADMIN, rq.DailySet(time="11:00", timezone="UTC", pack="demo", difficulty="hard"))
    await service.handle(ADMIN, rq.DailyNow())
    [post] = await store.open_posts("discord", "c1")
    assert (post.pack, post.question) == ("demo", "q-code")
    [(_, _, shown)] = poster.of("post")
    answer = next(c for c in shown.controls() if c.action == f"dp:{post.id}:0:a")

    opened = await service.handle(ANN, rq.Act(answer.action))
    assert opened.form is not None and opened.form.kind == "code"
    wrong = await service.handle(ANN, rq.Act(opened.form.action, (WRONG,)))
    assert wrong.private and "Not quite" in wrong.messages[-1].text()
    assert "`total` must be 55." in "\n".join(m.text() for m in wrong.messages)
    right = await service.handle(ANN, rq.Act(opened.form.action, (RIGHT,)))
    assert right.private and "Right!" in right.messages[-1].text()
    assert [r.code for r in runner.requests] == [WRONG, RIGHT]  # both went to the sandbox

    counted = await store.get_post(post.id)
    assert counted is not None and (counted.answered, counted.right) == (1, 1)
    # The scored answer counts like a quiz answer: in progress and as a review card.
    seen = (await repository.history("discord", "ann", ["demo"]))[("demo", "q-code")]
    assert seen.attempts == 1 and seen.last_correct
    assert [(p, q) for p, q, _ in await store.cards("discord", "ann")] == [("demo", "q-code")]


async def test_reminders_are_opt_in_only(repository: SqlRepository, runner: LocalRunner, tmp_path: Path) -> None:
    clock = FakeClock(datetime(2026, 6, 1, 4, 0, tzinfo=UTC))
    wired = await wire(repository, clock, runner, tmp_path)
    poster = FakePoster()
    await wired.posters.add("discord", poster)
    bo = Actor("discord", "g1", "bo", "Bo")
    for user in ("ann", "bo"):
        await add_cards(repository, "discord", user, ["q-short", "q-choice"], clock.now() - timedelta(hours=1))
    await wired.daily.settings(ANN, timezone="Europe/Berlin")  # settings alone do not turn a reminder on
    await wired.daily.remind(bo, time="08:00", timezone="Europe/Berlin")
    for hour in range(0, 48, 2):
        clock.current = datetime(2026, 6, 1, 4, 0, tzinfo=UTC) + timedelta(hours=hour)
        await wired.scheduler.tick()
    assert [who for _, who, _ in poster.of("dm")] == ["bo", "bo"]  # one a day, and only to Bo
    assert await wired.scheduler._store.reminder_log("discord", "ann") == []


async def test_a_reminder_set_again_the_same_day_is_not_sent_twice_nor_looked_at_again_until_tomorrow(
    repository: SqlRepository, runner: LocalRunner, tmp_path: Path
) -> None:
    clock = FakeClock(datetime(2026, 6, 1, 6, 0, tzinfo=UTC))  # 08:00 in Berlin
    wired = await wire(repository, clock, runner, tmp_path)
    poster = FakePoster()
    await wired.posters.add("discord", poster)
    await add_cards(repository, "discord", "ann", ["q-short"], clock.now() - timedelta(hours=1))
    await wired.daily.remind(ANN, time="08:05", timezone="Europe/Berlin")
    clock.advance(minutes=5)
    await wired.scheduler.tick()
    assert len(poster.of("dm")) == 1
    clock.current = datetime(2026, 6, 1, 7, 0, tzinfo=UTC)
    await wired.daily.remind_off(ANN)
    await wired.daily.remind(ANN, time="10:00", timezone="Europe/Berlin")
    clock.current = datetime(2026, 6, 1, 8, 0, tzinfo=UTC)  # 10:00 in Berlin, the same day
    wake = await wired.scheduler.tick()
    assert len(poster.of("dm")) == 1
    assert wake == datetime(2026, 6, 2, 8, 0, tzinfo=UTC)  # tomorrow's 10:00, not a job still due now
    clock.current = wake
    await wired.scheduler.tick()
    assert len(poster.of("dm")) == 2


async def test_a_schedule_set_again_after_todays_post_posts_tomorrow_and_is_not_looked_at_until_then(
    repository: SqlRepository, runner: LocalRunner, tmp_path: Path
) -> None:
    clock = FakeClock(datetime(2026, 6, 1, 7, 0, tzinfo=UTC))  # 09:00 in Berlin
    wired = await wire(repository, clock, runner, tmp_path)
    poster = FakePoster()
    await wired.posters.add("discord", poster)
    await wired.daily.set_schedule(ADMIN, channel_id="c1", time="09:05", timezone="Europe/Berlin", pack="demo")
    clock.advance(minutes=5)
    await wired.scheduler.tick()
    assert len(poster.of("post")) == 1
    await wired.daily.turn_off(ADMIN, channel_id="c1")
    await wired.daily.set_schedule(ADMIN, channel_id="c1", time="12:00", timezone="Europe/Berlin", pack="demo")
    clock.current = datetime(2026, 6, 1, 10, 0, tzinfo=UTC)  # 12:00 in Berlin, the same day
    wake = await wired.scheduler.tick()
    assert len(poster.of("post")) == 1  # one post per channel and day
    assert wake is not None and wake > clock.now()
    schedule = await wired.scheduler._store.get_schedule("discord", "c1")
    assert schedule is not None and schedule.next_at == datetime(2026, 6, 2, 10, 0, tzinfo=UTC)
    clock.current = schedule.next_at
    await wired.scheduler.tick()
    assert [p.day.isoformat() for p in await wired.scheduler._store.posts("discord", "c1")] == ["2026-06-01", "2026-06-02"]


async def test_daily_now_again_the_same_day_does_not_reveal_todays_question_early(
    repository: SqlRepository, runner: LocalRunner, tmp_path: Path
) -> None:
    clock = FakeClock(datetime(2026, 6, 1, 5, 0, tzinfo=UTC))
    wired = await wire(repository, clock, runner, tmp_path)
    poster = FakePoster()
    await wired.posters.add("discord", poster)
    await wired.service.handle(ADMIN, rq.DailySet(time="09:00", timezone="Europe/Berlin", pack="demo"))
    assert "is posted" in (await wired.service.handle(ADMIN, rq.DailyNow())).messages[0].text()
    again = await wired.service.handle(ADMIN, rq.DailyNow())
    assert again.messages[0].text() == "Today's question was already posted in this channel."
    assert poster.of("reveal") == [] and poster.of("edit") == []
    [post] = await wired.scheduler._store.open_posts("discord", "c1")  # still open for answers
    assert (await wired.service.handle(ANN, rq.Act(f"qz:{post.id}:0:h"))).private
