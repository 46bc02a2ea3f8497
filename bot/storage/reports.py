"""The counts behind item analysis, class progress and the gradebook, computed in SQL.

A report over 10,000 learners and a million attempts reads a few hundred rows: every count, the
27% groups and the first attempts are made by the database (window functions, on SQLite and
PostgreSQL alike). The statistics themselves are computed in `bot.core.report`.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import Float, Integer, and_, case, cast, func, literal, select
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.sql import ColumnElement, Select

from bot.core.model import Streak
from bot.core.report.model import Aggregates, Counted, Filters, ItemCounts, LearnerRow

from . import daily_tables as d
from . import tables as t
from .base import Database

GROUP_SHARE = 0.27  # the upper and lower groups of the discrimination index


def _int(value: Any) -> Any:
    return cast(value, Integer)


class ReportStore:
    """Count what a report needs; read only."""

    def __init__(self, db: Database) -> None:
        self._db = db

    def _where(self, filters: Filters) -> ColumnElement[bool]:
        a = t.attempts.c
        conditions: list[ColumnElement[bool]] = [a.pack_id == filters.pack]
        if filters.topic is not None:
            conditions.append(a.topic == filters.topic)
        if filters.since is not None:
            conditions.append(a.at >= filters.since)
        if filters.scope is not None:
            conditions.append(a.scope == filters.scope)
        if filters.platform is not None:
            conditions.append(a.platform == filters.platform)
        return and_(*conditions)

    def _chosen(self, filters: Filters) -> Select[Any]:
        """The attempts a report reads: each learner's first at each item, or every one."""
        a = t.attempts.c
        if not filters.first_only:
            return select(a.id).where(self._where(filters))
        return select(func.min(a.id).label("id")).where(self._where(filters)).group_by(a.platform, a.user_id, a.question_id)

    async def report_counts(self, filters: Filters, *, now: datetime) -> Aggregates:
        a = t.attempts
        # Each step is computed once and kept (MATERIALIZED): SQLite would otherwise evaluate a CTE
        # again wherever it is used. The groups are found with window functions over the chosen rows,
        # never by joining learners back to their answers (a join SQLite ran as a nested loop).
        chosen = self._chosen(filters).cte("chosen").prefix_with("MATERIALIZED")
        picked = (
            select(a.c.id, a.c.platform, a.c.user_id, a.c.question_id, a.c.correct, a.c.answer, a.c.detail)
            .join(chosen, chosen.c.id == a.c.id)
            .cte("picked")
            .prefix_with("MATERIALIZED")
        )
        learner = (picked.c.platform, picked.c.user_id)
        scored = select(
            picked.c.question_id,
            picked.c.correct,
            picked.c.answer,
            picked.c.detail,
            picked.c.platform,
            picked.c.user_id,
            (
                cast(func.sum(_int(picked.c.correct)).over(partition_by=learner), Float)
                / func.count().over(partition_by=learner)
            ).label("score"),
        ).subquery("scored")
        # Each learner's place: (score, platform, user) is one per learner, so the dense rank counts learners.
        placed = select(
            scored,
            func.dense_rank().over(order_by=(scored.c.score.desc(), scored.c.platform, scored.c.user_id)).label("place"),
        ).subquery("placed")
        counted = select(placed, func.max(placed.c.place).over().label("everyone")).subquery("counted")
        size = cast(counted.c.everyone * GROUP_SHARE, Integer)  # 27%, rounded down
        group = case((size < 1, 1), else_=size)
        upper = counted.c.place <= group
        lower = counted.c.place > counted.c.everyone - group
        # One pass gives both the items' counts and the answers given: one row per item, answer and
        # verdict. Answers are grouped as given except code (every submission differs): its rows
        # carry the grade's detail instead (the failing tests' sentences), grouped as stored.
        textless = list(filters.textless)
        detail = func.coalesce(counted.c.detail, literal(""))
        answer = case((counted.c.question_id.in_(textless), detail), else_=counted.c.answer) if textless else counted.c.answer
        grouped = select(
            counted.c.question_id,
            answer.label("answer"),
            counted.c.correct,
            func.count().label("n"),
            func.sum(case((upper, 1), else_=0)).label("upper"),
            func.sum(case((lower, 1), else_=0)).label("lower"),
            func.max(counted.c.everyone).label("everyone"),
        ).group_by(counted.c.question_id, answer, counted.c.correct)
        totals: dict[str, list[int]] = {}
        answer_rows: list[Counted] = []
        everyone = 0
        async with self._db.read() as c:
            for r in await c.execute(grouped):
                n, up, low = int(r.n), int(r.upper or 0), int(r.lower or 0)
                right = bool(r.correct)
                row = totals.setdefault(r.question_id, [0, 0, 0, 0, 0, 0])
                row[0] += n
                row[2] += up
                row[4] += low
                if right:
                    row[1] += n
                    row[3] += up
                    row[5] += low
                everyone = max(everyone, int(r.everyone or 0))
                answer_rows.append(Counted(r.question_id, r.answer, n, right))
            tries = [Counted(r.question_id, str(r.tries), r.n) for r in await c.execute(self._tries(filters))]
            seconds = [Counted(r.question_id, str(r.secs), r.n) for r in await c.execute(self._seconds(filters))]
        item_rows = [ItemCounts(q, *counts) for q, counts in totals.items()]
        return Aggregates(tuple(item_rows), tuple(answer_rows), tuple(tries), tuple(seconds), int(everyone))

    def _tries(self, filters: Filters) -> Select[Any]:
        """How many learners needed how many attempts to first get each item right.

        One pass: each attempt is numbered within its learner and item (a window function), and the
        lowest number of a right one is that learner's count (no join of attempts back to themselves).
        """
        a = t.attempts.c
        numbered = (
            select(
                a.platform,
                a.user_id,
                a.question_id,
                a.correct,
                func.row_number().over(partition_by=(a.platform, a.user_id, a.question_id), order_by=a.id).label("n"),
            )
            .where(self._where(filters))
            .subquery("numbered")
        )
        per_learner = (
            select(numbered.c.question_id, func.min(numbered.c.n).label("tries"))
            .where(numbered.c.correct.is_(True))
            .group_by(numbered.c.platform, numbered.c.user_id, numbered.c.question_id)
            .subquery("per_learner")
        )
        return select(per_learner.c.question_id, per_learner.c.tries, func.count().label("n")).group_by(
            per_learner.c.question_id, per_learner.c.tries
        )

    def _seconds(self, filters: Filters) -> Select[Any]:
        """Whole seconds from an item being shown to its first answer, counted per item.

        An item is shown when the previous answer of the same quiz was given (or the quiz began):
        the time also holds reading the previous feedback, as it does for a learner.
        """
        a, s = t.attempts, t.sessions
        previous = func.lag(a.c.at).over(partition_by=a.c.session_id, order_by=a.c.id)
        timed = (
            select(a.c.id, a.c.question_id, a.c.at, func.coalesce(previous, s.c.created_at).label("shown"))
            .join(s, s.c.id == a.c.session_id)
            .where(and_(t.attempts.c.pack_id == filters.pack, a.c.session_id.is_not(None)))
            .cte("timed")
        )
        chosen = self._chosen(filters).cte("chosen_timed")
        if self._db.sqlite:
            span: Any = (func.julianday(timed.c.at) - func.julianday(timed.c.shown)) * 86400.0
        else:
            span = func.extract("epoch", timed.c.at - timed.c.shown)
        secs = cast(func.round(span), Integer).label("secs")
        inner = select(timed.c.question_id, secs).join(chosen, chosen.c.id == timed.c.id).subquery()
        return (
            select(inner.c.question_id, inner.c.secs, func.count().label("n"))
            .where(inner.c.secs >= 0)
            .group_by(inner.c.question_id, inner.c.secs)
        )

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
            .where(self._where(filters))
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
            func.sum(case((r.due <= now, 1), else_=0)).label("overdue"),
        ).where(r.pack_id == filters.pack)
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
            return [
                (row.platform, row.user_id, row.pack_id, row.question_id, row.topic, bool(row.right))
                for row in await c.execute(query)
            ]
