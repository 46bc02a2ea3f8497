"""Export or delete everything the database keeps about one learner (their data rights).

Every table with a user column is covered: sessions the learner owns, attempts, review cards,
daily settings, streaks, days, leech cards and reminders, daily answers, race answers and drafts,
leaderboard privacy, and the daily schedules they set (their id is blanked, the schedule stays:
it belongs to the channel), as are the races they started (who started one is kept in its JSON). Tables without a platform column are reached through their parent
(a daily post, a race). A new table with a user column must be added to `TABLES` here; a test
checks that every such table is.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

from sqlalchemy import ColumnElement, Table, and_, delete, select, true, update
from sqlalchemy.ext.asyncio import AsyncConnection

from . import daily_tables as d
from . import social_tables as s
from . import tables as t
from . import work_tables as w
from .base import Base

Where = Callable[[str, str], ColumnElement[bool]]
JSON_COLUMNS = {("sessions", "data"), ("reviews", "card"), ("daily_learners", "packs"), ("daily_answers", "selections"),
                ("race_drafts", "picks")}


@dataclass(frozen=True)
class Covered:
    """One table holding a learner's rows, and how to find them."""

    table: Table
    where: Where
    blank: str | None = None  # set this column to "" instead of deleting the row


def _owned(table: Table) -> Where:
    return lambda platform, user: and_(table.c.platform == platform, table.c.user_id == user)


def _through(table: Table, parent: Table, key: str) -> Where:
    def where(platform: str, user: str) -> ColumnElement[bool]:
        parents = select(parent.c.id).where(parent.c.platform == platform)
        return and_(table.c.user_id == user, table.c[key].in_(parents))

    return where


def _setting_of(platform: str, user: str) -> ColumnElement[bool]:
    key = t.settings.c.key
    return and_(key.startswith(f"{platform}:", autoescape=True), key.endswith(f":{user}", autoescape=True))


TABLES: tuple[Covered, ...] = (
    Covered(
        t.sessions,
        lambda platform, user: and_(
            t.sessions.c.platform == platform, t.sessions.c.owner_kind == "user", t.sessions.c.owner_id == user
        ),
    ),
    Covered(t.attempts, _owned(t.attempts)),
    Covered(t.first_attempts, _owned(t.first_attempts)),
    Covered(t.reviews, _owned(t.reviews)),
    Covered(d.daily_learners, _owned(d.daily_learners)),
    Covered(d.daily_days, _owned(d.daily_days)),
    Covered(d.daily_cards, _owned(d.daily_cards)),
    Covered(d.daily_reminders, _owned(d.daily_reminders)),
    Covered(d.daily_answers, _through(d.daily_answers, d.daily_posts, "post_id")),
    Covered(s.race_answers, _through(s.race_answers, s.races, "race_id")),
    Covered(s.race_drafts, _through(s.race_drafts, s.races, "race_id")),
    Covered(s.leaderboard_privacy, _owned(s.leaderboard_privacy)),
    Covered(w.unfinished_work, _owned(w.unfinished_work)),
    # Small values about one learner (their language): keyed `PLATFORM:<what>:USER_ID` (bot.storage.settings_store).
    Covered(t.settings, _setting_of),
    Covered(
        d.daily_schedules,
        lambda platform, user: and_(d.daily_schedules.c.platform == platform, d.daily_schedules.c.set_by == user),
        blank="set_by",
    ),
)


def _plain(table: str, column: str, value: Any) -> Any:
    if isinstance(value, datetime | date):
        return value.isoformat()
    if (table, column) in JSON_COLUMNS and isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value


class PrivacyStore(Base):
    """Implements `bot.core.privacy.PersonalData` on the same database as the repository."""

    async def export_user(self, platform: str, user_id: str) -> dict[str, list[dict[str, Any]]]:
        """Return every row about the learner, by table; tables with none are left out."""
        out: dict[str, list[dict[str, Any]]] = {}
        async with self._read() as c:
            for covered in TABLES:
                name = covered.table.name
                rows = await c.execute(select(covered.table).where(covered.where(platform, user_id)))
                found = [{k: _plain(name, k, v) for k, v in row._mapping.items()} for row in rows]
                if found:
                    out[name] = found
            started = [_race_export(row) for row in await _started_races(c, platform, user_id)]
            if started:
                out[s.races.name] = started
        return out

    async def delete_user(self, platform: str, user_id: str) -> dict[str, int]:
        """Delete every row about the learner in one transaction; return how many, by table."""
        counts: dict[str, int] = {}
        async with self._write() as c:
            await _uncount_daily_answers(c, platform, user_id)
            for covered in TABLES:
                where = covered.where(platform, user_id)
                if covered.blank is not None:
                    result = await c.execute(update(covered.table).where(where).values({covered.blank: ""}))
                else:
                    result = await c.execute(delete(covered.table).where(where))
                if result.rowcount:
                    counts[covered.table.name] = int(result.rowcount)
            started = await _started_races(c, platform, user_id)
            for row in started:  # the race stays (it is the channel's); who started it is blanked
                data = {**json.loads(row.data), "by": "", "by_name": ""}
                await c.execute(update(s.races).where(s.races.c.id == row.id).values(data=_race_json(data)))
            if started:
                counts[s.races.name] = len(started)
        return counts


async def _started_races(c: AsyncConnection, platform: str, user_id: str) -> list[Any]:
    """The races the learner started (`by` in the race's JSON, written compactly by `social._data`)."""
    r = s.races.c
    needle = '"by":' + json.dumps(user_id, ensure_ascii=False)
    rows = await c.execute(select(r.id, r.platform, r.scope, r.channel_id, r.status, r.created_at, r.data).where(
        and_(r.platform == platform, r.data.contains(needle, autoescape=True))
    ))
    return [row for row in rows if json.loads(row.data).get("by") == user_id]


def _race_export(row: Any) -> dict[str, Any]:
    data = json.loads(row.data)
    return {"id": row.id, "platform": row.platform, "scope": row.scope, "channel_id": row.channel_id, "status": row.status,
            "created_at": _plain("races", "created_at", row.created_at), "by": data.get("by"), "by_name": data.get("by_name")}


def _race_json(data: dict[str, Any]) -> str:
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False)


async def _uncount_daily_answers(c: AsyncConnection, platform: str, user_id: str) -> None:
    """Take the learner's finished daily answers out of their posts' tallies (the tally edit follows).

    A deleted answer must not stay counted: the learner may answer an open post again, and counts
    once more.
    """
    a, p = d.daily_answers.c, d.daily_posts.c
    mine = select(a.post_id, a.correct).where(and_(_through(d.daily_answers, d.daily_posts, "post_id")(platform, user_id), a.done == true()))
    for post_id, correct in (await c.execute(mine)).all():
        await c.execute(
            update(d.daily_posts)
            .where(and_(p.id == post_id, p.answered > 0))
            .values(answered=p.answered - 1, right=p.right - (1 if correct else 0), tally_dirty=True)
        )
