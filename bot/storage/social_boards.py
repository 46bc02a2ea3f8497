"""Leaderboards, the leaderboard privacy switch and progress pictures' data in the database.

`BoardRows` implements `bot.core.race.BoardStore`; `social.SocialStore` (races) inherits it.
The rules (each source's points, the periods, the ranking) are the core's (`bot.core.race.board`);
these queries read the attempts that those rules weigh and rank.
"""

from __future__ import annotations

from collections import defaultdict
from datetime import UTC, datetime, timedelta

from sqlalchemy import and_, case, delete, func, insert, select, true, type_coerce

from bot.core.pictures import ProgressData, TopicProgress
from bot.core.race.board import (
    Board,
    BoardRow,
    Period,
    board_points,
    period_start,
    rank_by_accuracy,
    rank_by_points,
)

from . import social_tables as st
from . import tables as t
from .base import Base
from .daily_rows import read_learner
from .progress import as_date

P = st.leaderboard_privacy.c


class BoardRows(Base):
    """Implements `bot.core.race.BoardStore`: the leaderboard and picture queries, and the privacy switch."""

    # ------------------------------------------------------------ leaderboards

    async def set_leaderboard_visible(self, platform: str, user_id: str, visible: bool) -> None:
        """`/quiz privacy leaderboard on|off`: show or hide the learner on every board of the platform."""
        async with self._write() as c:
            await c.execute(
                delete(st.leaderboard_privacy).where(and_(P.platform == platform, P.user_id == user_id))
            )
            await c.execute(
                insert(st.leaderboard_privacy).values(
                    platform=platform, user_id=user_id, hidden=not visible, updated_at=datetime.now(UTC)
                )
            )

    async def leaderboard_visible(self, platform: str, user_id: str) -> bool:
        async with self._read() as c:
            hidden = (
                await c.execute(select(P.hidden).where(and_(P.platform == platform, P.user_id == user_id)))
            ).scalar()
        return not hidden

    async def leaderboard(
        self,
        platform: str,
        scope: str,
        *,
        now: datetime,
        period: Period = "week",
        pack: str | None = None,
        tz: str | None = None,
    ) -> Board:
        """Rank the scope's learners over the period (see `bot.core.race.board` for the rules)."""
        since = period_start(period, now, tz)
        a = t.attempts.c
        source = a.mode  # quiz, daily, race or review: the core weighs each (`board_points`)
        hidden = select(P.user_id).where(and_(P.platform == platform, P.hidden == true()))
        conditions = [a.platform == platform, a.scope == scope, a.user_id.not_in(hidden), a.at <= now]
        if since is not None:
            conditions.append(a.at >= since)
        if pack is not None:
            conditions.append(a.pack_id == pack)
        query = (
            select(
                a.user_id,
                source.label("source"),
                func.sum(a.points).label("points"),
                func.count().label("answers"),
                func.sum(case((a.correct == true(), 1), else_=0)).label("right"),
                type_coerce(func.max(case((a.points > 0, a.at))), t.UTCDateTime).label("scored_at"),
                type_coerce(func.max(a.at), t.UTCDateTime).label("last_at"),
            )
            .where(and_(*conditions))
            .group_by(a.user_id, source)
        )
        by_source: dict[str, dict[str, int]] = defaultdict(dict)
        answers: dict[str, int] = defaultdict(int)
        right: dict[str, int] = defaultdict(int)
        scored_at: dict[str, datetime] = {}
        last_at: dict[str, datetime] = {}
        async with self._read() as c:
            for row in await c.execute(query):
                user = row.user_id
                by_source[user][row.source] = int(row.points or 0)
                answers[user] += int(row.answers)
                right[user] += int(row.right or 0)
                if row.scored_at is not None:
                    scored_at[user] = max(scored_at.get(user, row.scored_at), row.scored_at)
                last_at[user] = max(last_at.get(user, row.last_at), row.last_at)
        points_rows = [
            BoardRow(u, board_points(by_source[u]), answers[u], right[u], scored_at.get(u, last_at[u]))
            for u in by_source
        ]
        accuracy_rows = [
            BoardRow(u, board_points(by_source[u]), answers[u], right[u], last_at[u]) for u in by_source
        ]
        return Board(period, since, pack, rank_by_points(points_rows), rank_by_accuracy(accuracy_rows))

    # ------------------------------------------------------------ pictures

    async def progress_data(
        self, platform: str, user_id: str, *, now: datetime, weeks: int = 16
    ) -> ProgressData:
        """What the progress picture shows: accuracy and mastered items per topic, answers per day."""
        a, r, q = t.attempts.c, t.reviews.c, t.questions.c
        mine = and_(a.platform == platform, a.user_id == user_id)
        since = datetime.combine(now.date() - timedelta(days=7 * weeks), datetime.min.time(), tzinfo=UTC)
        async with self._read() as c:
            topic_rows = (
                await c.execute(
                    select(
                        a.pack_id,
                        a.topic,
                        func.count().label("n"),
                        func.sum(case((a.correct == true(), 1), else_=0)).label("right"),
                    )
                    .where(mine)
                    .group_by(a.pack_id, a.topic)
                )
            ).all()
            card_rows = (
                await c.execute(
                    select(r.pack_id, q.topic, r.card)
                    .select_from(
                        t.reviews.join(
                            t.questions, and_(q.pack_id == r.pack_id, q.question_id == r.question_id)
                        )
                    )
                    .where(and_(r.platform == platform, r.user_id == user_id))
                )
            ).all()
            learner = await read_learner(c, platform, user_id)
            day_rows = (
                await c.execute(
                    select(func.date(a.at).label("day"), func.count().label("n"))
                    .where(and_(mine, a.at >= since))
                    .group_by(func.date(a.at))
                )
            ).all()
            all_days = (
                await c.execute(
                    select(func.date(a.at).label("day"))
                    .where(and_(mine, a.at >= now - timedelta(days=400)))
                    .distinct()
                )
            ).all()
        topics = tuple(
            TopicProgress(
                label=f"{row.pack_id} · {row.topic or '(no topic)'}",
                answers=int(row.n),
                right=int(row.right or 0),
                mastered=0,  # counted by the core (`ProgressData.settled`)
            )
            for row in sorted(topic_rows, key=lambda row: (row.pack_id, row.topic or ""))
        )
        per_day = {as_date(row.day): int(row.n) for row in day_rows}
        return ProgressData(
            topics=topics,
            per_day=per_day,
            practice_days=tuple(sorted({as_date(row.day) for row in all_days}, reverse=True)),
            today=now.date(),
            stored_streak=learner.streak,
            zone=learner.zone,
            cards=tuple((row.pack_id, row.topic, row.card) for row in card_rows),
        )
