"""Learners' progress: each question's last result and review card, and the stats built on attempts."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import UTC, date, datetime
from typing import Any
from zoneinfo import ZoneInfo

import orjson
from sqlalchemy import Integer, Select, String, and_, any_, bindparam, cast, column, func, select
from sqlalchemy.dialects.postgresql import ARRAY

from bot.core.daily.learner import Learner
from bot.core.model import History, TopicStats, UserStats

from . import daily_tables as d
from . import tables as t
from .base import Database
from .daily_rows import read_learner
from .due import LIVE, SUSPENDED, is_due
from .one_row import ManyRows
from .prepared import Prepared

# Built once (every quiz start reads it): building the statement cost more than running it on SQLite.
# Many rows, one a card: SQLite hands them back as one (`one_row.py`); its packs a JSON array.
_JSON_LIST: Select[tuple[Any]] = select(column("value")).select_from(func.json_each(bindparam("packs", type_=String())))
_HISTORY_COLUMNS = (t.reviews.c.pack_id, t.reviews.c.question_id, t.reviews.c.due, t.reviews.c.card, t.reviews.c.correct, t.reviews.c.answers)
_LEARNER = and_(t.reviews.c.platform == bindparam("platform"), t.reviews.c.user_id == bindparam("user_id"))
_HISTORY = ManyRows(select(*_HISTORY_COLUMNS).where(_LEARNER, t.reviews.c.pack_id.in_(_JSON_LIST)))
# PostgreSQL: the packs as one array parameter, so the statement is compiled once and runs on asyncpg
# itself (`Database.rows`); an expanding IN is rendered again for every read.
_HISTORY_PG = Prepared(select(*_HISTORY_COLUMNS).where(_LEARNER, t.reviews.c.pack_id == any_(bindparam("packs", type_=ARRAY(String())))))
_R = t.reviews.c
_D = d.daily_learners.c
_ZONE = Prepared(select(_D.zone).where(_D.platform == bindparam("platform"), _D.user_id == bindparam("user_id")))


class ProgressStore:
    """Read what learners have done; attempts and cards are written with the session (sessions.py)."""

    def __init__(self, db: Database) -> None:
        self._db = db

    async def history(self, platform: str, user_id: str, packs: Sequence[str]) -> dict[tuple[str, str], History]:
        """Each graded question's last result and review card: one row per question, not per attempt."""
        learner = {"platform": platform, "user_id": user_id}
        if self._db.sqlite:
            rows = await _HISTORY.read(self._db.engine, {**learner, "packs": orjson.dumps(list(packs)).decode()})
        else:
            rows = [tuple(row.values()) for row in await self._db.rows(_HISTORY_PG, {**learner, "packs": list(packs)})]
        return {
            (pack, question): History(answers, bool(correct), due, card)
            for pack, question, due, card, correct, answers in rows
        }

    async def learner_zone(self, platform: str, user_id: str) -> str:
        """The learner's time zone (the default for one never stored): one column of one row, on the driver itself."""
        rows = await self._db.rows(_ZONE, {"platform": platform, "user_id": user_id})
        return str(rows[0]["zone"]) if rows else Learner(platform, user_id).zone

    async def user_stats(
        self, platform: str, user_id: str, now: datetime, *, due_by: Callable[[ZoneInfo], datetime] | None = None
    ) -> UserStats:
        """The learner's attempts, accuracy by topic, streak, and the cards due before `due_by(zone)` (the core's rule)."""
        a = t.attempts.c
        mine = and_(a.platform == platform, a.user_id == user_id)
        async with self._db.read() as c:
            total, right, latest = (
                await c.execute(select(func.count(), func.coalesce(func.sum(_as_int(a.correct)), 0), func.max(a.at)).where(mine))
            ).one()
            topics = [
                TopicStats(row.pack_id, row.topic, row.n, int(row.right or 0))
                for row in await c.execute(
                    select(a.pack_id, a.topic, func.count().label("n"), func.sum(_as_int(a.correct)).label("right"))
                    .where(mine)
                    .group_by(a.pack_id, a.topic)
                )
            ]
            learner = await read_learner(c, platform, user_id)
            before = due_by(learner.tz) if due_by is not None else None
            # The cards the daily review would bring (`due.LIVE`, not `due.SUSPENDED`).
            due_at = is_due(_R.due, _R.card, now, before) if before is not None else _R.due <= now
            due = (
                await c.execute(select(func.count()).where(and_(_R.platform == platform, _R.user_id == user_id, due_at, LIVE, ~SUSPENDED)))
            ).scalar() or 0
        if isinstance(latest, datetime) and latest.tzinfo is None:
            latest = latest.replace(tzinfo=UTC)
        elif isinstance(latest, str):
            latest = datetime.fromisoformat(latest).replace(tzinfo=UTC)
        return UserStats(
            attempts=int(total), correct=int(right), topics=tuple(topics), due=int(due), last_practice=latest,
            streak=learner.streak, zone=learner.zone,
        )


def _as_int(column: Any) -> Any:
    return cast(column, Integer)


def as_date(value: Any) -> date:
    """A day as the database returns it (a date, a datetime or ISO text: SQLite keeps text)."""
    if isinstance(value, datetime):
        return value.date()
    if isinstance(value, date):
        return value
    return date.fromisoformat(str(value)[:10])
