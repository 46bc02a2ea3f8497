"""Code answers keep their failing tests' sentences (`attempts.detail`), and the report names the commonest.

Learners answer the demo pack's code exercise through the service, as any front end does: the answer
path (`answer.graded()` -> `AnswerWrite`) stores what the tests said, on SQLite and PostgreSQL.
"""

from __future__ import annotations

import random
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from sqlalchemy import select

from bot.core import Actor, QuizService
from bot.core import requests as rq
from bot.core.packs import load_path
from bot.core.replies import Attachment, Image
from bot.core.report.service import Reports
from bot.storage import SqlRepository, open_repository
from bot.storage import tables as t
from bot.storage.reports import ReportStore
from tests.conftest import DEMO_PACK
from tests.fakes import FakeClock, LocalRunner
from tests.storage.conftest import _pg_database

VALUE, PRINTED = "`total` must be 55.", "Print `total`."
ANSWERS = {  # learner -> code: what each fails is known from the demo pack's test
    "u1": "total = 54\n",  # both tests fail
    "u2": "total = 54\n",
    "u3": "total = 54\nprint(55)\n",  # the value only (55 is printed)
    "u4": "total = 55\n",  # printing only
    "u5": "total = sum(range(1, 11))\nprint(total)\n",  # right
}


@pytest.fixture(params=["sqlite", "postgresql"])
async def repository(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[SqlRepository]:
    if request.param == "sqlite":
        repo = await open_repository(f"sqlite+aiosqlite:///{tmp_path / 'c.db'}")
        yield repo
        await repo.close()
        return
    async for url in _pg_database():
        repo = await open_repository(url)
        yield repo
        await repo.close()


def learner(user: str, *, admin: bool = False) -> Actor:
    return Actor(platform="discord", scope="guild1", user_id=user, name=user, is_admin=admin, channel_id="c1")


async def test_code_answers_store_failing_sentences_and_the_report_counts_them(repository: SqlRepository) -> None:
    service = QuizService(
        repository=repository, runner=LocalRunner(), clock=FakeClock(), rng=random.Random(7),
        reports=Reports(ReportStore(repository.db)),
    )
    await service.import_pack(load_path(DEMO_PACK).pack)
    for user, code in ANSWERS.items():
        await service.handle(learner(user), rq.Start(pack="demo", question="q-code"))
        await service.handle(learner(user), rq.Submit(f"```python\n{code}```"))
    async with repository.db.read() as c:
        rows = {r.user_id: r.detail for r in await c.execute(select(t.attempts.c.user_id, t.attempts.c.detail))}
    assert sorted(rows["u1"].splitlines()) == sorted([VALUE, PRINTED]) and rows["u1"] == rows["u2"]
    assert rows["u3"] == VALUE and rows["u4"] == PRINTED
    assert rows["u5"] is None  # a right answer says nothing to count

    reply = await service.handle(learner("boss", admin=True), rq.Report(pack="demo"))
    (message,) = reply.messages
    summary = message.text()
    assert "**Code exercises: the tests failed most**" in summary
    line = next(line for line in summary.splitlines() if line.startswith("• `q-code`: "))
    assert f"“{VALUE}” (3)" in line and f"“{PRINTED}” (3)" in line  # each failed by three learners' first answers
    files = [p.filename for p in message.parts if isinstance(p, Attachment)]
    assert [p.filename for p in message.parts if isinstance(p, Image)] == ["demo-items.png"]
    assert len(files) == 2 and all(f.endswith(".csv") for f in files)
    items_csv = next(p for p in message.parts if isinstance(p, Attachment) and "-items-" in p.filename).data.decode()
    code_row = next(line for line in items_csv.splitlines() if line.startswith("q-code,"))
    assert f"{VALUE} (3)" in code_row and f"{PRINTED} (3)" in code_row
