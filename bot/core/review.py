"""Spaced repetition: when a question is due again, by FSRS, and what is due today.

A card in Review state (its interval days long) is due on the learner's practice day its due time
falls in, or any day after (as Anki counts it): reviewed at 21:00 with a one-day interval, it is due
from the next morning, not from 21:00. A card in a learning step (FSRS's Learning or Relearning
state, steps minutes apart) is due at its exact time: answered right at 18:00, it comes back at
18:10, not at once. `is_due` is that rule, and `due_before` the end of the practice day storage
compares due times with (`bot.storage.due` is the same rule in SQL); the review queue, every
"N due" count, the reminders and a quiz's start use them. Reviewing a card before its due time is a
normal review: `review` takes the real time of the answer.
"""

from __future__ import annotations

from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import orjson
from fsrs import Card, Rating, Scheduler, State

from .model import Review
from .progress import DAY_STARTS, day_ends, practice_day

__all__ = ["Review", "due_before", "falls_due", "in_learning", "is_due", "review"]

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


def in_learning(card_json: str | None) -> bool:
    """Say whether a stored card is in a learning step (FSRS's Learning or Relearning state).

    A card without a state (or none stored) counts as in Review, as `bot.storage.due` counts it.
    """
    if not card_json:
        return False
    try:
        state = orjson.loads(card_json).get("state")
    except (orjson.JSONDecodeError, AttributeError):
        return False
    return state in (State.Learning.value, State.Relearning.value)


def is_due(due: datetime, now: datetime, zone: ZoneInfo, *, learning: bool = False) -> bool:
    """Say whether a card due at `due` is due at `now` for a learner in `zone` (naive times are UTC).

    `learning`: the card is in a learning step (`in_learning`), due at its exact time.
    """
    due = due.replace(tzinfo=UTC) if due.tzinfo is None else due
    return due <= now or (not learning and due < due_before(now, zone))


def falls_due(due: datetime, zone: ZoneInfo, *, learning: bool = False) -> datetime:
    """Return when a card due at `due` becomes due by `is_due` (UTC): the 04:00 starting its practice
    day, or for a card in a learning step its due time itself."""
    due = due.replace(tzinfo=UTC) if due.tzinfo is None else due
    if learning:
        return due
    return datetime.combine(practice_day(due, zone), DAY_STARTS, tzinfo=zone).astimezone(UTC)
