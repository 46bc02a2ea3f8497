"""Progress and leaderboard pictures: PNGs drawn with matplotlib's Agg backend, off the event loop.

The picture only adds to the text of `/quiz stats` and `/quiz leaderboard`; its `alt` says the same
in words, for screen readers and for when images fail. Rendering takes tens of milliseconds of CPU,
so the async functions run it in a worker thread; one lock keeps matplotlib to one figure at a time
(its font cache and text layout are not meant for concurrent use).
"""

from __future__ import annotations

import asyncio
import io
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import date, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from babel.dates import format_date, get_day_names

from bot.core.i18n import _, current, ngettext, number, percent, pgettext

from .model import Streak
from .progress import is_mastered, streak_on
from .replies import Image

MAX_BYTES = 300 * 1024
WIDTH_IN, DPI = 8.0, 100  # 800 pixels wide
MAX_TOPICS = 12
WEEKS = 16
_LOCK = threading.Lock()
# calendar colours by `_bucket`: a day still to come, no answers, then four ranges up to the busiest day
_PALETTE = ("#ffffff", "#ebedf0", "#c6e48b", "#7bc96f", "#239a3b", "#196127")


@dataclass(frozen=True)
class TopicProgress:
    label: str
    answers: int
    right: int
    mastered: int  # mastered items (bot.core.progress.is_mastered)

    @property
    def accuracy(self) -> float:
        return self.right / self.answers if self.answers else 0.0


@dataclass(frozen=True)
class ProgressData:
    topics: tuple[TopicProgress, ...]
    per_day: Mapping[date, int]  # answers per day (UTC), the last WEEKS weeks at least
    practice_days: tuple[date, ...]  # every practice day, newest first
    today: date
    streak: int = 0  # the learner's streak (bot.core.progress), as the stats card says it
    stored_streak: Streak | None = None  # as stored, before days missed are settled
    zone: str = "UTC"
    cards: tuple[tuple[str, str | None, str], ...] = ()  # (pack, topic, FSRS card) of every item answered

    def settled(self, now: datetime) -> ProgressData:
        """Return the data with the streak and the mastered counts as `bot.core.progress` defines them."""
        mastered: dict[str, int] = {}
        for pack, topic, card in self.cards:
            if is_mastered(card):
                label = f"{pack} · {topic or _('(no topic)')}"
                mastered[label] = mastered.get(label, 0) + 1
        topics = tuple(replace(t, mastered=mastered.get(t.label, 0)) for t in self.topics)
        days = streak_on(self.stored_streak, now, ZoneInfo(self.zone)).current if self.stored_streak is not None else 0
        return replace(self, topics=topics, streak=days)


def progress_alt(who: str, data: ProgressData) -> str:
    """Describe the progress picture in words."""
    days = data.streak
    bits = [ngettext("Progress of {who}: streak {n} day.", "Progress of {who}: streak {n} days.", days).format(who=who, n=number(days))]
    for t in _top_topics(data.topics):
        bits.append(
            _("{topic}: {percent} right of {n}, {mastered} mastered.").format(
                topic=t.label, percent=percent(round(t.accuracy, 2)), n=number(t.answers), mastered=number(t.mastered)
            )
        )
    active = sum(1 for d, n in data.per_day.items() if n and d > data.today - timedelta(weeks=WEEKS))
    bits.append(_("Active on {n} of the last {days} days.").format(n=number(active), days=WEEKS * 7))
    return " ".join(bits)


def _top_topics(topics: Sequence[TopicProgress]) -> list[TopicProgress]:
    return sorted(topics, key=lambda t: (-t.answers, t.label))[:MAX_TOPICS]


