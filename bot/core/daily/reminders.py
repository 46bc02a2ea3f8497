"""Reminders: one direct message a day at the learner's time, only when something is due."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, time

from bot.core.i18n import ngettext, number

from .queue import minutes_for

MAX_FAILURES = 2  # after this many failed deliveries in a row, reminders stop


@dataclass(frozen=True)
class Reminder:
    at: time
    zone: str
    failures: int = 0
    stopped: bool = False  # delivery failed MAX_FAILURES times (DMs blocked): no more tries
    last_day: date | None = None  # the last local day handled
    next_at: datetime | None = None


def after_delivery(reminder: Reminder, *, delivered: bool) -> Reminder:
    """Return the reminder after one delivery try: failures count up, a success resets them."""
    if delivered:
        return Reminder(reminder.at, reminder.zone, 0, False, reminder.last_day, reminder.next_at)
    failures = reminder.failures + 1
    return Reminder(
        reminder.at, reminder.zone, failures, failures >= MAX_FAILURES, reminder.last_day, reminder.next_at
    )


def reminder_text(due: int) -> str:
    """Say how many reviews are due and how long they take: `7 reviews due, about 4 minutes`."""
    minutes = minutes_for(due)
    about = ngettext("about {n} minute", "about {n} minutes", minutes).format(n=number(minutes))
    return ngettext("{n} review due, {about}", "{n} reviews due, {about}", due).format(n=number(due), about=about)
