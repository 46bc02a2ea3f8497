"""`quizbot report PACK` and `quizbot grades export`: the organiser's figures on the command line."""

from __future__ import annotations

import argparse
import asyncio
from datetime import UTC, datetime
from pathlib import Path

from rich.console import Console
from rich.table import Table

from .core.report import Filters, Report
from .core.report.render import progress_csv, report_csv, summary_text
from .core.report.service import Reports
from .settings import Settings
from .storage import open_repository
from .storage.reports import ReportStore


def add_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add `report` and `grades export` to the `quizbot` command."""
    report = sub.add_parser("report", help="item analysis and class progress of one pack (see docs/admins/reports.md)")
    report.add_argument("pack", help="the pack id")
    report.add_argument("--topic", help="only this topic's items")
    report.add_argument("--since", type=_date, help="only attempts from this day on (YYYY-MM-DD, UTC)")
    report.add_argument("--scope", help="only this server or workspace (as stored: a guild or team id)")
    report.add_argument("--all-attempts", action="store_true", help="every attempt, not only each learner's first")
    report.add_argument("--min-learners", type=int, default=None, help="learners an item needs to be judged (default 10)")
    report.add_argument("--csv", type=Path, help="write every item's figures to this CSV file")
    report.add_argument("--class-csv", type=Path, help="write the class progress (one row per learner) to this CSV file")
    grades = sub.add_parser("grades", help="the gradebook").add_subparsers(dest="grades_command", metavar="ACTION", required=True)
    export = grades.add_parser("export", help="one row per learner, one column per item (or topic)")
    export.add_argument("--pack", help="only this pack (default: every pack)")
    export.add_argument("--csv", type=Path, required=True, help="the file to write")
    export.add_argument("--by-topic", action="store_true", help="one column per topic: the share of its items right")
    export.add_argument("--since", type=_date, help="only attempts from this day on (YYYY-MM-DD, UTC)")
    export.add_argument("--scope", help="only this server or workspace")


def _date(text: str) -> datetime:
    try:
        return datetime.fromisoformat(text).replace(tzinfo=UTC)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"`{text}` is not a date: write YYYY-MM-DD") from exc


async def report_command(args: argparse.Namespace, settings: Settings, *, out: Console, err: Console) -> int:
    """Run `quizbot report` or `quizbot grades export`; return the exit status."""
    repository = await open_repository(settings.database_url, db_timeout=settings.database_timeout_seconds)
    try:
        reports = Reports(ReportStore(repository.db))
        if args.command == "grades":
            packs = [p for p in [await repository.get_pack(i.id) for i in await repository.list_packs()] if p is not None]
            if args.pack is not None and not any(p.pack == args.pack for p in packs):
                err.print(f"No pack `{args.pack}`; packs: {', '.join(p.pack for p in packs) or '(none)'}", markup=False)
                return 2
            text = await reports.gradebook(packs, pack=args.pack, scope=args.scope, since=args.since, by_topic=args.by_topic)
            await asyncio.to_thread(args.csv.write_text, text, encoding="utf-8")
            rows = text.count("\n") - 1
            err.print(f"Wrote {args.csv}: {rows} learner{'s' if rows != 1 else ''}.", markup=False)
            return 0
        pack = await repository.get_pack(args.pack)
        if pack is None:
            names = ", ".join(i.id for i in await repository.list_packs()) or "(none)"
            err.print(f"No pack `{args.pack}`; packs: {names}", markup=False)
            return 2
        if args.topic is not None and args.topic not in {q.topic for q in pack.questions}:
            topics = ", ".join(sorted({q.topic for q in pack.questions if q.topic})) or "(none)"
            err.print(f"No topic `{args.topic}` in {pack.pack}; topics: {topics}", markup=False)
            return 2
        if args.min_learners is not None:
            reports.min_learners = max(1, args.min_learners)
        filters = Filters(pack=pack.pack, topic=args.topic, since=args.since, scope=args.scope, first_only=not args.all_attempts)
        report = await reports.report(pack, filters, now=datetime.now(UTC))
        # The summary is the chat's Markdown: rendered for the terminal (bold, code), not printed raw.
        # Imported here: rich.markdown (the terminal's renderer needs it too) brings markdown-it and
        # pygments, about 100 modules and 3 MB that a bot started by `quizbot run` never uses.
        from rich.markdown import Markdown

        from .adapters.console.render import hard_breaks

        out.print(Markdown(hard_breaks(summary_text(report))))
        out.print(_table(report))
        for target, text in ((args.csv, report_csv(report)), (args.class_csv, progress_csv(report))):
            if target is not None:
                await asyncio.to_thread(target.write_text, text, encoding="utf-8")
                err.print(f"Wrote {target}.", markup=False)
        return 0
    finally:
        await repository.close()


def _table(report: Report) -> Table:
    table = Table(title=f"{report.pack}: every item", show_lines=False)
    for name in ("item", "type", "learners", "facility", "discrimination", "median tries", "flags"):
        table.add_column(name, justify="right" if name in ("learners", "facility", "discrimination", "median tries") else "left")
    for i in report.items:
        table.add_row(
            i.question,
            i.kind,
            str(i.learners),
            "–" if i.facility is None else f"{i.facility:.2f}",
            "–" if i.discrimination is None else f"{i.discrimination:+.2f}",
            "–" if i.median_tries is None else f"{i.median_tries:g}",
            ", ".join(i.flags) if i.judged else "(too few learners)",
        )
    return table
