"""Grade a review card: ratings, and leeches (cards failed too often)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from bot.core.review import review

LEECH_FAILURES = 8  # a card failed this many times is suspended from the daily review

RatingName = Literal["again", "hard", "good"]


def rating_for(*, correct: bool, hinted: bool) -> RatingName:
    """Right is Good, right after a hint is Hard, wrong is Again."""
    if not correct:
        return "again"
    return "hard" if hinted else "good"


@dataclass(frozen=True)
class CardOutcome:
    card: str  # the FSRS card as JSON, after this answer
    due: datetime
    rating: RatingName
    failures: int
    suspended: bool
    became_leech: bool  # this answer made it a leech


def grade_card(
    card_json: str | None, *, failures: int, suspended: bool, correct: bool, hinted: bool, at: datetime
) -> CardOutcome:
    """Return the card after one graded answer, counting failures toward a leech."""
    new_card, due = review(card_json, correct=correct, hinted=hinted, at=at)
    failed = failures + (0 if correct else 1)
    leech = failed >= LEECH_FAILURES
    return CardOutcome(
        card=new_card,
        due=due,
        rating=rating_for(correct=correct, hinted=hinted),
        failures=failed,
        suspended=suspended or leech,
        became_leech=leech and not suspended,
    )
