"""Spaced repetition: when a question is due again, by FSRS."""

from __future__ import annotations

from datetime import datetime

from fsrs import Card, Rating, Scheduler

from .model import Review

__all__ = ["Review", "review"]

_SCHEDULER = Scheduler(enable_fuzzing=False)


def review(card_json: str | None, *, correct: bool, hinted: bool, at: datetime) -> tuple[str, datetime]:
    """Return the card after one graded answer, and when it is next due."""
    # An explicit card_id: without one, fsrs sleeps 1 ms to make ids unique, blocking the loop.
    card = Card.from_json(card_json) if card_json else Card(card_id=1, due=at)
    rating = Rating.Again if not correct else (Rating.Hard if hinted else Rating.Good)
    card, _ = _SCHEDULER.review_card(card, rating, at)
    return card.to_json(), card.due
