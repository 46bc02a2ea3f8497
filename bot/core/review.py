"""Spaced repetition: when a question is due again, by FSRS, and what is due today.

A card is due on the learner's practice day its due time falls in, or any day after (as Anki
counts it): reviewed at 21:00 with a one-day interval, it is due from the next morning, not from
21:00. `is_due` is that rule, and `due_before` the instant storage compares due times with; the
review queue, every "N due" count and the reminders use them. Reviewing a card before its due
time is a normal review: `review` takes the real time of the answer.
"""

from __future__ import annotations

from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import orjson
from fsrs import Card, Rating, Scheduler

from .model import Review
from .progress import day_ends

__all__ = ["Review", "due_before", "is_due", "review"]

_SCHEDULER = Scheduler(enable_fuzzing=False)


def review(card_json: str | None, *, correct: bool, hinted: bool, at: datetime) -> tuple[str, datetime]:
    """Return the card after one graded answer, and when it is next due (in UTC).

    `at` may be in any time zone (naive: UTC); fsrs itself refuses all but `datetime.UTC`, even `ZoneInfo("UTC")`.
    """
    at = at.replace(tzinfo=UTC) if at.tzinfo is None else at.astimezone(UTC)
    # An explicit card_id: without one, fsrs sleeps 1 ms to make ids unique, blocking the loop.
    # The card's JSON through orjson: fsrs's `to_json` and `from_json` use json, 3% of a click in bench/core_bench.py.
    card = Card.from_dict(orjson.loads(card_json)) if card_json else Card(card_id=1, due=at)
    rating = Rating.Again if not correct else (Rating.Hard if hinted else Rating.Good)
    card, _ = _SCHEDULER.review_card(card, rating, at)
    return orjson.dumps(card.to_dict()).decode(), card.due


def due_before(now: datetime, zone: ZoneInfo) -> datetime:
    """Return the instant (UTC) before which a card is due at `now`: the end of the learner's practice day."""
    return day_ends(now, zone)


def is_due(due: datetime, now: datetime, zone: ZoneInfo) -> bool:
    """Say whether a card due at `due` is due at `now` for a learner in `zone` (naive times are UTC)."""
    due = due.replace(tzinfo=UTC) if due.tzinfo is None else due
    return due < due_before(now, zone)
