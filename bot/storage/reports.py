"""The counts behind item analysis, class progress and the gradebook, computed in SQL.

A report over 10,000 learners and a million attempts reads a few hundred rows: every count, the
27% groups and the first attempts are made by the database, in statements built by
`report_queries`. The statistics themselves are computed in `bot.core.report`.
"""

from __future__ import annotations

import asyncio
from datetime import datetime
from typing import Any

from sqlalchemy import Float, Integer, and_, case, cast, func, select
from sqlalchemy.dialects.postgresql import JSONB

from bot.core.model import Streak
from bot.core.report.model import Aggregates, Counted, Filters, ItemCounts, LearnerRow

from . import daily_tables as d
from . import report_firsts as firsts
from . import report_queries as q
from . import tables as t
from .base import Database
from .due import LIVE, SUSPENDED


def _int(value: Any) -> Any:
    return cast(value, Integer)


class ReportStore:
    """Count what a report needs; read only."""

    def __init__(self, db: Database) -> None:
        self._db = db

    async def report_counts(self, filters: Filters, *, now: datetime) -> Aggregates:
        """Every count of the item analysis: from the stored first attempts when they are the ones chosen (`report_firsts`),
        else one statement on SQLite, two at once on PostgreSQL (see `report_queries`)."""
        timed: list[Any] = []
        if firsts.kept(filters):  # the first attempts as stored: one statement on either database
            rows = await self._run(firsts.report_counts(filters, sqlite=self._db.sqlite))
        elif self._db.sqlite:
            rows = await self._run(q.report_counts(filters, sqlite=True))
        else:
            counts = self._run(q.report_counts(filters, sqlite=False))
            rows, timed = await asyncio.gather(counts, self._run(q.report_seconds(filters)))
        totals: dict[str, list[int]] = {}
        answers: list[Counted] = []
        tries: list[Counted] = []
        seconds = [Counted(r.question_id, str(r.secs), int(r.n)) for r in timed]
        everyone = 0
        for r in rows:
            if r.kind == q.LEARNERS:
                everyone = int(r.n or 0)
            elif r.kind == q.TRIES:
                tries.append(Counted(r.question_id, str(r.value), int(r.n)))
            elif r.kind == q.SECONDS:
                seconds.append(Counted(r.question_id, str(r.value), int(r.n)))
            else:
                n, up, low, right = int(r.n), int(r.up or 0), int(r.low or 0), bool(r.correct)
                row = totals.setdefault(r.question_id, [0, 0, 0, 0, 0, 0])
                row[0] += n
                row[2] += up
                row[4] += low
                if right:
                    row[1] += n
                    row[3] += up
                    row[5] += low
                answers.append(Counted(r.question_id, r.value, n, right))
        items = tuple(ItemCounts(question, *counts) for question, counts in totals.items())
        return Aggregates(items, tuple(answers), tuple(tries), tuple(seconds), everyone)

    async def _run(self, statement: Any) -> list[Any]:
        """Run one of the report's statements on a connection of its own.

        PostgreSQL gets the memory to hash its passes rather than spill them to disk, and no JIT
        compilation: it cost 0.05 to 0.1 s of CPU a statement at full size and saved none.
        """
        async with self._db.read() as c:
            if self._db.sqlite:
                return list(await c.execute(statement))
            await c.exec_driver_sql(f"SET work_mem = '{q.WORK_MEM}'")
            await c.exec_driver_sql("SET jit = off")
            try:
                return list(await c.execute(statement))
            finally:
                await c.exec_driver_sql("RESET work_mem")
                await c.exec_driver_sql("RESET jit")

    async def learner_rows(self, filters: Filters, *, now: datetime, mastered_days: float) -> list[LearnerRow]:
        a, r = t.attempts.c, t.reviews.c
        counts = (
            select(
                a.platform,
                a.user_id,
                func.count(func.distinct(a.question_id)).label("items"),
                func.count().label("attempts"),
                func.sum(_int(a.correct)).label("right"),
                func.max(a.at).label("last"),
            )
            .where(q.where(filters))
            .group_by(a.platform, a.user_id)
        )
        if self._db.sqlite:
            stability: Any = cast(func.json_extract(r.card, "$.stability"), Float)
        else:
            stability = cast(cast(r.card, JSONB)["stability"].astext, Float)
        cards = select(
            r.platform,
            r.user_id,
            func.sum(case((stability > mastered_days, 1), else_=0)).label("mastered"),
            func.sum(case((and_(r.due <= now, ~SUSPENDED), 1), else_=0)).label("overdue"),  # a leech is never due
        ).where(r.pack_id == filters.pack, LIVE)  # an item its pack no longer has: history only, as on `/quiz stats`
        if filters.platform is not None:
            cards = cards.where(r.platform == filters.platform)
        cards = cards.group_by(r.platform, r.user_id)
        async with self._db.read() as c:
            card_rows = {(row.platform, row.user_id): row for row in await c.execute(cards)}
            streaks = await self._streaks(c)
            out: list[LearnerRow] = []
            for row in await c.execute(counts):
                card = card_rows.get((row.platform, row.user_id))
                out.append(
                    LearnerRow(
                        platform=row.platform,
                        user_id=row.user_id,
                        items=row.items,
                        attempts=row.attempts,
                        right=int(row.right or 0),
                        last=row.last.replace(tzinfo=now.tzinfo) if row.last is not None and row.last.tzinfo is None else row.last,
                        mastered=int(card.mastered or 0) if card is not None else 0,
                        overdue=int(card.overdue or 0) if card is not None else 0,
                        streak=streaks.get((row.platform, row.user_id), (None, "UTC"))[0],
                        zone=streaks.get((row.platform, row.user_id), (None, "UTC"))[1],
                    )
                )
        return out

    async def _streaks(self, c: Any) -> dict[tuple[str, str], tuple[Streak, str]]:
        """Each learner's stored streak and time zone (the core says what it stands at today)."""
        dl = d.daily_learners.c
        rows = await c.execute(
            select(dl.platform, dl.user_id, dl.zone, dl.streak_current, dl.streak_longest, dl.streak_freezes,
                   dl.streak_last_day, dl.streak_frozen_days)
        )
        return {
            (row.platform, row.user_id): (
                Streak(row.streak_current, row.streak_longest, row.streak_freezes, row.streak_last_day, row.streak_frozen_days),
                row.zone,
            )
            for row in rows
        }

    async def grade_rows(
        self, pack: str | None, *, scope: str | None, since: datetime | None
    ) -> list[tuple[str, str, str, str, str | None, bool]]:
        a = t.attempts.c
        query = select(
            a.platform, a.user_id, a.pack_id, a.question_id, func.max(a.topic).label("topic"),
            func.max(_int(a.correct)).label("right"),
        )
        if pack is not None:
            query = query.where(a.pack_id == pack)
        if scope is not None:
            query = query.where(a.scope == scope)
        if since is not None:
            query = query.where(a.at >= since)
        query = query.group_by(a.platform, a.user_id, a.pack_id, a.question_id)
        async with self._db.read() as c:
            # Unpacked rather than read by name: a Row's attributes cost a third of the time of a
            # gradebook of 400,000 cells (measured with bench/report_bench.py).
            return [
                (platform, user, pack_id, question, topic, bool(right))
                for platform, user, pack_id, question, topic, right in await c.execute(query)
            ]
