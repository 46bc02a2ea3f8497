"""What the stats command shows."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

from bot.core import i18n
from bot.core.i18n import _, ngettext, number

from .model import UserStats
from .progress import practice_day, streak_on
from .replies import Fields, Message, Text, cmd


def percent(part: int, whole: int) -> str:
    return i18n.percent(round(part / whole, 2)) if whole else "—"


def stats_message(who: str, data: UserStats, titles: dict[str, str], now: datetime) -> Message:
    if data.attempts == 0:
        return Message(
            kind="stats",
            title=_("Progress: {who}").format(who=who),
            parts=(Text(_("No attempts yet. Start with {start}.").format(start=cmd("start"))),),
        )
    zone = ZoneInfo(data.zone)
    days = streak_on(data.streak, now, zone).current if data.streak is not None else 0
    # The practice day the last answer counted for (the learner's, rolling over at 04:00), not its UTC date.
    last = i18n.day(practice_day(data.last_practice, zone)) if data.last_practice else "—"
    head = " · ".join(
        (
            ngettext("**{n}** attempt", "**{n}** attempts", data.attempts).format(n=number(data.attempts)),
            _("**{percent}** right").format(percent=percent(data.correct, data.attempts)),
            ngettext("streak **{n}** day", "streak **{n}** days", days).format(n=number(days)),
            _("last practice {day}").format(day=last),
        )
    )
    head += "\n" + _("Due for review: **{n}**").format(n=number(data.due))
    if data.due:
        head += " — " + _("{start} brings them first").format(start=cmd("start"))
    rows = []
    for t in sorted(data.topics, key=lambda t: (t.pack, t.topic or "")):
        name = titles.get(f"{t.pack}/{t.topic}", t.topic or _("(no topic)"))
        rows.append((f"{t.pack} · {name}", f"{t.correct}/{t.attempts} ({percent(t.correct, t.attempts)})"))
    return Message(kind="stats", title=_("Progress: {who}").format(who=who), parts=(Text(head), Fields(tuple(rows[:25]))))
