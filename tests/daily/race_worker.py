"""One scheduler process for the race test: wait for the start signal, run due jobs, log each delivery.

Usage: python -m tests.daily.race_worker <database url> <now, ISO> <start file> <log file>
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from datetime import datetime
from pathlib import Path

from bot.core.daily.channel import DailyPost
from bot.core.replies import Message
from bot.scheduler import Scheduler
from bot.storage import DailyRepository, open_repository


class FixedClock:
    def __init__(self, now: datetime) -> None:
        self.current = now

    def now(self) -> datetime:
        return self.current


class LoggingPoster:
    """Append one JSON line per delivery to the log file (the parent counts them)."""

    def __init__(self, log: Path) -> None:
        self.log = log

    def _write(self, kind: str, where: str) -> None:
        with self.log.open("a") as out:
            out.write(json.dumps({"kind": kind, "where": where}) + "\n")

    async def post_item(self, post: DailyPost, message: Message) -> str:
        self._write("post", post.channel_id)
        return f"msg-{post.id}"

    async def edit_post(self, post: DailyPost, message: Message) -> None:
        self._write("edit", post.channel_id)

    async def post_reveal(self, post: DailyPost, message: Message) -> None:
        self._write("reveal", post.channel_id)

    async def send_dm(self, platform: str, user_id: str, message: Message) -> None:
        self._write("dm", user_id)


async def main(url: str, now: str, start: Path, log: Path) -> None:
    repo = await open_repository(url, migrate=False)
    try:
        scheduler = Scheduler(
            store=DailyRepository.beside(repo), packs=repo, clock=FixedClock(datetime.fromisoformat(now)),
            poster=LoggingPoster(log),
        )
        await repo.list_packs()  # connect and parse the packs before the start, so both start level
        deadline = time.monotonic() + 30
        while not start.exists():
            if time.monotonic() > deadline:
                raise SystemExit("no start signal")
            await asyncio.sleep(0.005)
        for _ in range(3):
            await scheduler.tick()
    finally:
        await repo.close()


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2], Path(sys.argv[3]), Path(sys.argv[4])))
