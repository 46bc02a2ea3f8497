"""What an organiser reads: the chat summary (flagged items first), the CSV table, the chart.

The summary is Markdown the adapters turn into each platform's formatting; the chart plots each
judged item's facility against its discrimination, with the flagged items labelled; the CSV holds
every figure of every item, one row each, for a spreadsheet.
"""

from __future__ import annotations

import io
import threading
from collections.abc import Callable

from babel.numbers import format_decimal

from bot.core.i18n import NC_, _, current, ngettext, number, percent, pgettext
from bot.core.pictures import WIDTH_IN, _clip, _png

from .analysis import FLAG_DEAD, FLAG_RIVAL, LOW_DISCRIMINATION, TOO_EASY, TOO_HARD
from .model import ItemStats, Report
from .sheet import SheetWriter

MAX_FLAGGED_SHOWN = 10
MAX_CODE_SHOWN = 5  # code exercises whose failing tests the summary names
MAX_STALLED_SHOWN = 10
_LOCK = threading.Lock()

# The CSV files' column names, in the reader's language (the chat: the admin's; `quizbot report`: English).
CSV_COLUMNS = (
    NC_("CSV column", "item"), NC_("CSV column", "type"), NC_("CSV column", "topic"), NC_("CSV column", "learners"),
    NC_("CSV column", "facility"), NC_("CSV column", "discrimination"), NC_("CSV column", "median_attempts_to_right"),
    NC_("CSV column", "median_seconds"), NC_("CSV column", "flags"), NC_("CSV column", "options (picked by)"),
    NC_("CSV column", "common wrong answers"),
)
PROGRESS_COLUMNS = (
    NC_("CSV column", "platform"), NC_("CSV column", "user"), NC_("CSV column", "items"), NC_("CSV column", "attempts"),
    NC_("CSV column", "accuracy"), NC_("CSV column", "mastered"), NC_("CSV column", "reviews_overdue"),
    NC_("CSV column", "last_practice"), NC_("CSV column", "streak"), NC_("CSV column", "stalled"),
)


def _columns(names: tuple[str, ...]) -> list[str]:
    return [pgettext("CSV column", name) for name in names]


def _pct(value: float | None) -> str:
    return "–" if value is None else percent(round(value, 2))


def _num(value: float | None) -> str:
    return "–" if value is None else format_decimal(value, format="+0.00;-0.00", locale=current())


def _why(item: ItemStats) -> str:
    parts = [_(flag) for flag in item.flags]
    rival = [text for text, n, key in item.options if not key and n and n == max((o[1] for o in item.options), default=0)]
    if FLAG_RIVAL in item.flags and rival:
        parts[item.flags.index(FLAG_RIVAL)] = _("most picked “{option}”, a wrong option").format(option=_clip(rival[0], 40))
    dead = [text for text, n, key in item.options if not key and n == 0]
    if FLAG_DEAD in item.flags and dead:
        parts[item.flags.index(FLAG_DEAD)] = _("nobody picks “{option}”").format(option=_clip(dead[0], 40))
    return "; ".join(parts)


