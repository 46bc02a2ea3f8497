"""`/quiz report [pack] [topic] [since]` on Slack: the summary and chart privately, the CSV files in the admin's DM."""

from __future__ import annotations

import csv
import io
from typing import Any

import pytest

from bot.core import QuizService
from bot.core.report.service import Reports
from bot.storage.reports import ReportStore
from tests.slack.conftest import ADMIN, CHANNEL, LEARNER, STRANGER, Slack, block_text, dm

RIGHT = "```python\ntotal = sum(range(1, 11))\nprint(total)\n```"
WRONG = "```python\ntotal = 54\nprint(55)\n```"  # prints 55, but `total` is not 55


@pytest.fixture(autouse=True)
def reports(quiz_service: QuizService, repository: Any) -> None:
    quiz_service.reports.reports = Reports(ReportStore(repository.db))  # as bot/app.py wires it


async def practise(slack: Slack, user: str, code: str) -> None:
    """Answer the demo pack's code exercise with a code block in the DM."""
    await slack.command("start demo difficulty:hard", user=user)
    await slack.message(code, user=user)


def last_answer(slack: Slack) -> dict[str, Any]:
    return slack.fake.responses[-1]


async def test_an_admin_gets_the_summary_and_chart_privately_and_the_csv_files_in_the_dm(slack: Slack) -> None:
    await practise(slack, LEARNER, WRONG)
    await practise(slack, STRANGER, RIGHT)
    shared = len(slack.fake.shared)
    await slack.command("report demo", user=ADMIN, channel=CHANNEL)
    answer = last_answer(slack)
    assert answer["response_type"] == "ephemeral"  # only the admin sees it, in the channel asked in
    text = block_text(answer["blocks"])
    assert "Item analysis: Demo pack" in text and "2 learners" in text
    assert "• `q-code`: “`total` must be 55.” (1)" in text  # the learner's failing test, as they read it
    images = [b for b in answer["blocks"] if b["type"] == "image"]
    assert len(images) == 1 and images[0]["alt_text"].startswith("Facility against discrimination")
    uploads = slack.fake.shared[shared:]
    assert [f["name"] for f in uploads if f["channel"] is None] == ["demo-items.png"]  # the chart: private to the app
    files = [f for f in uploads if f["channel"] is not None]
    assert len(files) == 2 and all(f["channel"] == dm(ADMIN) for f in files)  # never shared in the channel
    names = {f["name"]: f["content"] for f in files}
    class_csv = next(n for n in names if n.startswith("demo-class-") and n.endswith(".csv"))
    assert {r["user"] for r in csv.DictReader(io.StringIO(names[class_csv].decode()))} == {LEARNER, STRANGER}
    assert f"`{class_csv}`" in text and "are in our direct messages" in text


async def test_a_learner_is_refused_and_gets_no_file(slack: Slack) -> None:
    await practise(slack, LEARNER, WRONG)
    shared = len(slack.fake.shared)
    await slack.command("report demo", user=LEARNER)
    assert "Only admins may see reports." in block_text(last_answer(slack)["blocks"])
    assert len(slack.fake.shared) == shared


async def test_bad_arguments_get_a_specific_message(slack: Slack) -> None:
    await slack.command("report nope", user=ADMIN)
    assert "There is no pack `nope`. Available: `demo`." in block_text(last_answer(slack)["blocks"])
    await slack.command("report demo since:2026-02-30", user=ADMIN)
    assert "`2026-02-30` is not a date: write `since:YYYY-MM-DD`" in block_text(last_answer(slack)["blocks"])
    await slack.command("report demo basics 2026/11/01", user=ADMIN)
    assert "`2026/11/01` is not a date" in block_text(last_answer(slack)["blocks"])
    _, body = await slack.command("report demo colour:red", user=ADMIN)
    assert "`colour` is not an option of `/quiz report`; use `pack:`, `topic:` or `since:`." in body
    await slack.command("report demo basics 7d", user=ADMIN)
    shown = block_text(last_answer(slack)["blocks"])
    assert "Item analysis: Demo pack" in shown and "topic `basics`" in shown and "since " in shown
