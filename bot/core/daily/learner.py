"""A learner's daily-practice settings and state: zone, caps, packs, reminder, streak."""

from __future__ import annotations

from dataclasses import dataclass, field
from zoneinfo import ZoneInfo

from bot.core.model import Streak

from .queue import Caps
from .reminders import Reminder

DEFAULT_ZONE = "UTC"


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
