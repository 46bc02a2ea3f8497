"""Item analysis on a class whose statistics are known by hand (see conftest), on SQLite and PostgreSQL."""

from __future__ import annotations

import csv
import io

import pytest

from bot.core.report import Filters, ItemStats, Report
from bot.core.report.analysis import FLAG_DEAD, FLAG_EASY, FLAG_FLAT, FLAG_HARD, FLAG_NEGATIVE, FLAG_RIVAL
from bot.core.report.render import report_csv, summary_text
from bot.core.report.service import Reports
from bot.core.report.sheet import cell
from bot.storage import SqlRepository
from bot.storage import tables as t
from bot.storage.reports import ReportStore

from .conftest import NOW


async def _report(repository: SqlRepository, **filters: object) -> Report:
    pack = await repository.get_pack("stats-class")
    assert pack is not None
    return await Reports(ReportStore(repository.db)).report(pack, Filters(pack="stats-class", **filters), now=NOW)  # type: ignore[arg-type]


def _items(report: Report) -> dict[str, ItemStats]:
    return {i.question: i for i in report.items}


async def test_facility_and_discrimination_are_as_computed_by_hand(class_repo: SqlRepository) -> None:
    report = await _report(class_repo)
    items = _items(report)
    assert report.learners == 20
    assert (items["perfect"].facility, items["perfect"].discrimination) == (0.5, 1.0)
    assert (items["reversed"].facility, items["reversed"].discrimination) == (0.5, -1.0)
    assert (items["guessed"].facility, items["guessed"].discrimination) == (0.5, 0.0)
    assert items["dead"].facility == 0.75 and items["dead"].discrimination == 1.0
    assert items["rival"].facility == pytest.approx(0.3) and items["rival"].discrimination == 1.0
    assert items["a00"].facility == 1.0 and items["a19"].facility == pytest.approx(0.05)
    assert items["a19"].discrimination == pytest.approx(0.2)


async def test_flags_name_what_is_wrong_with_each_item(class_repo: SqlRepository) -> None:
    items = _items(await _report(class_repo))
    assert items["perfect"].flags == ()
    assert items["reversed"].flags == (FLAG_NEGATIVE,)
    assert items["guessed"].flags == (FLAG_FLAT,)
    assert items["dead"].flags == (FLAG_DEAD,)
    assert items["rival"].flags == (FLAG_RIVAL,)
    assert FLAG_EASY in items["a00"].flags and FLAG_HARD in items["a19"].flags


async def test_options_chosen_wrong_answers_tries_and_time(class_repo: SqlRepository) -> None:
    items = _items(await _report(class_repo))
    assert items["dead"].options == (("Key", 15, True), ("Wrong one", 5, False), ("Never picked", 0, False))
    assert items["rival"].options == (("Key", 6, True), ("Tempting", 13, False), ("Rare", 1, False))
    assert items["six"].wrong_answers == (("5", 6), ("7", 2), ("five", 2))
    assert items["perfect"].median_tries == 1.5  # ten right at once, ten on their second attempt
    assert items["reversed"].median_tries == 1.0
    assert items["perfect"].median_seconds == 10.0


async def test_first_attempts_only_unless_asked(class_repo: SqlRepository) -> None:
    first = _items(await _report(class_repo))["perfect"]
    every = _items(await _report(class_repo, first_only=False))["perfect"]
    assert first.learners == 20 and first.facility == 0.5
    assert every.learners == 30 and every.facility == pytest.approx(20 / 30)


async def test_too_few_learners_are_not_judged(class_repo: SqlRepository) -> None:
    pack = await class_repo.get_pack("stats-class")
    assert pack is not None
    reports = Reports(ReportStore(class_repo.db), min_learners=21)
    report = await reports.report(pack, Filters(pack="stats-class"), now=NOW)
    assert not any(i.judged for i in report.items) and report.flagged() == []
    assert "No item has 21 learners yet" in summary_text(report)


async def test_topic_and_since_filters(class_repo: SqlRepository) -> None:
    core = await _report(class_repo, topic="core")
    assert {i.question for i in core.items} == {"perfect", "reversed", "guessed", "dead", "rival", "six"}
    recent = await _report(class_repo, since=NOW.replace(day=1))  # u19 answered ten days ago
    assert recent.learners == 19
    other = await _report(class_repo, scope="another-guild")
    assert other.learners == 0 and _items(other)["perfect"].facility is None


async def test_class_progress_and_who_has_stalled(class_repo: SqlRepository) -> None:
    report = await _report(class_repo)
    people = {p.user_id: p for p in report.progress}
    assert len(people) == 20
    assert people["u00"].mastered == 1 and people["u01"].mastered == 0
    assert people["u19"].stalled and people["u19"].overdue == 1
    assert not people["u18"].stalled  # overdue, but practised two days ago
    assert people["u00"].items == 26 and people["u10"].attempts == 27


async def test_summary_puts_flagged_items_first_and_csv_has_every_item(class_repo: SqlRepository) -> None:
    text = summary_text(await _report(class_repo, topic="core"))
    assert text.index("`reversed`") < text.index("`dead`") and text.index("`rival`") < text.index("`dead`")  # wrong keys first
    assert text.index("Items that need a look") < text.index("Class progress")
    assert "`reversed`: negative discrimination" in text
    assert "most picked “Tempting”, a wrong option" in text
    assert "nobody picks “Never picked”" in text
    assert "Stalled (reviews due, no practice for a week): u19." in text
    report = await _report(class_repo)
    rows = list(csv.DictReader(io.StringIO(report_csv(report))))
    assert len(rows) == 26
    perfect = next(r for r in rows if r["item"] == "perfect")
    assert perfect["facility"] == "0.500" and perfect["discrimination"] == "1.000"


async def test_csv_keeps_a_typed_formula_as_text_and_numbers_as_numbers(class_repo: SqlRepository) -> None:
    """A wrong answer typed as `=HYPERLINK(...)` must not become a live formula in the admin's spreadsheet."""
    before = {r["item"]: r for r in csv.DictReader(io.StringIO(report_csv(await _report(class_repo))))}
    assert before["reversed"]["discrimination"] == "-1.000"  # a negative number stays a number
    typed = '=HYPERLINK("http://example.invalid/x","Click")'
    extra = [
        {"platform": "discord", "scope": "guild1", "user_id": f"x{k}", "pack_id": "stats-class", "question_id": "six",
         "topic": "core", "answer": typed, "correct": False, "points": 0, "at": NOW, "session_id": None, "key": f"x{k}-1"}
        for k in range(8)
    ]
    async with class_repo.db.write() as c:
        await c.execute(t.attempts.insert(), extra)
    rows = {r["item"]: r for r in csv.DictReader(io.StringIO(report_csv(await _report(class_repo))))}
    assert rows["six"]["common wrong answers"].startswith("'" + typed.lower() + " (8)")  # as text (answers are compared in lower case)


def test_a_cell_that_would_start_a_formula_is_written_as_text() -> None:
    assert [cell(v) for v in ("=1+2", "+A1", "@SUM(A1)", "-A1", "\t=1", "\r=1")] == [
        "'=1+2", "'+A1", "'@SUM(A1)", "'-A1", "'\t=1", "'\r=1"
    ]
    assert [cell(v) for v in ("-0.120", "+3", "plain", "", 7, None)] == ["-0.120", "+3", "plain", "", 7, None]
