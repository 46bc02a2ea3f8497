"""One bot process answering a race: run by test_postgres.py as `python -m tests.race.pg_worker`.

It answers for each user id on its command line, in order, after the test writes `go`, then
closes round 1 after `close`. It prints one JSON line per step.
"""

from __future__ import annotations

import asyncio
import json
import sys
from datetime import datetime, timedelta

from bot.core import Actor, QuizError
from bot.core.ports import SystemClock
from bot.core.race import RaceService
from bot.core.race import actions as rx
from bot.core.race.ports import ChannelPost
from bot.storage import SqlRepository, create_engine
from bot.storage.social import SocialStore


class ShiftedClock(SystemClock):
    def __init__(self) -> None:
        self.shift = timedelta(0)

    def now(self) -> datetime:
        return super().now() + self.shift


async def ignore(post: ChannelPost) -> None:
    print(json.dumps({"posted": len(post.messages)}), flush=True)


async def main(url: str, race_id: str, users: list[str]) -> None:
    engine = create_engine(url)
    repo = SqlRepository(engine)
    clock = ShiftedClock()
    races = RaceService(repository=repo, store=SocialStore(engine), clock=clock, publish=ignore, timers=False)
    loop = asyncio.get_running_loop()
    print(json.dumps({"ready": True}), flush=True)
    await loop.run_in_executor(None, sys.stdin.readline)  # "go"
    for index, user in enumerate(users):
        actor = Actor("discord", "guild-1", user, user, channel_id="chan-1")
        try:
            await races.act(actor, rx.make(race_id, 0, rx.CHOOSE, index % 2))
            print(json.dumps({"user": user, "status": "recorded"}), flush=True)
        except QuizError as exc:
            print(json.dumps({"user": user, "status": type(exc).__name__}), flush=True)
    print(json.dumps({"answered": True}), flush=True)
    await loop.run_in_executor(None, sys.stdin.readline)  # "close"
    clock.shift = timedelta(hours=1)
    closed = await races.close_round(race_id, 0)
    print(json.dumps({"closed": closed}), flush=True)
    await repo.close()


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2], sys.argv[3].split(",")))
