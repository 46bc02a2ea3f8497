"""The organiser's report counted mastered items (and overdue reviews) the stats card does not.

An item is mastered everywhere when its card's stability is above 21 days, and a card whose item
left its pack (a new version without it) stays in history only: `/quiz stats` and the progress
picture no longer count it, nor is it ever due. `/quiz report` still counted it as mastered and as
an overdue review, and counted a leech (which leaves the review) as overdue too. Now the report
counts only cards whose item its pack still has, and no leech as overdue.
"""

from __future__ import annotations

import csv
import io
import json
from datetime import timedelta

import pytest
from sqlalchemy import select, update

from bot.core.daily.cards import LEECH_FAILURES
from bot.core.report.service import Reports
from bot.storage import tables as t
from bot.storage.daily import DailyRepository
from bot.storage.reports import ReportStore
from tests.race.helpers import race_pack

from . import payloads as p
from .conftest import Answer, BotRunner, Harness


@pytest.fixture
async def bot(start_bot: BotRunner) -> Harness:
    harness = await start_bot.start()
    harness.service.reports.reports = Reports(ReportStore(start_bot.opened[-1][1].db))  # as bot/app.py wires it
    return harness


def class_rows(answer: Answer) -> dict[str, dict[str, str]]:
    sent = {name: data for call in answer.calls for name, data in call.files}
    name = next(n for n in sent if n.startswith("race-pack-class-") and n.endswith(".csv"))
    return {row["user"]: row for row in csv.DictReader(io.StringIO(sent[name].decode()))}


async def test_the_report_counts_mastered_and_overdue_as_the_stats_do(bot: Harness, start_bot: BotRunner) -> None:
    repository = start_bot.opened[-1][1]
    pack = race_pack(choices=3, others=False)  # three choice items, the first choice right
    await bot.service.import_pack(pack)
    item = (await bot.command(p.ALICE, "start", [p.option("pack", "race-pack")])).item()
    for _ in range(3):
        answered = await bot.click(p.ALICE, item, "A")
        assert "Correct" in answered.text() or "Right" in answered.text(), answered.text()
        nxt = [m for m in answered.stored() if "Question" in (m["embeds"][0].get("title") or "")]
        item = nxt[-1] if nxt else item
    async with repository.db.engine.begin() as c:  # both cards stable for 30 days, and overdue
        rows = (await c.execute(select(t.reviews.c.question_id, t.reviews.c.card).where(t.reviews.c.user_id == p.ALICE.id))).all()
        assert len(rows) >= 2, rows
        for question, card in rows:
            data = {**json.loads(card), "stability": 30.0}
            values = {"card": json.dumps(data), "due": start_bot.clock.now() - timedelta(days=1)}
            await c.execute(update(t.reviews).where(t.reviews.c.user_id == p.ALICE.id, t.reviews.c.question_id == question).values(values))
    questions = [q for q, _card in rows]
    kept = [q for q in pack.questions if q.id != questions[0]]
    await bot.service.import_pack(pack.model_copy(update={"version": 2, "questions": kept}))
    daily = DailyRepository.beside(repository)
    await daily.save_card_failures("discord", p.ALICE.id, ("race-pack", questions[1]), LEECH_FAILURES, True)

    live = questions[1:]
    row = class_rows(await bot.command(p.ADMIN, "report", [p.option("pack", "race-pack")]))[p.ALICE.id]
    assert row["mastered"] == str(len(live)), row  # the removed item's card is history only
    assert row["reviews_overdue"] == str(len(live) - 1), row  # and the leech leaves the review
    stats = await bot.command(p.ALICE, "stats")
    assert f"Due for review: **{len(live) - 1}**" in stats.text(), stats.text()  # what `/quiz stats` says is due
