"""A process takes only the daily jobs of the platforms it runs; another process sharing the database runs the rest."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import func, select

from bot.core.daily import DailyService
from bot.core.daily.errors import NotServed
from bot.core.model import Actor
from bot.scheduler import PlatformPosters, Scheduler
from bot.storage import daily_tables as d
from tests.daily.support import FakePoster, Stores, add_cards
from tests.fakes import FakeClock

DISCORD_ADMIN = Actor("discord", "g1", "admin", "Admin", is_admin=True)
SLACK_ADMIN = Actor("slack", "T1", "UADMIN", "Admin", is_admin=True)
DISCORD_ANN = Actor("discord", "g1", "ann", "Ann")
SLACK_SAM = Actor("slack", "T1", "USAM", "Sam")


def serving(stores: Stores, clock: FakeClock, platform: str, poster: FakePoster) -> Scheduler:
    """The scheduler of a process that runs only `platform`'s front end, as `quizbot run` builds it."""
    return Scheduler(
        store=stores.daily, packs=stores.repo, clock=clock,
        poster=PlatformPosters({platform: poster}), platforms=[platform],
    )


async def reminder_rows(stores: Stores, platform: str) -> int:
    async with stores.repo.engine.connect() as c:
        rows = await c.execute(select(func.count()).where(d.daily_reminders.c.platform == platform))
        return int(rows.scalar() or 0)


async def test_each_process_runs_only_its_platforms_jobs(stores: Stores) -> None:
    clock = FakeClock(datetime(2026, 6, 1, 4, 0, tzinfo=UTC))
    service = DailyService(store=stores.daily, packs=stores.repo, clock=clock)
    await service.set_schedule(DISCORD_ADMIN, channel_id="d-chan", time="09:00", timezone="Europe/Berlin", reveal_after_hours="2")
    await service.set_schedule(SLACK_ADMIN, channel_id="C-CHAN", time="09:00", timezone="Europe/Berlin")
    for actor in (DISCORD_ANN, SLACK_SAM):
        await add_cards(stores.repo, actor.platform, actor.user_id, ["q-short", "q-choice"], clock.now() - timedelta(hours=1))
        await service.remind(actor, time="08:00", timezone="Europe/Berlin")

    discord_before = await stores.daily.get_schedule("discord", "d-chan")
    ann_before = await stores.daily.get_learner("discord", "ann")
    slack_poster, discord_poster = FakePoster(), FakePoster()
    slack_only = serving(stores, clock, "slack", slack_poster)
    clock.current = datetime(2026, 6, 1, 7, 0, tzinfo=UTC)  # 09:00 in Berlin: both posts and both reminders due
    wake = await slack_only.tick()

    assert [(kind, where) for kind, where, _ in slack_poster.calls] == [("post", "C-CHAN"), ("dm", "USAM")]
    assert await stores.daily.posts("discord", "d-chan") == []  # not claimed
    discord_schedule = await stores.daily.get_schedule("discord", "d-chan")
    assert discord_schedule == discord_before  # not paused, not moved on: still due
    assert discord_schedule is not None and not discord_schedule.paused and discord_schedule.next_at == clock.now()
    ann = await stores.daily.get_learner("discord", "ann")
    assert ann == ann_before  # no failure counted, nothing claimed
    assert ann.reminder is not None and (ann.reminder.failures, ann.reminder.stopped) == (0, False)
    assert await reminder_rows(stores, "discord") == 0 and await reminder_rows(stores, "slack") == 1
    # It does not wake for the Discord jobs it leaves: its next one is Sam's reminder tomorrow.
    assert wake == datetime(2026, 6, 2, 6, 0, tzinfo=UTC)
    assert await slack_only.tick() == wake and len(slack_poster.calls) == 2

    discord_only = serving(stores, clock, "discord", discord_poster)
    await discord_only.tick()
    assert [(kind, where) for kind, where, _ in discord_poster.calls] == [("post", "d-chan"), ("dm", "ann")]
    assert discord_poster.calls[1][2].text() == "2 reviews due, about 1 minute."
    (post,) = await stores.daily.posts("discord", "d-chan")
    assert post.status == "posted"
    assert [status for _, status, _ in await stores.daily.reminder_log("discord", "ann")] == ["sent"]

    # The Discord post's tally and reveal are the Discord process's too.
    await service.answer_post(DISCORD_ANN, post.id, correct=True)
    clock.advance(seconds=10)
    await slack_only.tick()
    async with stores.repo.engine.connect() as c:
        row = (await c.execute(select(d.daily_posts).where(d.daily_posts.c.id == post.id))).one()
    assert row.tally_dirty and row.tally_edited_at is None  # the pending edit was not taken
    assert discord_poster.of("edit") == []
    await discord_only.tick()
    assert [m.footer for kind, _, m in discord_poster.calls if kind == "edit"] == ["1 person has answered · 1 right"]
    clock.current = datetime(2026, 6, 1, 9, 0, tzinfo=UTC)  # two hours after posting: reveal time
    await slack_only.tick()
    assert (await stores.daily.get_post(post.id)).revealed_at is None  # type: ignore[union-attr]
    assert slack_poster.of("reveal") == []
    await discord_only.tick()
    assert len(discord_poster.of("reveal")) == 1 and slack_poster.of("reveal") == []
    assert (await stores.daily.get_post(post.id)).revealed_at == clock.now()  # type: ignore[union-attr]


async def test_daily_now_refuses_a_platform_the_process_does_not_run(stores: Stores) -> None:
    clock = FakeClock(datetime(2026, 6, 1, 5, 0, tzinfo=UTC))
    service = DailyService(store=stores.daily, packs=stores.repo, clock=clock)
    await service.set_schedule(DISCORD_ADMIN, channel_id="d-chan", time="09:00", timezone="Europe/Berlin")
    poster = FakePoster()
    slack_only = serving(stores, clock, "slack", poster)
    with pytest.raises(NotServed) as refused:
        await slack_only.post_now(DISCORD_ADMIN, channel_id="d-chan")
    assert str(refused.value).startswith("This bot process does not run the discord front end")
    assert await stores.daily.posts("discord", "d-chan") == [] and poster.calls == []
    schedule = await stores.daily.get_schedule("discord", "d-chan")
    assert schedule is not None and not schedule.paused
