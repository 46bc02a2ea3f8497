"""The scheduler's store: schedules, posts and their claims, tallies, reveals, the next wake.

Every job the scheduler runs is taken by a claim that the database makes unique (`daily_rows.Claims`):
a post is a row unique per channel and local day, inserted in the transaction that moves the schedule
on; a reminder (`daily_reminders`) is a row unique per learner and local day. Whichever process
inserts it runs the job; the others get an IntegrityError and move on. Its port is
`bot.core.daily.ports.SchedulerStore`, which `daily.DailyRepository` implements with the reminders'
and the learners' rows.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import and_, bindparam, delete, false, func, insert, or_, select, true, update
from sqlalchemy.sql.elements import ColumnElement

from bot.core.daily.channel import DailyPost
from bot.core.daily.rotation import ItemKey
from bot.core.daily.schedule import Schedule

from . import daily_tables as d
from . import tables as t
from .daily_rows import Claims, Platforms, _aware, _due, _on, _post, _schedule
from .packs import shown_by_default
from .prepared import Prepared

# A control's post, read at every click on it: built once, run through `Base._rows`.
_POST = Prepared(select(d.daily_posts).where(d.daily_posts.c.id == bindparam("id")))


def _post_row(row: Any) -> DailyPost:
    return _post(row._mapping)


def _item(row: Any) -> ItemKey:
    return (row.pack_id, row.question_id)


class ScheduleRows(Claims):
    """Schedules, posts, tallies and reveals: what the scheduler claims and runs, and its next wake."""

    # ------------------------------------------------------------ schedules

    async def save_schedule(self, schedule: Schedule) -> None:
        s = d.daily_schedules.c
        values = {
            "platform": schedule.platform,
            "channel_id": schedule.channel_id,
            "scope": schedule.scope,
            "at": schedule.at_text,
            "zone": schedule.zone,
            "packs": json.dumps(list(schedule.packs)),
            "topic": schedule.topic,
            "difficulty": schedule.difficulty,
            "reveal_after_hours": schedule.reveal_after_hours,
            "set_by": schedule.set_by,
            "paused": schedule.paused,
            "pause_reason": schedule.pause_reason,
            "last_day": schedule.last_day,
            "cycle": schedule.cycle,
            "next_at": schedule.next_at,
            "updated_at": datetime.now(UTC),
        }
        async with self._write() as c:
            await c.execute(
                delete(d.daily_schedules).where(
                    and_(s.platform == schedule.platform, s.channel_id == schedule.channel_id)
                )
            )
            await c.execute(insert(d.daily_schedules).values(**values))

    async def get_schedule(self, platform: str, channel_id: str) -> Schedule | None:
        s = d.daily_schedules.c
        return await self._first(
            select(d.daily_schedules).where(and_(s.platform == platform, s.channel_id == channel_id)),
            _schedule,
        )

    async def list_schedules(self, platform: str, scope: str) -> list[Schedule]:
        s = d.daily_schedules.c
        return await self._all(
            select(d.daily_schedules)
            .where(and_(s.platform == platform, s.scope == scope))
            .order_by(s.channel_id),
            _schedule,
        )

    async def delete_schedule(self, platform: str, channel_id: str) -> bool:
        s = d.daily_schedules.c
        return bool(
            await self._change(
                delete(d.daily_schedules).where(and_(s.platform == platform, s.channel_id == channel_id))
            )
        )

    async def due_schedules(
        self, now: datetime, limit: int = 100, *, platforms: Platforms = None
    ) -> list[Schedule]:
        """Return schedules of `platforms` that are not paused and whose next look is due."""
        s = d.daily_schedules.c
        due = _due(
            d.daily_schedules, platforms, s.paused == false(), s.next_at.is_not(None), s.next_at <= now
        )
        return await self._all(due.order_by(s.next_at).limit(limit), _schedule)

    async def advance_schedule(self, schedule: Schedule, *, next_at: datetime) -> None:
        """Move the schedule's next look on, when another process claimed today's post or none is due."""
        s = d.daily_schedules.c
        await self._change(
            update(d.daily_schedules)
            .where(and_(s.platform == schedule.platform, s.channel_id == schedule.channel_id))
            .values(next_at=next_at)
        )

    async def pause_schedule(self, schedule: Schedule, reason: str) -> bool:
        """Pause the schedule; return True when this call paused it (so the admin is told once)."""
        s = d.daily_schedules.c
        changed = await self._change(
            update(d.daily_schedules)
            .where(
                and_(
                    s.platform == schedule.platform, s.channel_id == schedule.channel_id, s.paused == false()
                )
            )
            .values(paused=True, pause_reason=reason[:500], updated_at=datetime.now(UTC))
        )
        return changed == 1

    async def candidates(self, schedule: Schedule) -> list[ItemKey]:
        """Return the items a schedule draws from: its packs (or every enabled pack), topic, difficulty."""
        q = t.questions.c
        conditions: list[ColumnElement[bool]] = []
        async with self._read() as c:
            if schedule.packs:
                packs = list(schedule.packs)
            else:
                ps = t.pack_settings.c
                switches = {
                    r.pack_id: r.enabled
                    for r in await c.execute(select(ps.pack_id, ps.enabled).where(ps.scope == schedule.scope))
                }
                packs = [
                    r.id
                    for r in await c.execute(select(t.packs.c.id, t.packs.c.owner))
                    if switches.get(r.id, shown_by_default(r.owner, schedule.scope))
                ]
            conditions.append(q.pack_id.in_(packs))
            if schedule.topic:
                conditions.append(q.topic == schedule.topic)
            if schedule.difficulty:
                conditions.append(q.difficulty == schedule.difficulty)
            rows = await c.execute(select(q.pack_id, q.question_id).where(and_(*conditions)))
            return [(r.pack_id, r.question_id) for r in rows]

    async def posted_in_cycle(self, schedule: Schedule, cycle: int) -> list[ItemKey]:
        p = d.daily_posts.c
        return await self._all(
            select(p.pack_id, p.question_id).where(
                and_(p.platform == schedule.platform, p.channel_id == schedule.channel_id, p.cycle == cycle)
            ),
            _item,
        )

    # ------------------------------------------------------------ posts

    async def claim_post(self, schedule: Schedule, post: DailyPost, *, cycle: int, next_at: datetime) -> bool:
        """Record the day's post and move the schedule on, in one transaction; False if taken already.

        A post of the same day that failed (the bot could not post in the channel) does not hold the
        day: it is removed in the same transaction, so `daily now` can post once the admin mends it.
        """
        s = d.daily_schedules.c
        p = d.daily_posts.c
        failed = and_(p.platform == post.platform, p.channel_id == post.channel_id, p.day == post.day, p.status == "failed")
        return await self._claim(
            insert(d.daily_posts).values(
                id=post.id,
                platform=post.platform,
                scope=post.scope,
                channel_id=post.channel_id,
                day=post.day,
                pack_id=post.pack,
                question_id=post.question,
                cycle=cycle,
                status="claimed",
                message_ref=None,
                posted_at=post.posted_at,
                reveal_at=post.reveal_at,
                revealed_at=None,
                answered=0,
                right=0,
                tally_dirty=False,
                tally_edited_at=None,
            ),
            update(d.daily_schedules)
            .where(
                and_(
                    s.platform == schedule.platform,
                    s.channel_id == schedule.channel_id,
                    or_(s.last_day.is_(None), s.last_day < post.day),  # days only move forward
                )
            )
            .values(last_day=post.day, cycle=cycle, next_at=next_at),
            clear=delete(d.daily_posts).where(failed),
        )

    async def mark_post(self, post_id: str, *, status: str, message_ref: str | None = None) -> None:
        p = d.daily_posts.c
        await self._change(
            update(d.daily_posts).where(p.id == post_id).values(status=status, message_ref=message_ref)
        )

    async def get_post(self, post_id: str) -> DailyPost | None:
        rows = await self._rows(_POST, {"id": post_id})
        return _post(rows[0]) if rows else None

    async def post_at(
        self, platform: str, message_ref: str, channel_id: str | None = None
    ) -> DailyPost | None:
        """Return the post whose platform message is `message_ref` (in `channel_id`, when given), or None."""
        p = d.daily_posts.c
        where = [p.platform == platform, p.message_ref == message_ref, p.status == "posted"]
        if channel_id is not None:
            where.append(p.channel_id == channel_id)
        return await self._first(
            select(d.daily_posts).where(and_(*where)).order_by(p.day.desc()).limit(1), _post_row
        )

    async def posts(self, platform: str, channel_id: str) -> list[DailyPost]:
        """Return the channel's posts, oldest first."""
        p = d.daily_posts.c
        return await self._all(
            select(d.daily_posts)
            .where(and_(p.platform == platform, p.channel_id == channel_id))
            .order_by(p.day),
            _post_row,
        )

    async def open_posts(self, platform: str, channel_id: str) -> list[DailyPost]:
        """Return the channel's posted, unrevealed posts (revealed before a new one goes up)."""
        p = d.daily_posts.c
        return await self._all(
            select(d.daily_posts).where(
                and_(
                    p.platform == platform,
                    p.channel_id == channel_id,
                    p.status == "posted",
                    p.revealed_at.is_(None),
                )
            ),
            _post_row,
        )

    async def due_reveals(
        self, now: datetime, limit: int = 100, *, platforms: Platforms = None
    ) -> list[DailyPost]:
        p = d.daily_posts.c
        due = _due(
            d.daily_posts, platforms, p.status == "posted", p.revealed_at.is_(None), p.reveal_at <= now
        )
        return await self._all(due.order_by(p.reveal_at).limit(limit), _post_row)

    async def claim_reveal(self, post_id: str, now: datetime) -> bool:
        """Mark the post revealed; True for the one caller that did it."""
        p = d.daily_posts.c
        changed = await self._change(
            update(d.daily_posts)
            .where(and_(p.id == post_id, p.revealed_at.is_(None)))
            .values(revealed_at=now)
        )
        return changed == 1

    async def due_tallies(
        self, now: datetime, every: timedelta, limit: int = 100, *, platforms: Platforms = None
    ) -> list[DailyPost]:
        p = d.daily_posts.c
        due = _due(
            d.daily_posts,
            platforms,
            p.tally_dirty == true(),
            p.status == "posted",
            p.revealed_at.is_(None),
            or_(p.tally_edited_at.is_(None), p.tally_edited_at <= now - every),
        )
        return await self._all(due.limit(limit), _post_row)

    async def claim_tally(self, post_id: str, now: datetime, every: timedelta) -> DailyPost | None:
        """Take the post's pending tally edit; return the post with its current counts, or None."""
        p = d.daily_posts.c
        async with self._write() as c:
            result = await c.execute(
                update(d.daily_posts)
                .where(
                    and_(
                        p.id == post_id,
                        p.tally_dirty == true(),
                        or_(p.tally_edited_at.is_(None), p.tally_edited_at <= now - every),
                    )
                )
                .values(tally_dirty=False, tally_edited_at=now)
            )
            if result.rowcount != 1:
                return None
            row = (await c.execute(select(d.daily_posts).where(p.id == post_id))).one()
        return _post_row(row)

    # ------------------------------------------------------------ the scheduler's next wake

    async def next_wake(self, every: timedelta, *, platforms: Platforms = None) -> datetime | None:
        """Return the earliest instant any job of `platforms` may become due (None: nothing scheduled)."""
        s = d.daily_schedules.c
        p = d.daily_posts.c
        l_ = d.daily_learners.c
        async with self._read() as c:
            times = [
                (
                    await c.execute(
                        select(func.min(s.next_at)).where(
                            and_(_on(s.platform, platforms), s.paused == false())
                        )
                    )
                ).scalar(),
                (
                    await c.execute(
                        select(func.min(p.reveal_at)).where(
                            and_(_on(p.platform, platforms), p.status == "posted", p.revealed_at.is_(None))
                        )
                    )
                ).scalar(),
                (
                    await c.execute(
                        select(func.min(l_.remind_next_at)).where(
                            and_(_on(l_.platform, platforms), l_.remind_stopped == false())
                        )
                    )
                ).scalar(),
            ]
            edited = (
                await c.execute(
                    select(func.min(func.coalesce(p.tally_edited_at, p.posted_at))).where(
                        and_(_on(p.platform, platforms), p.tally_dirty == true(), p.revealed_at.is_(None))
                    )
                )
            ).scalar()
        found = [_aware(v) for v in times if v is not None]
        if edited is not None:
            found.append(_aware(edited) + every)
        return min(found) if found else None
