"""Heartbeats: the rows of a process that stopped beating are abandoned by another, nobody else's."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

from sqlalchemy import select

from bot.storage import open_repository
from bot.storage import tables as t
from bot.storage.database import PROBE_KEY
from tests.storage.test_unfinished_work import AT, work

SINCE = AT + timedelta(seconds=30)  # three beats of 10 s before `NOW`
NOW = SINCE + timedelta(seconds=30)


async def test_only_the_rows_of_processes_silent_since_then_are_abandoned(any_url: str) -> None:
    here, other = await open_repository(any_url), await open_repository(any_url, migrate=False)
    try:
        await here.work.begin(work(1, process="here"))  # this process's own row
        await other.work.begin(work(2, process="alive"))  # a process that beat recently
        await other.work.begin(work(3, process="killed"))  # beat once, long ago
        await other.work.begin(work(4, process="never"))  # never beat (killed before its first beat)
        await other.work.begin(work(5, user="bob", process="killed"))  # another learner's
        await other.work.begin(replace(work(6, process="killed"), started_at=SINCE + timedelta(seconds=5)))
        await other.work.beat("alive", SINCE + timedelta(seconds=1))
        await other.work.beat("killed", SINCE - timedelta(seconds=1))

        assert await here.work.abandon_silent("here", NOW, SINCE) == 3
        overdue = {w.id for w in await here.work.all() if w.deadline <= NOW}
        assert overdue == {"w3", "w4", "w5"}  # not its own, not the live one's, not one begun after `since`
        assert await here.work.abandon_silent("here", NOW, SINCE) == 0  # already marked: changed once
        assert [w.id for w in await here.work.overdue("discord", "bob", NOW)] == ["w5"]
    finally:
        await here.close()
        await other.close()


async def test_a_beat_updates_its_row_and_forgets_processes_gone_for_a_day(any_url: str) -> None:
    repo = await open_repository(any_url)
    try:
        await repo.work.beat("old", AT)
        await repo.work.beat("p1", AT + timedelta(hours=1))
        await repo.work.beat("p1", AT + timedelta(days=1, hours=1))
        async with repo.engine.connect() as c:
            rows = {r.process: r.at for r in await c.execute(select(t.heartbeats).where(t.heartbeats.c.process != PROBE_KEY))}
        assert rows == {"p1": AT + timedelta(days=1, hours=1)}  # the readiness check's own row beats when /readyz asks
    finally:
        await repo.close()
