"""`/quiz report [pack] [topic] [since]` on Discord: admins get the summary, the chart and two CSV files."""

from __future__ import annotations

import csv
import io

import pytest

from bot.core.report.service import Reports
from bot.storage.reports import ReportStore

from . import payloads as p
from .conftest import Answer, BotRunner, Harness

EPHEMERAL = 64


@pytest.fixture
async def bot(start_bot: BotRunner) -> Harness:
    harness = await start_bot.start()
    harness.service.reports.reports = Reports(ReportStore(start_bot.opened[-1][1].db))  # as bot/app.py wires it
    return harness


def files(answer: Answer) -> dict[str, bytes]:
    return {name: data for call in answer.calls for name, data in call.files}


RIGHT = "```python\ntotal = sum(range(1, 11))\nprint(total)\n```"
WRONG = "```python\ntotal = 54\nprint(55)\n```"  # prints 55, but `total` is not 55


async def practise(bot: Harness, user: p.User, code: str = RIGHT) -> None:
    """Answer the demo pack's code exercise through its form."""
    item = (await bot.command(user, "start", [p.option("pack", "demo"), p.option("difficulty", "hard")])).item()
    form = await bot.click(user, item, "Answer")
    await bot.submit(user, form.data["custom_id"], code, message=item)


async def test_an_admin_gets_the_report_with_its_chart_and_csv_files(bot: Harness) -> None:
    await practise(bot, p.ALICE, WRONG)
    await practise(bot, p.BOB)
    answer = await bot.command(p.ADMIN, "report", [p.option("pack", "demo")])
    sent = files(answer)
    assert len(sent) == 3 and "demo-items.png" in sent
    class_csv = next(n for n in sent if n.startswith("demo-class-") and n.endswith(".csv"))
    items_csv = next(n for n in sent if n.startswith("demo-items-") and n.endswith(".csv"))
    assert sent["demo-items.png"].startswith(b"\x89PNG")
    text = answer.text()
    assert "Item analysis: Demo pack" in text and "2 learners" in text
    assert "• `q-code`: “`total` must be 55.” (1)" in text  # Alice's failing test, as she read it
    assert f"<@{p.ALICE.id}>" not in text  # nobody has stalled: no one is named in the summary
    body = next(b for b in answer.bodies() if b.get("embeds"))
    assert body["embeds"][0]["image"]["url"] == "attachment://demo-items.png"  # the chart shows in the message
    assert body.get("flags", 0) & EPHEMERAL  # only the admin sees it
    rows = list(csv.DictReader(io.StringIO(sent[class_csv].decode())))
    assert {r["user"] for r in rows} == {p.ALICE.id, p.BOB.id}
    items = list(csv.DictReader(io.StringIO(sent[items_csv].decode())))
    assert {r["item"] for r in items} >= {"q-choice", "q-code"}
    bot.assert_all_acknowledged()


async def test_a_learner_is_refused_and_gets_no_file(bot: Harness) -> None:
    await practise(bot, p.ALICE)
    answer = await bot.command(p.ALICE, "report", [p.option("pack", "demo")])
    assert "Only admins may see reports." in answer.text()
    assert files(answer) == {}


async def test_bad_arguments_get_a_specific_message(bot: Harness) -> None:
    unknown = await bot.command(p.ADMIN, "report", [p.option("pack", "nope")])
    assert "There is no pack `nope`. Available: `demo`." in unknown.text() and files(unknown) == {}
    topic = await bot.command(p.ADMIN, "report", [p.option("pack", "demo"), p.option("topic", "nope")])
    assert "There is no topic `nope`. Available: `basics`." in topic.text()
    date = await bot.command(p.ADMIN, "report", [p.option("pack", "demo"), p.option("since", "2026-13-45")])
    assert "`2026-13-45` is not a date: write `since:YYYY-MM-DD`" in date.text() and files(date) == {}
    recent = await bot.command(p.ADMIN, "report", [p.option("since", "30d")])  # the one pack here, the last 30 days
    assert "Item analysis: Demo pack" in recent.text() and "since " in recent.text()
