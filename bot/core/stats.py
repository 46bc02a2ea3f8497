"""What the stats command shows."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

from .model import UserStats
from .progress import streak_on
from .replies import Fields, Message, Text, cmd


def percent(part: int, whole: int) -> str:
    return f"{round(100 * part / whole)}%" if whole else "—"


def stats_message(who: str, data: UserStats, titles: dict[str, str], now: datetime) -> Message:
    if data.attempts == 0:
        return Message(kind="stats", title=f"Progress: {who}", parts=(Text(f"No attempts yet. Start with {cmd('start')}."),))
    days = streak_on(data.streak, now, ZoneInfo(data.zone)).current if data.streak is not None else 0
    last = data.last_practice.date().isoformat() if data.last_practice else "—"
    head = (
        f"**{data.attempts}** {'attempt' if data.attempts == 1 else 'attempts'} · **{percent(data.correct, data.attempts)}** right · "
        f"streak **{days}** day{'s' if days != 1 else ''} · last practice {last}\n"
        f"Due for review: **{data.due}**" + (f" — {cmd('start')} brings them first" if data.due else "")
    )
    rows = []
    for t in sorted(data.topics, key=lambda t: (t.pack, t.topic or "")):
        name = titles.get(f"{t.pack}/{t.topic}", t.topic or "(no topic)")
        rows.append((f"{t.pack} · {name}", f"{t.correct}/{t.attempts} ({percent(t.correct, t.attempts)})"))
    return Message(kind="stats", title=f"Progress: {who}", parts=(Text(head), Fields(tuple(rows[:25]))))
