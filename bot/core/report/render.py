"""What an organiser reads: the chat summary (flagged items first), the CSV table, the chart.

The summary is Markdown the adapters turn into each platform's formatting; the chart plots each
judged item's facility against its discrimination, with the flagged items labelled; the CSV holds
every figure of every item, one row each, for a spreadsheet.
"""

from __future__ import annotations

import csv
import io
import threading
from collections.abc import Callable

from bot.core.pictures import WIDTH_IN, _clip, _png

from .analysis import LOW_DISCRIMINATION, TOO_EASY, TOO_HARD
from .model import ItemStats, Report

MAX_FLAGGED_SHOWN = 10
MAX_CODE_SHOWN = 5  # code exercises whose failing tests the summary names
MAX_STALLED_SHOWN = 10
_LOCK = threading.Lock()

CSV_COLUMNS = (
    "item", "type", "topic", "learners", "facility", "discrimination", "median_attempts_to_right",
    "median_seconds", "flags", "options (picked by)", "common wrong answers",
)


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{round(100 * value)}%"


def _num(value: float | None) -> str:
    return "–" if value is None else f"{value:+.2f}"


def _why(item: ItemStats) -> str:
    parts = list(item.flags)
    rival = [text for text, n, key in item.options if not key and n and n == max((o[1] for o in item.options), default=0)]
    if "a wrong option picked more than the key" in item.flags and rival:
        parts[parts.index("a wrong option picked more than the key")] = f"most picked “{_clip(rival[0], 40)}”, a wrong option"
    dead = [text for text, n, key in item.options if not key and n == 0]
    if "a distractor nobody picks" in item.flags and dead:
        parts[parts.index("a distractor nobody picks")] = f"nobody picks “{_clip(dead[0], 40)}”"
    return "; ".join(parts)


def summary_text(report: Report, mention: Callable[[str, str], str] | None = None) -> str:
    """The report as Markdown for a chat message: the items to rewrite first, then the class."""
    who = mention or (lambda platform, user: user)
    head = [f"**Item analysis: {report.title}** (`{report.pack}`)"]
    scope = []
    if report.filters.topic:
        scope.append(f"topic `{report.filters.topic}`")
    if report.filters.since:
        scope.append(f"since {report.filters.since:%Y-%m-%d}")
    scope.append("first attempts" if report.filters.first_only else "every attempt")
    judged = [i for i in report.items if i.judged]
    learners = f"{report.learners} learner{'s' if report.learners != 1 else ''}"
    head.append(
        f"{learners} · {len(judged)} of {len(report.items)} items judged (at least {report.min_learners} learners each) · "
        + ", ".join(scope)
    )
    lines = ["\n".join(head)]
    flagged = report.flagged()
    if flagged:
        rows = [
            f"• `{i.question}`: {_why(i)} (facility {_pct(i.facility)}, discrimination {_num(i.discrimination)}, "
            f"{i.learners} learners)"
            for i in flagged[:MAX_FLAGGED_SHOWN]
        ]
        more = len(flagged) - MAX_FLAGGED_SHOWN
        if more > 0:
            rows.append(f"… and {more} more in the CSV.")
        lines.append("**Items that need a look**\n" + "\n".join(rows))
    elif judged:
        lines.append("No judged item is flagged.")
    else:
        lines.append(f"No item has {report.min_learners} learners yet: nothing is judged.")
    failing = _failing_tests(report)
    if failing:
        lines.append(failing)
    if report.progress:
        stalled = [p for p in report.progress if p.stalled]
        accuracy = [p.accuracy for p in report.progress if p.accuracy is not None]
        mean = sum(accuracy) / len(accuracy) if accuracy else None
        mastered = sum(p.mastered for p in report.progress)
        text = [
            f"**Class progress**: {len(report.progress)} learner{'s' if len(report.progress) != 1 else ''}, "
            f"mean accuracy {_pct(mean)}, {mastered} item{'s' if mastered != 1 else ''} mastered in all."
        ]
        if stalled:
            names = ", ".join(who(p.platform, p.user_id) for p in stalled[:MAX_STALLED_SHOWN])
            extra = f" and {len(stalled) - MAX_STALLED_SHOWN} more" if len(stalled) > MAX_STALLED_SHOWN else ""
            text.append(f"Stalled (reviews due, no practice for a week): {names}{extra}.")
        lines.append("\n".join(text))
    lines.append(
        f"Flags: facility over {TOO_EASY:.0%} or under {TOO_HARD:.0%}; discrimination under {LOW_DISCRIMINATION}; "
        "a wrong option picked more than the key; a distractor nobody picks."
    )
    return "\n\n".join(lines)