def _calendar(data: ProgressData) -> tuple[list[list[int]], date]:
    """Answers per day as 7 rows (Monday first) by WEEKS columns, the last column this week."""
    this_monday = data.today - timedelta(days=data.today.weekday())
    first = this_monday - timedelta(weeks=WEEKS - 1)
    grid = [[0] * WEEKS for _day in range(7)]
    for week in range(WEEKS):
        for weekday in range(7):
            day = first + timedelta(weeks=week, days=weekday)
            grid[weekday][week] = -1 if day > data.today else int(data.per_day.get(day, 0))
    return grid, first


def render_progress_png(who: str, data: ProgressData) -> bytes:
    """Draw the progress picture (blocking: call it through `progress_image`)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.colors import ListedColormap
    from matplotlib.figure import Figure
    from matplotlib.patches import Patch

    topics = _top_topics(data.topics)
    bar_height = max(1.6, 0.42 * len(topics) + 0.9)
    with _LOCK:
        figure = Figure(figsize=(WIDTH_IN, bar_height + 2.9), dpi=DPI, layout="constrained")
        FigureCanvasAgg(figure)
        grid_spec = figure.add_gridspec(2, 1, height_ratios=[bar_height, 2.3])
        bars = figure.add_subplot(grid_spec[0])
        if topics:
            labels = [_clip(t.label, 34) for t in topics][::-1]
            values = [100 * t.accuracy for t in topics][::-1]
            positions = list(range(len(topics)))
            bars.barh(positions, values, color="#4c9be8", height=0.6)
            bars.set_yticks(positions, labels, fontsize=8)
            bars.set_xlim(0, 130)
            bars.set_xticks([0, 25, 50, 75, 100])
            for y, t in zip(positions, topics[::-1], strict=True):
                bars.text(
                    100 * t.accuracy + 2, y, f"{t.right}/{t.answers} · " + _("{n} mastered").format(n=number(t.mastered)), va="center", fontsize=7
                )
        else:
            bars.text(0.5, 0.5, _("No answers yet"), ha="center", va="center", transform=bars.transAxes)
            bars.set_xticks([])
            bars.set_yticks([])
        bars.set_title(_("{who}: accuracy (%) and mastered items by topic").format(who=_clip(who, 40)), fontsize=10, loc="left")
        for side in ("top", "right"):
            bars.spines[side].set_visible(False)

        days = data.streak
        calendar = figure.add_subplot(grid_spec[1])
        grid, first = _calendar(data)
        peak = max([max(row) for row in grid] + [1])
        palette = ListedColormap(_PALETTE)
        shade = [[_bucket(v, peak) for v in row] for row in grid]
        # one square per day, white gaps between them; rows and columns centred on whole numbers
        edges_x = [w - 0.5 for w in range(WEEKS + 1)]
        edges_y = [d - 0.5 for d in range(8)]
        calendar.pcolormesh(
            edges_x, edges_y, shade, cmap=palette, vmin=-0.5, vmax=5.5, edgecolors="#ffffff", linewidth=2.5
        )
        calendar.set_aspect("equal")
        calendar.set_xlim(-0.5, WEEKS - 0.5)
        calendar.set_ylim(6.5, -0.5)  # Monday on top
        legend = [Patch(facecolor=_PALETTE[k], edgecolor="#d0d4da", label=text) for k, text in _legend(peak)]
        calendar.legend(
            handles=legend, title=_("Answers a day:"), loc="upper right", bbox_to_anchor=(1.0, -0.1), ncols=len(legend),
            fontsize=7, title_fontsize=7, frameon=False, handlelength=1.2, columnspacing=1.0,
        )
        calendar.set_yticks([0, 2, 4], [_weekday(day) for day in (0, 2, 4)], fontsize=7)
        months = [(w, first + timedelta(weeks=w)) for w in range(WEEKS)]
        ticks = [(w, format_date(d, "LLL", locale=current())) for w, d in months if w == 0 or d.day <= 7]
        calendar.set_xticks([w for w, _m in ticks], [m for _w, m in ticks], fontsize=7)
        calendar.tick_params(length=0)
        for spine in calendar.spines.values():
            spine.set_visible(False)
        calendar.set_title(
            ngettext("Last {weeks} weeks · streak {n} day", "Last {weeks} weeks · streak {n} days", days).format(
                weeks=WEEKS, n=number(days)
            ),
            fontsize=10,
            loc="left",
        )
        return _png(figure)


def _bucket(answers: int, peak: int) -> int:
    """Colour index: 0 a day still to come, 1 no answers, 2-5 a quarter of the busiest day each."""
    if answers < 0:
        return 0
    if answers == 0:
        return 1
    return 2 + min(3, (4 * answers - 1) // peak)


def _legend(peak: int) -> list[tuple[int, str]]:
    """(colour index, answers range) for each colour `_bucket` gives some day of 0..peak answers."""
    entries = [(1, "0")]
    for quarter in range(4):
        low = max(1, -(-(quarter * peak + 1) // 4))  # the fewest answers with (4a - 1) // peak >= quarter
        high = peak if quarter == 3 else (quarter + 1) * peak // 4
        if low <= high:
            entries.append((2 + quarter, str(low) if low == high else f"{low}-{high}"))
    return entries


def render_leaderboard_png(title: str, rows: Sequence[tuple[str, int]]) -> bytes:
    """Draw a bar chart of a leaderboard's top rows (name, points)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    shown = list(rows[:10])
    with _LOCK:
        figure = Figure(figsize=(WIDTH_IN, max(1.8, 0.45 * len(shown) + 1.0)), dpi=DPI, layout="constrained")
        FigureCanvasAgg(figure)
        axes = figure.add_subplot()
        if shown:
            positions = list(range(len(shown)))[::-1]
            axes.barh(positions, [p for _n, p in shown], color="#f0a830", height=0.6)
            axes.set_yticks(positions, [f"{i}. {_clip(n, 30)}" for i, (n, _p) in enumerate(shown, start=1)], fontsize=8)
            for y, (_n, p) in zip(positions, shown, strict=True):
                axes.text(p, y, f" {p}", va="center", fontsize=8)
        else:
            axes.text(0.5, 0.5, _("Nobody yet"), ha="center", va="center", transform=axes.transAxes)
            axes.set_yticks([])
        axes.set_title(_clip(title, 70), fontsize=10, loc="left")
        for side in ("top", "right"):
            axes.spines[side].set_visible(False)
        return _png(figure)


