"""Reports for the organiser: the admin's `/quiz report`, and `quizbot report` / `quizbot grades export`."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from datetime import datetime

from bot.core.i18n import pgettext
from bot.core.packs import Pack
from bot.core.progress import MASTERED_STABILITY_DAYS
from bot.core.replies import Attachment, Image, Text

from .analysis import MIN_LEARNERS, analyse
from .grades import gradebook_csv
from .model import Filters, Report, ReportSource
from .render import chart_alt, chart_png, progress_csv, report_csv, summary_text


class Reports:
    """Build a pack's report from storage's counts; render it for a chat or a file."""

    def __init__(self, source: ReportSource, *, min_learners: int = MIN_LEARNERS, stalled_days: int = 7) -> None:
        self._source = source
        self.min_learners = min_learners
        self.stalled_days = stalled_days

    async def report(self, pack: Pack, filters: Filters, *, now: datetime) -> Report:
        code = tuple(q.id for q in pack.questions if q.type == "code")
        filters = replace(filters, textless=code)
        # The item counts and the class's rows are separate reads: made at once, on two connections.
        counts, learners = await asyncio.gather(
            self._source.report_counts(filters, now=now),
            self._source.learner_rows(filters, now=now, mastered_days=MASTERED_STABILITY_DAYS),
        )
        return analyse(
            pack, counts, filters, learners=learners, min_learners=self.min_learners, stalled_days=self.stalled_days,
            now=now,
        )

    async def gradebook(
        self, packs: list[Pack], *, pack: str | None, scope: str | None, since: datetime | None, by_topic: bool = False
    ) -> str:
        rows = await self._source.grade_rows(pack, scope=scope, since=since)
        order = [(p.pack, q.id) for p in packs for q in p.questions]
        return gradebook_csv(rows, by_topic=by_topic, order=order)


async def report_parts(report: Report, mention: object = None) -> tuple[Text, Image, Attachment, Attachment]:
    """The chat reply's parts: the summary, the chart (drawn in a worker thread) and two CSV files."""
    png = await asyncio.to_thread(chart_png, report)
    summary = summary_text(report, mention if callable(mention) else None)
    stamp = report.generated.strftime("%Y%m%d") if report.generated else pgettext("file name", "report")
    items, members = pgettext("file name", "items"), pgettext("file name", "class")  # lowercase, no spaces
    return (
        Text(summary),
        Image(png, f"{report.pack}-{items}.png", chart_alt(report)),
        Attachment(report_csv(report).encode(), f"{report.pack}-{items}-{stamp}.csv", "text/csv"),
        Attachment(progress_csv(report).encode(), f"{report.pack}-{members}-{stamp}.csv", "text/csv"),
    )
