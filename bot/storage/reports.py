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

from bot.core.daily.streak import Streak
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
        chosen = self._chosen(filters).cte("chosen")
        picked = (
            select(a.c.id, a.c.platform, a.c.user_id, a.c.question_id, a.c.correct, a.c.answer, a.c.session_id, a.c.at)
            .join(chosen, chosen.c.id == a.c.id)
            .cte("picked")
        )
        totals = (
            select(
                picked.c.platform,
                picked.c.user_id,
                (cast(func.sum(_int(picked.c.correct)), Float) / func.count()).label("score"),
            )
            .group_by(picked.c.platform, picked.c.user_id)
            .cte("totals")
        )
        ranked = select(
            totals.c.platform,
            totals.c.user_id,
            func.row_number().over(order_by=(totals.c.score.desc(), totals.c.platform, totals.c.user_id)).label("place"),
            func.count().over().label("everyone"),
        ).cte("ranked")
        group = func.max(literal(1), cast(ranked.c.everyone * GROUP_SHARE, Integer)) if self._db.sqlite else func.greatest(
            literal(1), cast(func.floor(ranked.c.everyone * GROUP_SHARE), Integer)
        )
        upper = ranked.c.place <= group
        lower = ranked.c.place > ranked.c.everyone - group
        right = picked.c.correct.is_(True)
        items = (
            select(
                picked.c.question_id,
                func.count().label("learners"),
                func.sum(_int(picked.c.correct)).label("right"),
                func.sum(case((upper, 1), else_=0)).label("upper"),
                func.sum(case((and_(upper, right), 1), else_=0)).label("upper_right"),
                func.sum(case((lower, 1), else_=0)).label("lower"),
                func.sum(case((and_(lower, right), 1), else_=0)).label("lower_right"),
            )
            .join(ranked, and_(ranked.c.platform == picked.c.platform, ranked.c.user_id == picked.c.user_id))
            .group_by(picked.c.question_id)
        )
        answers = select(
            picked.c.question_id, picked.c.answer, picked.c.correct, func.count().label("n")
        ).group_by(picked.c.question_id, picked.c.answer, picked.c.correct)
        async with self._db.read() as c:
            item_rows = [
                ItemCounts(
                    r.question_id, r.learners, int(r.right or 0), int(r.upper or 0), int(r.upper_right or 0),
                    int(r.lower or 0), int(r.lower_right or 0),
                )
                for r in await c.execute(items)
            ]
            answer_rows = [Counted(r.question_id, r.answer, r.n, bool(r.correct)) for r in await c.execute(answers)]
            learners = (await c.execute(select(func.count()).select_from(totals))).scalar() or 0
            tries = [Counted(r.question_id, str(r.tries), r.n) for r in await c.execute(self._tries(filters))]
            seconds = [Counted(r.question_id, str(r.secs), r.n) for r in await c.execute(self._seconds(filters))]
        return Aggregates(tuple(item_rows), tuple(answer_rows), tuple(tries), tuple(seconds), int(learners))

    def _tries(self, filters: Filters) -> Select[Any]:
        """How many learners needed how many attempts to first get each item right."""
        a = t.attempts
        first_right = (
            select(a.c.platform, a.c.user_id, a.c.question_id, func.min(a.c.id).label("id"))
            .where(and_(self._where(filters), a.c.correct.is_(True)))
            .group_by(a.c.platform, a.c.user_id, a.c.question_id)
            .cte("first_right")
        )
        per_learner = (
            select(first_right.c.question_id, func.count().label("tries"))
            .join(
                a,
                and_(
                    a.c.platform == first_right.c.platform,
                    a.c.user_id == first_right.c.user_id,
                    a.c.pack_id == filters.pack,
                    a.c.question_id == first_right.c.question_id,
                    a.c.id <= first_right.c.id,
                ),
            )
            .group_by(first_right.c.platform, first_right.c.user_id, first_right.c.question_id)
            .subquery()
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