def _png(figure: Any) -> bytes:
    """Save as PNG (WIDTH_IN × DPI pixels wide); lower the resolution until it fits MAX_BYTES."""
    dpi = float(DPI)
    while True:
        buffer = io.BytesIO()
        figure.savefig(buffer, format="png", dpi=dpi, metadata={"Software": None})
        data = buffer.getvalue()
        if len(data) <= MAX_BYTES or dpi <= 40:
            return data
        dpi *= 0.75


def _weekday(index: int) -> str:
    """The short name of a weekday (0: Monday) in the current language."""
    return str(get_day_names("abbreviated", locale=current())[index])


def _clip(text: str, size: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= size else flat[: size - 1] + "…"


async def progress_image(who: str, data: ProgressData) -> Image:
    """Render the progress picture in a worker thread and return it as a reply part."""
    png = await asyncio.to_thread(render_progress_png, who, data)
    return Image(data=png, filename=pgettext("file name", "progress") + ".png", alt=progress_alt(who, data))


async def leaderboard_image(title: str, rows: Sequence[tuple[str, int]]) -> Image:
    """Render the leaderboard picture in a worker thread and return it as a reply part."""
    png = await asyncio.to_thread(render_leaderboard_png, title, rows)
    alt = title + ": " + "; ".join(
        f"{i}. {n} " + ngettext("{n} point", "{n} points", p).format(n=number(p)) for i, (n, p) in enumerate(rows[:10], start=1)
    )
    return Image(data=png, filename=pgettext("file name", "leaderboard") + ".png", alt=alt if rows else _("{title}: nobody yet.").format(title=title))
