"""Measure members answering the channel's daily post through QuizService (grade, count, store attempt + card).

Run: .venv/bin/python bench/daily_answers_bench.py [--members 200] (PostgreSQL on 127.0.0.1:5432 for the second figure).
Prints the wall time per answer on SQLite and on PostgreSQL, and a quiz click for comparison.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time as wall
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parents[1]))  # for tests.*

from bot.core import requests as rq
from bot.core.model import Actor
from bot.storage import open_repository
from tests.daily.support import FakePoster, postgres_url
from tests.daily.wired import wire
from tests.fakes import FakeClock, LocalRunner

ADMIN = Actor("discord", "g", "admin", "Admin", is_admin=True, channel_id="c1")


async def measure(url: str, members: int, tmp: Path) -> tuple[float, float]:
    """Return the median ms of one member's daily answer and of one quiz answer."""
    repository = await open_repository(url)
    try:
        wired = await wire(repository, FakeClock(), LocalRunner(), tmp)
        await wired.posters.add("discord", FakePoster())
        await wired.service.handle(ADMIN, rq.DailySet(time="11:00", timezone="UTC", pack="study"))
        await wired.service.handle(ADMIN, rq.DailyNow())
        [post] = await wired.scheduler._store.open_posts("discord", "c1")
        daily: list[float] = []
        quiz: list[float] = []
        for n in range(members):
            member = Actor("discord", "g", f"m{n}", f"M{n}", channel_id="c1")
            start = wall.perf_counter()
            await wired.service.handle(member, rq.Act(f"qz:{post.id}:0:c:{n % 2}"))
            daily.append(wall.perf_counter() - start)
            started = await wired.service.handle(member, rq.Start(pack="study", replace=True))
            item = next(m for m in started.messages if m.kind == "item")
            start = wall.perf_counter()
            await wired.service.handle(member, rq.Act(item.controls()[0].action))
            quiz.append(wall.perf_counter() - start)
        return statistics.median(daily) * 1000, statistics.median(quiz) * 1000
    finally:
        await repository.close()


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--members", type=int, default=200)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        sqlite = await measure(f"sqlite+aiosqlite:///{tmp}/bench.db", args.members, Path(tmp))
        print(f"SQLite      {args.members} members: daily answer median {sqlite[0]:.1f} ms, quiz answer median {sqlite[1]:.1f} ms")
        async with postgres_url() as url:
            pg = await measure(url, args.members, Path(tmp))
        print(f"PostgreSQL  {args.members} members: daily answer median {pg[0]:.1f} ms, quiz answer median {pg[1]:.1f} ms")


if __name__ == "__main__":
    asyncio.run(main())