def _failing_tests(report: Report) -> str:
    """The code exercises' most common failing tests (their sentences, as the learners read them)."""
    code = [i for i in report.items if i.kind == "code" and i.wrong_answers]
    if not code:
        return ""
    rows = [
        f"• `{i.question}`: " + ", ".join(f"“{_clip(text, 80)}” ({n})" for text, n in i.wrong_answers)
        for i in sorted(code, key=lambda i: -sum(n for _, n in i.wrong_answers))[:MAX_CODE_SHOWN]
    ]
    if len(code) > MAX_CODE_SHOWN:
        rows.append(f"… and {len(code) - MAX_CODE_SHOWN} more in the CSV.")
    return "**Code exercises: the tests failed most** (first attempts, learners)\n" + "\n".join(rows)


def report_csv(report: Report) -> str:
    """Every item, one row each, with every figure."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for i in report.items:
        writer.writerow(
            [
                i.question,
                i.kind,
                i.topic or "",
                i.learners,
                "" if i.facility is None else f"{i.facility:.3f}",
                "" if i.discrimination is None else f"{i.discrimination:.3f}",
                "" if i.median_tries is None else f"{i.median_tries:g}",
                "" if i.median_seconds is None else f"{i.median_seconds:g}",
                "; ".join(i.flags) if i.judged else "(too few learners to judge)",
                " | ".join(f"{'*' if key else ''}{text} ({n})" for text, n, key in i.options),
                " | ".join(f"{text} ({n})" for text, n in i.wrong_answers),
            ]
        )
    return buffer.getvalue()


def progress_csv(report: Report) -> str:
    """The class: one row per learner."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(("platform", "user", "items", "attempts", "accuracy", "mastered", "reviews_overdue", "last_practice",
                     "streak", "stalled"))
    for p in report.progress:
        writer.writerow(
            [
                p.platform, p.user_id, p.items, p.attempts, "" if p.accuracy is None else f"{p.accuracy:.3f}",
                p.mastered, p.overdue, "" if p.last is None else p.last.isoformat(timespec="minutes"), p.streak,
                "yes" if p.stalled else "no",
            ]
        )
    return buffer.getvalue()


def chart_png(report: Report) -> bytes:
    """Facility against discrimination for every judged item; flagged items in red and labelled."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    with _LOCK:
        figure = Figure(figsize=(WIDTH_IN, 5.0), dpi=100, layout="constrained")
        FigureCanvasAgg(figure)
        axes = figure.add_subplot()
        axes.axvspan(0, TOO_HARD, color="#fde2e1", zorder=0)
        axes.axvspan(TOO_EASY, 1.0, color="#fde2e1", zorder=0)
        axes.axhspan(-1.0, LOW_DISCRIMINATION, color="#fff4d6", zorder=0)
        judged = [i for i in report.items if i.judged and i.facility is not None and i.discrimination is not None]
        for item in judged:
            assert item.facility is not None and item.discrimination is not None
            flagged = bool(item.flags)
            axes.scatter(item.facility, item.discrimination, s=36, zorder=3,
                         color="#d62728" if flagged else "#1f77b4", edgecolors="white", linewidths=0.6)
            if flagged:
                axes.annotate(_clip(item.question, 28), (item.facility, item.discrimination), xytext=(4, 4),
                              textcoords="offset points", fontsize=7, zorder=4)
        axes.set_xlim(0, 1)
        axes.set_ylim(-1, 1)
        axes.axhline(0, color="#888888", linewidth=0.8)
        axes.set_xlabel("facility (share right on the first attempt)")
        axes.set_ylabel("discrimination (upper 27% − lower 27%)")
        axes.set_title(_clip(f"{report.title}: {len(judged)} items judged, {len(report.flagged())} flagged", 80),
                       fontsize=10, loc="left")
        axes.grid(True, linewidth=0.3, alpha=0.6)
        return _png(figure)


def chart_alt(report: Report) -> str:
    flagged = report.flagged()
    names = ", ".join(i.question for i in flagged[:5])
    return (
        f"Facility against discrimination for {sum(i.judged for i in report.items)} items of {report.title}; "
        + (f"flagged: {names}" if flagged else "none flagged")
        + ("…" if len(flagged) > 5 else "")
    )
