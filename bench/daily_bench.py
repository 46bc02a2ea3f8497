"""Measure the daily scheduler: a simulated week over the fake clock, and one tick with many jobs due.

Run: .venv/bin/python bench/daily_bench.py [--jobs 200] (needs the tests' PostgreSQL on 127.0.0.1:5432).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import sys
import tempfile
import time as wall
from datetime import UTC, datetime, time, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parents[1]))  # for tests.daily.support

from bot.core.daily import DailyService
from bot.core.daily.learner import Learner
from bot.core.daily.reminders import Reminder
from bot.core.daily.schedule import Schedule
from bot.core.model import Actor
from bot.scheduler import Scheduler
from tests.daily.support import FakePoster, add_cards, open_stores, postgres_url
from tests.fakes import FakeClock

ADMIN = Actor("discord", "g", "admin", "Admin", is_admin=True)


class Stop(Exception):
    pass


async def week(url: str) -> tuple[float, int]:
    """Return the wall time of seven simulated days of one schedule, and the posts made."""
    stores = await open_stores(url)
    clock = FakeClock(datetime(2026, 3, 25, 6, 0, tzinfo=UTC))
    poster = FakePoster()
    scheduler = Scheduler(store=stores.daily, packs=stores.repo, clock=clock, poster=poster, max_sleep_s=86_400)
    service = DailyService(store=stores.daily, packs=stores.repo, clock=clock)
    await service.set_schedule(ADMIN, channel_id="c1", time="09:00", timezone="Europe/Berlin")
    until = clock.now() + timedelta(days=7)

    async def sleep(seconds: float) -> None:
        clock.advance(seconds=seconds)
        if clock.now() >= until:
            raise Stop

    scheduler._sleep = sleep
    started = wall.perf_counter()
    with contextlib.suppress(Stop):
        await scheduler.run()
    elapsed = wall.perf_counter() - started
    await stores.close()
    return elapsed, len(poster.of("post"))


async def burst(url: str, jobs: int) -> tuple[float, int, int]:
    """Return the wall time of one tick with `jobs` channels and `jobs` reminders due at once."""
    stores = await open_stores(url)
    now = datetime(2026, 6, 1, 7, 0, tzinfo=UTC)
    yesterday = now.date() - timedelta(days=1)
    for i in range(jobs):
        await stores.daily.save_schedule(
            Schedule("discord", "g", f"c{i}", time(9, 0), "Europe/Berlin", ("demo",), set_by="a", last_day=yesterday, next_at=now)
        )
        await add_cards(stores.repo, "discord", f"u{i}", ["q-short"], now - timedelta(hours=1))
        reminder = Reminder(time(9, 0), "Europe/Berlin", last_day=yesterday, next_at=now)
        await stores.daily.save_learner(Learner("discord", f"u{i}", zone="Europe/Berlin", reminder=reminder))
    poster = FakePoster()
    scheduler = Scheduler(store=stores.daily, packs=stores.repo, clock=FakeClock(now), poster=poster)
    started = wall.perf_counter()
    await scheduler.tick()
    elapsed = wall.perf_counter() - started
    await stores.close()
    return elapsed, len(poster.of("post")), len(poster.of("dm"))


async def main(jobs: int) -> None:
    folder = tempfile.mkdtemp()
    for run in range(3):
        elapsed, posts = await week(f"sqlite+aiosqlite:///{folder}/week{run}.db")
        print(f"SQLite, a simulated week: {posts} posts in {elapsed * 1000:.0f} ms")
    elapsed, posts, dms = await burst(f"sqlite+aiosqlite:///{folder}/burst.db", jobs)
    print(f"SQLite, one tick: {posts} posts and {dms} reminders in {elapsed:.2f} s")
    async with postgres_url() as url:
        elapsed, posts = await week(url)
        print(f"PostgreSQL, a simulated week: {posts} posts in {elapsed * 1000:.0f} ms")
    async with postgres_url() as url:
        elapsed, posts, dms = await burst(url, jobs)
        print(f"PostgreSQL, one tick: {posts} posts and {dms} reminders in {elapsed:.2f} s")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--jobs", type=int, default=200)
    asyncio.run(main(parser.parse_args().jobs))
