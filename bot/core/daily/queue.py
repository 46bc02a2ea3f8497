"""A learner's daily review: due cards most overdue first, then new items, within the day's caps."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime
from zoneinfo import ZoneInfo

from bot.core.i18n import _
from bot.core.progress import practice_day
from bot.core.review import falls_due, in_learning, is_due

from .errors import BadSetting
from .rotation import ItemKey

DEFAULT_REVIEWS = 20
DEFAULT_NEW = 5
MAX_REVIEWS = 200
MAX_NEW = 50
SECONDS_PER_CARD = 30


@dataclass(frozen=True)
class Caps:
    reviews: int = DEFAULT_REVIEWS
    new: int = DEFAULT_NEW

    def __post_init__(self) -> None:
        if not (0 <= self.reviews <= MAX_REVIEWS):
            raise BadSetting(_("The review cap must be between 0 and {most}.").format(most=MAX_REVIEWS))
        if not (0 <= self.new <= MAX_NEW):
            raise BadSetting(_("The new-item cap must be between 0 and {most}.").format(most=MAX_NEW))


@dataclass(frozen=True)
class DueCard:
    pack: str
    question: str
    due: datetime
    card: str


@dataclass(frozen=True)
class DayCount:
    """What a learner did on one review day."""

    reviews: int = 0
    new: int = 0
    channel: int = 0  # daily channel items answered

    @property
    def active(self) -> bool:
        return self.reviews + self.new + self.channel > 0


@dataclass(frozen=True)
class DailyQueue:
    day: date
    reviews: tuple[DueCard, ...]
    new: tuple[ItemKey, ...]
    next_due: datetime | None  # when the next card not yet due falls due (`falls_due`; suspended cards excluded)
    due_total: int  # every due card, before the cap

    def items(self) -> list[ItemKey]:
        """Return the session's items in order: reviews, then new."""
        return [(c.pack, c.question) for c in self.reviews] + list(self.new)

    @property
    def empty(self) -> bool:
        return not self.reviews and not self.new


def review_day(now: datetime, zone: ZoneInfo) -> date:
    """Return the learner's review day: their practice day (`bot.core.progress`), rolling over at 04:00."""
    return practice_day(now, zone)


def build_queue(
    due: Sequence[DueCard],
    new: Sequence[ItemKey],
    *,
    now: datetime,
    zone: ZoneInfo,
    caps: Caps,
    done: DayCount,
    next_due: DueCard | None,
) -> DailyQueue:
    """Return today's queue from due cards and new candidates, less what was done today."""
    ready = sorted((c for c in due if is_due(c.due, now, zone, learning=in_learning(c.card))), key=lambda c: (c.due, c.pack, c.question))
    room = max(caps.reviews - done.reviews, 0)
    new_room = max(caps.new - done.new, 0)
    seen = {(c.pack, c.question) for c in ready}
    fresh = [k for k in dict.fromkeys(new) if k not in seen][:new_room]
    later = [c for c in due if not is_due(c.due, now, zone, learning=in_learning(c.card))]
    if next_due is not None:
        later.append(next_due)
    # When the next card comes into a review: for one in Review state the start of its practice day,
    # not its due time within it; for one in a learning step its due time.
    shown = [falls_due(c.due, zone, learning=in_learning(c.card)) for c in later]
    return DailyQueue(
        day=review_day(now, zone),
        reviews=tuple(ready[:room]),
        new=tuple(fresh),
        next_due=max(min(shown), now) if shown else None,
        due_total=len(ready),
    )


def minutes_for(cards: int) -> int:
    """Estimate the minutes a review of `cards` takes (half a minute each, rounded up)."""
    return math.ceil(cards * SECONDS_PER_CARD / 60)
