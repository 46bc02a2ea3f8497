"""Daily practice in the database: `DailyRepository` implements `bot.core.daily.ports.DailyStore`.

It is the sum of three stores, one per concern: `daily_schedules.ScheduleRows` (schedules, posts
and their claims, tallies, reveals, the next wake), `daily_reminders.ReminderRows` (learners'
reminders and their claims) and `daily_learners.LearnerRows` (learners' settings, day counts, cards
and leeches, members' answers). What the scheduler runs is behind the port
`bot.core.daily.ports.SchedulerStore`, which they implement together. A graded answer is written
by `answers.AnswerStore`, in one transaction with its attempt and card. The rows' codecs live in
`daily_rows`.
"""

from __future__ import annotations

from .base import HasDatabase
from .daily_learners import LearnerRows
from .daily_reminders import ReminderRows
from .daily_rows import Platforms
from .daily_schedules import ScheduleRows

__all__ = ["DailyRepository", "Platforms"]


class DailyRepository(ScheduleRows, ReminderRows, LearnerRows):
    """Implements `bot.core.daily.ports.DailyStore`, and the claims the scheduler takes."""

    @classmethod
    def beside(cls, repository: HasDatabase) -> DailyRepository:
        """Return a daily repository on the same engine and SQLite write queue as `repository`."""
        # One queue of writers per SQLite file: a second one would make writers wait in the driver.
        return cls(repository.db.engine, write_lock=repository.db.write_lock)