def summary_text(report: Report, mention: Callable[[str, str], str] | None = None) -> str:
    """The report as Markdown for a chat message: the items to rewrite first, then the class."""
    who = mention or (lambda platform, user: user)
    head = [_("**Item analysis: {title}** (`{pack}`)").format(title=report.title, pack=report.pack)]
    scope = []
    if report.filters.topic:
        scope.append(_("topic `{topic}`").format(topic=report.filters.topic))
    if report.filters.since:
        scope.append(_("since {day}").format(day=f"{report.filters.since:%Y-%m-%d}"))
    scope.append(_("first attempts") if report.filters.first_only else _("every attempt"))
    judged = [i for i in report.items if i.judged]
    learners = ngettext("{n} learner", "{n} learners", report.learners).format(n=number(report.learners))
    judged_text = ngettext(
        "{judged} of {n} item judged (at least {least} learners each)", "{judged} of {n} items judged (at least {least} learners each)",
        len(report.items),
    ).format(judged=number(len(judged)), n=number(len(report.items)), least=report.min_learners)
    head.append(f"{learners} · {judged_text} · " + ", ".join(scope))
    lines = ["\n".join(head)]
    flagged = report.flagged()
    if flagged:
        rows = [
            f"• `{i.question}`: {_why(i)} ("
            + _("facility {facility}, discrimination {discrimination}, {n} learners").format(
                facility=_pct(i.facility), discrimination=_num(i.discrimination), n=number(i.learners)
            )
            + ")"
            for i in flagged[:MAX_FLAGGED_SHOWN]
        ]
        more = len(flagged) - MAX_FLAGGED_SHOWN
        if more > 0:
            rows.append("… " + _("and {n} more in the CSV.").format(n=number(more)))
        lines.append(_("**Items that need a look**") + "\n" + "\n".join(rows))
    elif judged:
        lines.append(_("No judged item is flagged."))
    else:
        lines.append(_("No item has {n} learners yet: nothing is judged.").format(n=report.min_learners))
    failing = _failing_tests(report)
    if failing:
        lines.append(failing)
    if report.progress:
        stalled = [p for p in report.progress if p.stalled]
        accuracy = [p.accuracy for p in report.progress if p.accuracy is not None]
        mean = sum(accuracy) / len(accuracy) if accuracy else None
        mastered = sum(p.mastered for p in report.progress)
        count = len(report.progress)
        text = [
            _("**Class progress**: {learners}, mean accuracy {accuracy}, {mastered} in all.").format(
                learners=ngettext("{n} learner", "{n} learners", count).format(n=number(count)),
                accuracy=_pct(mean),
                mastered=ngettext("{n} item mastered", "{n} items mastered", mastered).format(n=number(mastered)),
            )
        ]
        if stalled:
            names = ", ".join(who(p.platform, p.user_id) for p in stalled[:MAX_STALLED_SHOWN])
            extra = " " + _("and {n} more").format(n=len(stalled) - MAX_STALLED_SHOWN) if len(stalled) > MAX_STALLED_SHOWN else ""
            text.append(_("Stalled (reviews due, no practice for a week): {names}.").format(names=names + extra))
        lines.append("\n".join(text))
    lines.append(
        _(
            "Flags: facility over {easy} or under {hard}; discrimination under {low}; "
            "a wrong option picked more than the key; a distractor nobody picks."
        ).format(easy=percent(TOO_EASY), hard=percent(TOO_HARD), low=LOW_DISCRIMINATION)
    )
    return "\n\n".join(lines)


def _failing_tests(report: Report) -> str:
    """The code exercises' most common failing tests (their sentences, as the learners read them)."""
    code = [i for i in report.items if i.kind == "code" and i.wrong_answers]
    if not code:
        return ""
    rows = [
        f"• `{i.question}`: " + ", ".join(f"“{_clip(text, 80)}” ({n})" for text, n in i.wrong_answers)
        for i in sorted(code, key=lambda i: -sum(n for _text, n in i.wrong_answers))[:MAX_CODE_SHOWN]
    ]
    if len(code) > MAX_CODE_SHOWN:
        rows.append("… " + _("and {n} more in the CSV.").format(n=number(len(code) - MAX_CODE_SHOWN)))
    return _("**Code exercises: the tests failed most** (first attempts, learners)") + "\n" + "\n".join(rows)


def report_csv(report: Report) -> str:
    """Every item, one row each, with every figure."""
    buffer = io.StringIO()
    writer = SheetWriter(buffer)
    writer.writerow(_columns(CSV_COLUMNS))
    too_few = _("(too few learners to judge)")
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
                "; ".join(_(flag) for flag in i.flags) if i.judged else too_few,
                " | ".join(f"{'*' if key else ''}{text} ({n})" for text, n, key in i.options),
                " | ".join(f"{text} ({n})" for text, n in i.wrong_answers),
            ]
        )
    return buffer.getvalue()


def progress_csv(report: Report) -> str:
    """The class: one row per learner."""
    buffer = io.StringIO()
    writer = SheetWriter(buffer)
    writer.writerow(_columns(PROGRESS_COLUMNS))
    yes, no = pgettext("CSV cell", "yes"), pgettext("CSV cell", "no")
    for p in report.progress:
        writer.writerow(
            [
                p.platform, p.user_id, p.items, p.attempts, "" if p.accuracy is None else f"{p.accuracy:.3f}",
                p.mastered, p.overdue, "" if p.last is None else p.last.isoformat(timespec="minutes"), p.streak,
                yes if p.stalled else no,
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
        axes.set_xlabel(_("facility (share right on the first attempt)"))
        axes.set_ylabel(_("discrimination (upper 27% − lower 27%)"))
        title = _("{title}: {judged} items judged, {flagged} flagged").format(
            title=report.title, judged=len(judged), flagged=len(report.flagged())
        )
        axes.set_title(_clip(title, 80), fontsize=10, loc="left")
        axes.grid(True, linewidth=0.3, alpha=0.6)
        return _png(figure)


def chart_alt(report: Report) -> str:
    flagged = report.flagged()
    names = ", ".join(i.question for i in flagged[:5])
    return (
        _("Facility against discrimination for {n} items of {title};").format(n=sum(i.judged for i in report.items), title=report.title)
        + " "
        + (_("flagged: {names}").format(names=names) if flagged else _("none flagged"))
        + ("…" if len(flagged) > 5 else "")
    )
