"""Streaks: consecutive practice days, with freezes earned by long streaks and spent on missed days."""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import date, timedelta

FREEZE_EVERY = 7  # one freeze earned per 7 days of streak
MAX_FREEZES = 2


@dataclass(frozen=True)
class Streak:
    current: int = 0
    longest: int = 0
    freezes: int = 0
    last_day: date | None = None  # the last day counted (practised, or covered by a freeze)
    frozen_days: int = 0  # freezes spent so far, in total


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
