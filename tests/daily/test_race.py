"""Two scheduler processes on one PostgreSQL database race for the same posts and reminders."""

from __future__ import annotations

import asyncio
import json
import sys
from collections import Counter
from datetime import UTC, datetime, time, timedelta
from pathlib import Path

from bot.core.daily.learner import Learner
from bot.core.daily.reminders import Reminder
from bot.core.daily.schedule import Schedule
from tests.daily.support import add_cards, open_stores, postgres_url

ROOT = Path(__file__).parents[2]
NOW = datetime(2026, 6, 1, 7, 0, tzinfo=UTC)  # 09:00 in Berlin
CHANNELS = [f"c{i}" for i in range(12)]
USERS = [f"u{i}" for i in range(12)]


async def test_two_processes_post_each_channel_once_and_remind_each_learner_once(tmp_path: Path) -> None:
    async with postgres_url() as url:
        stores = await open_stores(url)
        try:
            for channel in CHANNELS:
                await stores.daily.save_schedule(
                    Schedule(
                        platform="discord", scope="g1", channel_id=channel, at=time(9, 0), zone="Europe/Berlin",
                        packs=("demo",), set_by="admin", last_day=NOW.date() - timedelta(days=1), next_at=NOW,
                    )
                )
            for user in USERS:
                await add_cards(stores.repo, "discord", user, ["q-short", "q-choice"], NOW - timedelta(hours=2))
                await stores.daily.save_learner(
                    Learner(
                        "discord", user, zone="Europe/Berlin",
                        reminder=Reminder(time(9, 0), "Europe/Berlin", last_day=NOW.date() - timedelta(days=1), next_at=NOW),
                    )
                )
        finally:
            await stores.close()

        start = tmp_path / "start"
        logs = [tmp_path / f"worker{i}.log" for i in range(2)]
        workers = [
            await asyncio.create_subprocess_exec(
                sys.executable, "-m", "tests.daily.race_worker", url, NOW.isoformat(), str(start), str(log), cwd=ROOT
            )
            for log in logs
        ]
        await asyncio.sleep(1.0)  # both connect and wait on the start file
        start.touch()
        codes = await asyncio.wait_for(asyncio.gather(*(w.wait() for w in workers)), timeout=120)
        assert codes == [0, 0]

        lines = [json.loads(line) for log in logs if log.exists() for line in log.read_text().splitlines()]
        posts = Counter(line["where"] for line in lines if line["kind"] == "post")
        dms = Counter(line["where"] for line in lines if line["kind"] == "dm")
        assert posts == Counter(CHANNELS)  # every channel exactly once
        assert dms == Counter(USERS)  # every learner exactly once

        stores = await open_stores(url, with_pack=False)
        try:
            for channel in CHANNELS:
                rows = await stores.daily.posts("discord", channel)
                assert [(p.day, p.status) for p in rows] == [(NOW.date(), "posted")]
            for user in USERS:
                assert await stores.daily.reminder_log("discord", user) == [(NOW.date(), "sent", 2)]
        finally:
            await stores.close()
