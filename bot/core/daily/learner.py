"""A learner's daily-practice settings and state: zone, caps, packs, reminder, streak."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from zoneinfo import ZoneInfo

from .queue import Caps
from .reminders import Reminder
from .streak import Streak

DEFAULT_ZONE = "UTC"
MASTERED_STABILITY_DAYS = 21.0


@dataclass(frozen=True)
class Learner:
    platform: str
    user_id: str
    zone: str = DEFAULT_ZONE
    caps: Caps = field(default_factory=Caps)
    packs: tuple[str, ...] = ()  # packs new items come from; empty: every pack they have practised
    reminder: Reminder | None = None
    streak: Streak = field(default_factory=Streak)

    @property
    def tz(self) -> ZoneInfo:
        return ZoneInfo(self.zone)


def stability_days(card_json: str) -> float:
    """Return an FSRS card's stability in days (0 for a card not yet learned or unreadable)."""
    try:
        value = json.loads(card_json).get("stability")
    except (ValueError, AttributeError):
        return 0.0
    return float(value) if isinstance(value, int | float) else 0.0


def is_mastered(card_json: str) -> bool:
    return stability_days(card_json) > MASTERED_STABILITY_DAYS
