"""What the stats command shows."""

from __future__ import annotations

from datetime import date, datetime, timedelta

from .model import UserStats
from .replies import Fields, Message, Text, cmd


def streak(days: tuple[date, ...], today: date) -> int:
    """Count consecutive practice days ending today (or yesterday, if today has none yet)."""
    have = set(days)
    day = today if today in have else today - timedelta(days=1)
    count = 0
    while day in have:
        count += 1
        day -= timedelta(days=1)
    return count


def percent(part: int, whole: int) -> str:
    return f"{round(100 * part / whole)}%" if whole else "—"


def stats_message(who: str, data: UserStats, titles: dict[str, str], now: datetime) -> Message:
    if data.attempts == 0:
        return Message(kind="stats", title=f"Progress: {who}", parts=(Text(f"No attempts yet. Start with {cmd('start')}."),))
    days = streak(data.days, now.date())
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
