"""Daily reminders in the database: the learners due one, each day's claim, and how it went.

A reminder is taken by a row of `daily_reminders` unique per learner and local day (`Claims`),
inserted in the transaction that moves the learner's next reminder on; the learner's reminder state
(next time, failures, stopped) is on their `daily_learners` row. `ReminderRows` is part of the
scheduler's store (`bot.core.daily.ports.SchedulerStore`), put together in `daily.DailyRepository`.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

from sqlalchemy import and_, false, insert, select, update

from bot.core.daily.learner import Learner

from . import daily_tables as d
from .daily_rows import Claims, Platforms, _due, _learner


class ReminderRows(Claims):
    """Learners' reminders: which are due, claiming and finishing a day's one, and the log of claims."""

    # ------------------------------------------------------------ reminders

    async def due_reminders(
        self, now: datetime, limit: int = 100, *, platforms: Platforms = None
    ) -> list[Learner]:
        l_ = d.daily_learners.c
        due = _due(
            d.daily_learners,
            platforms,
            l_.remind_next_at.is_not(None),
            l_.remind_next_at <= now,
            l_.remind_stopped == false(),
        )
        return await self._all(due.order_by(l_.remind_next_at).limit(limit), _learner)

    async def advance_reminder(self, learner: Learner, *, next_at: datetime) -> None:
        l_ = d.daily_learners.c
        await self._change(
            update(d.daily_learners)
            .where(and_(l_.platform == learner.platform, l_.user_id == learner.user_id))
            .values(remind_next_at=next_at)
        )

    async def claim_reminder(
        self, learner: Learner, day: date, *, due: int, now: datetime, next_at: datetime
    ) -> bool:
        """Take the learner's reminder for `day` and move it on, in one transaction; False if taken."""
        l_ = d.daily_learners.c
        return await self._claim(
            insert(d.daily_reminders).values(
                platform=learner.platform,
                user_id=learner.user_id,
                day=day,
                status="claimed" if due else "skipped",
                due=due,
                claimed_at=now,
            ),
            update(d.daily_learners)
            .where(and_(l_.platform == learner.platform, l_.user_id == learner.user_id))
            .values(remind_last_day=day, remind_next_at=next_at),
        )

    async def finish_reminder(
        self, learner: Learner, day: date, *, sent: bool, failures: int, stopped: bool
    ) -> None:
        """Record how the reminder's delivery went, and the learner's failure count."""
        l_ = d.daily_learners.c
        m = d.daily_reminders.c
        async with self._write() as c:
            await c.execute(
                update(d.daily_reminders)
                .where(and_(m.platform == learner.platform, m.user_id == learner.user_id, m.day == day))
                .values(status="sent" if sent else "failed")
            )
            values: dict[str, Any] = {"remind_failures": failures, "remind_stopped": stopped}
            if stopped:
                values["remind_next_at"] = None
            await c.execute(
                update(d.daily_learners)
                .where(and_(l_.platform == learner.platform, l_.user_id == learner.user_id))
                .values(**values)
            )

    async def reminder_log(self, platform: str, user_id: str) -> list[tuple[date, str, int]]:
        """Return the learner's reminder claims as (day, status, due), oldest first."""
        m = d.daily_reminders.c
        return await self._all(
            select(m.day, m.status, m.due)
            .where(and_(m.platform == platform, m.user_id == user_id))
            .order_by(m.day),
            _logged,
        )


def _logged(row: Any) -> tuple[date, str, int]:
    return (row.day, row.status, row.due)
