"""Streaks: consecutive practice days, with freezes (defined once, in `bot.core.progress`)."""

from __future__ import annotations

from bot.core.progress import FREEZE_EVERY, MAX_FREEZES, Streak, record_day, settle

__all__ = ["FREEZE_EVERY", "MAX_FREEZES", "Streak", "record_day", "settle"]
