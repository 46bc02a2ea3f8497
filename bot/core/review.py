"""Spaced repetition: when a question is due again, by FSRS."""

from __future__ import annotations

from datetime import UTC, datetime

import orjson
from fsrs import Card, Rating, Scheduler

from .model import Review

__all__ = ["Review", "review"]

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
