"""Local days and wall-clock times in IANA zones, across daylight-saving changes."""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

MIDNIGHT = time(0, 0)
REVIEW_ROLLOVER = time(4, 0)  # a learner's review day starts at 04:00 local time


def local_day(instant: datetime, zone: ZoneInfo, rollover: time = MIDNIGHT) -> date:
    """Return the local day `instant` falls in, for a day that starts at `rollover` wall-clock time."""
    local = instant.astimezone(zone)
    # Arithmetic on an aware datetime is wall-clock arithmetic: exactly what a rollover hour means.
    return (local - timedelta(hours=rollover.hour, minutes=rollover.minute)).date()


def occurrence(day: date, at: time, zone: ZoneInfo) -> datetime:
    """Return the UTC instant of wall-clock `at` on `day`.

    A time skipped by a spring-forward change happens late by the gap (02:30 becomes 03:30);
    a time repeated by a fall-back change happens at its first occurrence.
    """
    return datetime.combine(day, at.replace(tzinfo=None, fold=0), tzinfo=zone).astimezone(UTC)


def next_run(at: time, zone: ZoneInfo, now: datetime, done_day: date | None) -> tuple[date, datetime]:
    """Return the next local day whose run is not done yet, and when it runs.

    When the instant is not after `now` the run is due now: a process that was down at the set
    time runs it as soon as it is back on the same local day. Yesterday's missed run is never
    offered: the search starts from today.
    """
    day = local_day(now, zone)
    if done_day is not None and done_day >= day:
        day = done_day + timedelta(days=1)
    return day, occurrence(day, at, zone)


def due_day(at: time, zone: ZoneInfo, now: datetime, done_day: date | None) -> date | None:
    """Return the local day to run for now, or None when nothing is due."""
    day, when = next_run(at, zone, now, done_day)
    return day if when <= now else None
