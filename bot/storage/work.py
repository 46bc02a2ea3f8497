"""Work in progress in the database: `bot.core.work.WorkLog` on the `unfinished_work` table.

Taking an abandoned row is a conditional delete (`... WHERE id = :id AND deadline <= :now`): of two
processes that try, exactly one removes it, so the learner is told once. The graded attempt removes
its row in its own transaction (see `sessions.py`); the repository then says so (`settled`), and the
request's end, which would delete the row again, costs no statement (a round trip on PostgreSQL).

Every request asks whether its learner has overdue rows, and most learners have none. On SQLite this
process is the database's only user, so it remembers which learners may have rows (all of them read
once, then its own) and asks the database only about those. On PostgreSQL other processes add rows
too: one query every `poll_s` seconds (made by whichever request comes first) lists the learners
with overdue rows, and only their requests ask about their rows. A row abandoned elsewhere is thus
seen within `poll_s` of its abandonment, at the price of one query per interval instead of one per
request.
"""

from __future__ import annotations

import asyncio
import time
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import and_, bindparam, delete, or_, select, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert

from bot.core.work import Work

from . import pg_link
from .base import Database
from .prepared import Prepared
from .tables import heartbeats as hb
from .work_tables import unfinished_work as w

POLL_S = 2.0
FORGOTTEN = timedelta(days=1)  # a heartbeat row this old is a process long gone: removed at the next beat
SETTLED_CAPACITY = 10_000  # ids settled by their answer's save whose request has not ended yet (then forgotten)
COLUMNS = ("id", "platform", "user_id", "item", "kind", "title", "process", "started_at", "deadline")
Learner = tuple[str, str]


class WorkStore:
    """Write, remove, find and take rows of work in progress."""

    def __init__(self, db: Database, *, poll_s: float = POLL_S) -> None:
        self._db = db
        self.poll_s = poll_s
        self._overdue: set[Learner] = set()  # PostgreSQL: who had overdue rows at the last poll
        self._polled: float | None = None  # when (time.monotonic)
        self._polling = asyncio.Lock()
        insert = sqlite_insert if db.sqlite else pg_insert
        statement = insert(w)
        # Another process's live row for the same item is never replaced: it grades the same
        # delivery (a retry that reached both), and replacing its row would refuse its answer.
        self._upsert = Prepared(statement.on_conflict_do_update(
            index_elements=["platform", "user_id", "item"],
            set_={name: statement.excluded[name] for name in COLUMNS if name not in ("platform", "user_id", "item")},
            where=or_(w.c.process == statement.excluded.process, w.c.deadline <= statement.excluded.started_at),
        ))
        self._learners: set[Learner] | None = None  # SQLite: who may have rows (None: not read yet)
        self._settled: set[str] = set()  # rows their answer's save deleted, until their request ends

    def settled(self, work_id: str) -> None:
        """The answer's save deleted this row (in its transaction): `end` has nothing left to remove."""
        if len(self._settled) >= SETTLED_CAPACITY:
            self._settled.clear()  # requests that never ended (cancelled): at worst a needless DELETE later
        self._settled.add(work_id)

    async def begin(self, work: Work) -> bool:
        changed = await self._alone(self._upsert, {name: getattr(work, name) for name in COLUMNS})
        if self._learners is not None:
            self._learners.add((work.platform, work.user_id))
        return changed == 1

    async def end(self, work_id: str) -> None:
        if work_id in self._settled:
            self._settled.discard(work_id)
            return
        await self._alone(_END, {"id": work_id})

    async def _alone(self, statement: Prepared, params: dict[str, Any]) -> int:
        """Run one statement in a transaction of its own; the rows it changed (on PostgreSQL on asyncpg itself)."""
        if not self._db.sqlite:  # each code answer's begin and end: one round trip each (`pg_link.py`)
            async with pg_link.direct(self._db.engine) as d:
                return await d.changed(statement, params)
        async with self._db.write() as c:
            return int((await c.execute(statement.statement, params)).rowcount)

    async def overdue(self, platform: str, user_id: str, now: datetime) -> list[Work]:
        if self._db.sqlite:
            if self._learners is None:
                async with self._db.read() as c:
                    self._learners = {(r.platform, r.user_id) for r in await c.execute(select(w.c.platform, w.c.user_id))}
            if (platform, user_id) not in self._learners:
                return []
        else:
            await self._poll(now)
            if (platform, user_id) not in self._overdue:
                return []
        rows = await self._db.rows(_MINE, {"platform": platform, "user_id": user_id})
        overdue = [_work(r) for r in rows if r["deadline"] <= now]
        if not rows and self._learners is not None:
            self._learners.discard((platform, user_id))
        if not overdue:
            self._overdue.discard((platform, user_id))
        return overdue

    async def _poll(self, now: datetime) -> None:
        """List the learners with overdue rows, once per `poll_s` (concurrent requests share one query)."""
        if self._polled is not None and time.monotonic() - self._polled < self.poll_s:
            return
        async with self._polling:
            if self._polled is not None and time.monotonic() - self._polled < self.poll_s:
                return
            async with self._db.read() as c:
                found = await c.execute(select(w.c.platform, w.c.user_id).where(w.c.deadline <= now).distinct())
                self._overdue = {(r.platform, r.user_id) for r in found}
            self._polled = time.monotonic()

    async def take(self, work_id: str, now: datetime) -> bool:
        async with self._db.write() as c:
            result = await c.execute(delete(w).where(and_(w.c.id == work_id, w.c.deadline <= now)))
        return bool(result.rowcount == 1)

    async def abandon(self, process: str, now: datetime, *, others: bool = False) -> int:
        whose = w.c.process != process if others else w.c.process == process
        async with self._db.write() as c:
            result = await c.execute(update(w).where(and_(whose, w.c.deadline > now)).values(deadline=now))
        return int(result.rowcount)

    async def beat(self, process: str, now: datetime) -> None:
        async with self._db.write() as c:
            done = await c.execute(update(hb).where(hb.c.process == process).values(at=now))
            if done.rowcount == 0:
                await c.execute(hb.insert().values(process=process, at=now))
            await c.execute(delete(hb).where(hb.c.at < now - FORGOTTEN))

    async def abandon_silent(self, process: str, now: datetime, since: datetime) -> int:
        alive = select(hb.c.process).where(hb.c.at >= since)
        silent = and_(w.c.process != process, w.c.started_at < since, w.c.deadline > now, w.c.process.not_in(alive))
        async with self._db.write() as c:
            result = await c.execute(update(w).where(silent).values(deadline=now))
        return int(result.rowcount)

    async def all(self) -> list[Work]:
        """Every row (operators' checks and tests)."""
        async with self._db.read() as c:
            return [_work(dict(r._mapping)) for r in await c.execute(select(w).order_by(w.c.started_at))]


_END = Prepared(delete(w).where(w.c.id == bindparam("id")))
_MINE = Prepared(select(w).where(and_(w.c.platform == bindparam("platform"), w.c.user_id == bindparam("user_id"))))


def _work(row: dict[str, Any]) -> Work:
    return Work(**{name: row[name] for name in COLUMNS})
