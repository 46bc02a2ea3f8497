"""What the words of a learner's progress mean, defined once: a practice day, the streak, mastered.

Every card, picture, leaderboard and summary uses these: `/quiz stats`, the daily card, the
progress picture and the reminders say the same streak and the same number mastered.

- A practice day is the learner's local day, rolling over at 04:00 in their time zone (UTC until
  they set one). Any graded answer (quiz, daily post, race, review) counts the day. What falls due
  before the next rollover is due today (`bot.core.review.is_due`).
- The streak counts consecutive practice days; long streaks earn freezes that cover missed days
  (`bot.core.daily.streak`). It is stored with the learner and moved by each answer's unit of work.
- An item is mastered when its FSRS card's stability is above 21 days.
"""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from .model import Streak

MASTERED_STABILITY_DAYS = 21.0
DAY_STARTS = time(4, 0)  # a learner's practice (and review) day starts at 04:00 local time

__all__ = [
    "FREEZE_EVERY", "MASTERED_STABILITY_DAYS", "MAX_FREEZES", "Streak", "day_ends", "is_mastered", "practice_day",
    "record_day", "settle", "stability_days", "streak_on",
]


def practice_day(at: datetime, zone: ZoneInfo) -> date:
    """Return the practice day an answer at `at` counts for (rolls over at 04:00 local time)."""
    local = at.astimezone(zone)
    # Arithmetic on an aware datetime is wall-clock arithmetic: exactly what a rollover hour means.
    return (local - timedelta(hours=DAY_STARTS.hour, minutes=DAY_STARTS.minute)).date()


def day_ends(now: datetime, zone: ZoneInfo) -> datetime:
    """Return when the practice day holding `now` ends (in UTC): the next 04:00 in `zone`.

    A 04:00 that a clock change skips is read with the offset before the change, as `zoneinfo`
    does: the day still ends once, at the change.
    """
    end = datetime.combine(practice_day(now, zone) + timedelta(days=1), DAY_STARTS, tzinfo=zone)
    return end.astimezone(UTC)


FREEZE_EVERY = 7  # one freeze earned per 7 days of streak
MAX_FREEZES = 2


def settle(streak: Streak, today: date) -> Streak:
    """Spend freezes on days missed before `today`, or break the streak when there are too few.

    Today itself is never missed yet: the learner still has the rest of it.
    """
    if streak.last_day is None or streak.current == 0:
        return streak
    missed = (today - streak.last_day).days - 1
    if missed <= 0:
        return streak
    if missed <= streak.freezes:
        return replace(
            streak,
            freezes=streak.freezes - missed,
            last_day=today - timedelta(days=1),
            frozen_days=streak.frozen_days + missed,
        )
    return replace(streak, current=0)


def record_day(streak: Streak, day: date) -> Streak:
    """Return the streak after practice on `day` (several answers on one day count once)."""
    settled = settle(streak, day)
    if settled.last_day is not None and settled.last_day >= day:
        return settled
    continues = settled.current > 0 and settled.last_day == day - timedelta(days=1)
    current = settled.current + 1 if continues else 1
    freezes = settled.freezes
    if current % FREEZE_EVERY == 0:
        freezes = min(freezes + 1, MAX_FREEZES)
    return replace(settled, current=current, longest=max(settled.longest, current), freezes=freezes, last_day=day)


def streak_on(streak: Streak, now: datetime, zone: ZoneInfo) -> Streak:
    """Return the stored streak as it stands at `now`: freezes spent, or broken, for days missed."""
    return settle(streak, practice_day(now, zone))


def stability_days(card_json: str) -> float:
    """Return an FSRS card's stability in days (0 for a card not yet learned or unreadable)."""
    try:
        value = json.loads(card_json).get("stability")
    except (ValueError, AttributeError):
        return 0.0
    return float(value) if isinstance(value, int | float) else 0.0


def is_mastered(card_json: str) -> bool:
    """Say whether the item is mastered: its card's stability is above 21 days."""
    return stability_days(card_json) > MASTERED_STABILITY_DAYS
