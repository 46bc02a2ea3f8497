"""Parse and check what an admin or learner types: times, time zones, the channel schedule."""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from datetime import date, datetime, time
from functools import cache
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

from bot.core.i18n import _
from bot.core.packs.models import DIFFICULTIES

from .errors import BadSetting, BadTime, UnknownZone

MAX_INPUT = 64  # longer text is refused before it is parsed
MAX_PACKS = 20
MAX_REVEAL_HOURS = 23.0
_TIME = re.compile(r"^([01]?\d|2[0-3]):([0-5]\d)$")


def parse_time(text: str) -> time:
    """Return the wall-clock time of `HH:MM` (24-hour; `9:05` is accepted too)."""
    cleaned = text.strip()
    match = _TIME.match(cleaned) if len(cleaned) <= 5 else None
    if match is None:
        raise BadTime(cleaned)
    return time(int(match.group(1)), int(match.group(2)))


# Names the zone database holds that are no place's time: the host's own zone (a link that differs,
# or is missing, on another host) and tzdata's "Factory" placeholder ("local time zone must be set").
_NOT_PLACES = frozenset({"localtime", "factory", "posixrules"})


@cache
def _zone_names() -> dict[str, str]:
    return {
        name.lower(): name
        for name in available_timezones()
        if name.lower() not in _NOT_PLACES and not name.startswith(("posix/", "right/"))
    }


def close_zones(name: str, limit: int = 3) -> list[str]:
    """Return up to `limit` known zone names that look like `name`."""
    names = _zone_names()
    lowered = name.strip().lower().replace(" ", "_")
    found = difflib.get_close_matches(lowered, list(names), n=limit, cutoff=0.5)
    if not found:
        # "berlin" should find "Europe/Berlin": compare with the last part of each name too.
        tails: dict[str, str] = {}
        for key in names:
            tails.setdefault(key.rsplit("/", 1)[-1], key)
        found = [tails[t] for t in difflib.get_close_matches(lowered, list(tails), n=limit, cutoff=0.6)]
    return [names[f] for f in found]


def parse_zone(name: str) -> ZoneInfo:
    """Return the IANA zone `name` (exact, or differing only in case); name close matches otherwise."""
    cleaned = name.strip()
    if not cleaned or len(cleaned) > MAX_INPUT:
        raise UnknownZone(cleaned, [])
    canonical = _zone_names().get(cleaned.lower())
    if canonical is None:
        raise UnknownZone(cleaned, close_zones(cleaned))
    try:
        return ZoneInfo(canonical)
    except (ZoneInfoNotFoundError, ValueError) as exc:
        raise UnknownZone(cleaned, close_zones(cleaned)) from exc


def parse_reveal_hours(value: float | str | None) -> float | None:
    """Return hours after posting to reveal, or None to reveal when the next question is posted."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    try:
        hours = float(value) if not isinstance(value, str) or len(value) <= 10 else float("nan")
    except ValueError:
        hours = float("nan")
    if not (0 < hours <= MAX_REVEAL_HOURS):
        raise BadSetting(
            _("reveal_after_hours must be a number of hours above 0 and at most {most}.").format(most=f"{MAX_REVEAL_HOURS:g}")
        )
    return hours


@dataclass(frozen=True)
class Schedule:
    """One channel's daily question: where, when, from which items."""

    platform: str
    scope: str
    channel_id: str
    at: time
    zone: str
    packs: tuple[str, ...]
    topic: str | None = None
    difficulty: str | None = None
    reveal_after_hours: float | None = None
    set_by: str = ""  # user id of the admin who set it: told when the schedule pauses
    paused: bool = False
    pause_reason: str | None = None
    last_day: date | None = None  # the last local day handled (posted, or too late when set)
    cycle: int = 0  # rotation round: items are not repeated within a round
    next_at: datetime | None = None  # UTC, when the scheduler should look at it next

    @property
    def tz(self) -> ZoneInfo:
        return ZoneInfo(self.zone)

    @property
    def at_text(self) -> str:
        return self.at.strftime("%H:%M")


def in_direct_message(platform: str, scope: str, channel_id: str) -> bool:
    """Say whether a channel is a direct message, where no daily question may go.

    The Actor carries no such flag: a Discord DM has no guild (scope "dm", as `Admins.require` reads
    it), and a Slack DM's conversation id starts with "D" (Slack's documented id prefixes).
    """
    return scope == "dm" or scope.startswith("dm:") or (platform == "slack" and channel_id.startswith("D"))


def check_filters(packs: tuple[str, ...], topic: str | None, difficulty: str | None) -> None:
    """Refuse filter values that are too long or not a known difficulty (packs are checked by the caller)."""
    if len(packs) > MAX_PACKS or any(len(p) > 40 for p in packs):
        raise BadSetting(_("Name at most {most} packs, each at most 40 characters.").format(most=MAX_PACKS))
    if topic is not None and len(topic) > MAX_INPUT:
        raise BadSetting(_("The topic name is too long."))
    if difficulty is not None and difficulty not in DIFFICULTIES:
        raise BadSetting(_("difficulty must be one of {names}.").format(names=", ".join(f"`{d}`" for d in DIFFICULTIES)))
