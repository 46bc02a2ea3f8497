"""The report's counts in SQL against a straightforward computation in Python, on random classes.

Each class is drawn from a seed: learners on two platforms and two servers, items answered in
quizzes (some by two learners, some outside any quiz, one quiz whose row is gone), retries, a
second pack whose attempts share the quizzes, and times with fifths of a second (never a half, where julianday arithmetic could round either way). The reference
below reads every attempt one by one, as the README describes the statistics; the store must give
the same counts for every filter, on SQLite and PostgreSQL.
"""

from __future__ import annotations

import math
import random
from collections import Counter, defaultdict
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from bot.core.report import Filters
from bot.core.report.model import Aggregates, Counted, ItemCounts
from bot.storage import SqlRepository, open_repository
from bot.storage import tables as t
from bot.storage.reports import ReportStore
from tests.storage.conftest import _pg_database

START = datetime(2026, 11, 1, 9, 0, tzinfo=UTC)
NOW = datetime(2026, 12, 4, 12, 0, tzinfo=UTC)
ITEMS = ["c1", "c2", "c3", "s1", "k1"]  # k1 is a code item: its answers are not grouped by text
TOPIC = {"c1": "one", "c2": "one", "c3": "two", "s1": "two", "k1": "two"}
GONE = "quiz-gone"  # attempts name this quiz, whose row no longer exists


@dataclass(frozen=True)
class Row:
    id: int
    platform: str
    scope: str
    user_id: str
    pack_id: str
    question_id: str
    topic: str
    answer: str
    correct: bool
    at: datetime
    session_id: str | None


def make_class(seed: int) -> tuple[list[dict[str, Any]], list[Row]]:
    rng = random.Random(seed)
    learners = [(rng.choice(["discord", "slack"]), rng.choice(["g1", "g2"]), f"u{i:02d}") for i in range(rng.randint(12, 30))]
    sessions: list[dict[str, Any]] = []
    rows: list[Row] = []
    at = START
    for number in range(rng.randint(40, 70)):
        platform, scope, owner = rng.choice(learners)
        sid: str | None = f"quiz-{number}"
        began = at
        if rng.random() < 0.1:
            sid = None  # answered outside a quiz (a daily post)
        elif rng.random() < 0.05:
            sid = GONE
        else:
            sessions.append(
                {"id": sid, "platform": platform, "scope": scope, "owner_kind": "user", "owner_id": owner, "status": "done",
                 "position": 0, "data": "{}", "created_at": began, "updated_at": began, "version": 1}
            )
        company = [(platform, scope, owner)] + ([rng.choice(learners)] if rng.random() < 0.2 else [])
        for _ in range(rng.randint(1, 8)):
            at += timedelta(seconds=rng.randint(1, 90), microseconds=rng.choice([0, 200_000]))
            p, sc, user = rng.choice(company)
            pack = "other" if rng.random() < 0.1 else "rand"
            question = rng.choice(ITEMS)
            right = rng.random() < 0.5
            if question.startswith("c"):
                answer = "A. Key" if right else rng.choice(["B. Near", "C. Far"])
            elif question == "s1":
                answer = "6" if right else rng.choice(["5", " Five ", "seven"])
            else:
                answer = "def f(): ..." + str(rng.random())
            rows.append(Row(len(rows) + 1, p, sc, user, pack, question, TOPIC[question], answer, right, at, sid))
        at += timedelta(minutes=rng.randint(1, 600))
    return sessions, rows


def reference(rows: list[Row], sessions: list[dict[str, Any]], filters: Filters) -> Aggregates:
    """Every count, reading the attempts one at a time."""
    kept = [
        r for r in rows
        if r.pack_id == filters.pack
        and (filters.topic is None or r.topic == filters.topic)
        and (filters.since is None or r.at >= filters.since)
        and (filters.scope is None or r.scope == filters.scope)
        and (filters.platform is None or r.platform == filters.platform)
    ]
    by_pair: dict[tuple[str, str, str], list[Row]] = defaultdict(list)
    for r in sorted(kept, key=lambda r: r.id):
        by_pair[(r.platform, r.user_id, r.question_id)].append(r)
    chosen = [group[0] for group in by_pair.values()] if filters.first_only else kept
    right: Counter[tuple[str, str]] = Counter()
    total: Counter[tuple[str, str]] = Counter()
    for r in chosen:
        total[(r.platform, r.user_id)] += 1
        right[(r.platform, r.user_id)] += r.correct
    order = sorted(total, key=lambda who: (-(right[who] / total[who]), who[0], who[1]))
    everyone = len(order)
    group = max(1, int(everyone * 0.27))
    upper = set(order[:group])
    lower = set(order[everyone - group :])
    items: dict[str, list[int]] = defaultdict(lambda: [0] * 6)
    answers: Counter[tuple[str, str, bool]] = Counter()
    for r in chosen:
        who = (r.platform, r.user_id)
        counts = items[r.question_id]
        for i, inside in enumerate([True, who in upper, who in lower]):
            if inside:
                counts[2 * i] += 1
                counts[2 * i + 1] += r.correct
        answers[(r.question_id, "" if r.question_id in filters.textless else r.answer, r.correct)] += 1
    tries: Counter[tuple[str, str]] = Counter()
    for (_, _, question), group_rows in by_pair.items():
        firsts = [n for n, r in enumerate(group_rows, start=1) if r.correct]
        if firsts:
            tries[(question, str(firsts[0]))] += 1
    began = {s["id"]: s["created_at"] for s in sessions}
    seconds: Counter[tuple[str, str]] = Counter()
    for r in chosen:
        if r.session_id is None or r.session_id not in began:
            continue
        before = [p for p in rows if p.pack_id == filters.pack and p.session_id == r.session_id and p.id < r.id]
        shown = max(before, key=lambda p: p.id).at if before else began[r.session_id]
        secs = math.floor((r.at - shown).total_seconds() + 0.5)
        if secs >= 0:
            seconds[(r.question_id, str(secs))] += 1
    return Aggregates(
        items=tuple(ItemCounts(q, c[0], c[1], c[2], c[3], c[4], c[5]) for q, c in items.items()),
        answers=tuple(Counted(q, a, n, ok) for (q, a, ok), n in answers.items()),
        tries_to_right=tuple(Counted(q, v, n) for (q, v), n in tries.items()),
        seconds=tuple(Counted(q, v, n) for (q, v), n in seconds.items()),
        learners=everyone,
    )


def _same(got: Aggregates, want: Aggregates) -> None:
    assert got.learners == want.learners
    assert sorted(got.items, key=lambda i: i.question) == sorted(want.items, key=lambda i: i.question)
    for name in ("answers", "tries_to_right", "seconds"):
        key = lambda c: (c.question, c.value, c.correct, c.count)  # noqa: E731
        assert sorted(getattr(got, name), key=key) == sorted(getattr(want, name), key=key), name


@pytest.fixture(params=["sqlite", "postgresql"])
async def repo(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[SqlRepository]:
    if request.param == "sqlite":
        repository = await open_repository(f"sqlite+aiosqlite:///{tmp_path / 'r.db'}")
        yield repository
        await repository.close()
        return
    async for url in _pg_database():
        repository = await open_repository(url)
        yield repository
        await repository.close()


async def _fill(repository: SqlRepository, sessions: list[dict[str, Any]], rows: list[Row]) -> None:
    async with repository.db.write() as c:
        await c.execute(t.attempts.delete())
        await c.execute(t.sessions.delete())
        if sessions:
            await c.execute(t.sessions.insert(), sessions)
        await c.execute(
            t.attempts.insert(),
            [
                {"id": r.id, "platform": r.platform, "scope": r.scope, "user_id": r.user_id, "pack_id": r.pack_id,
                 "question_id": r.question_id, "topic": r.topic, "answer": r.answer, "correct": r.correct,
                 "points": int(r.correct), "at": r.at, "session_id": r.session_id, "key": f"k{r.id}"}
                for r in rows
            ],
        )


FILTERS = [
    Filters(pack="rand", textless=("k1",)),
    Filters(pack="rand", first_only=False, textless=("k1",)),
    Filters(pack="rand", topic="two"),
    Filters(pack="rand", since=START + timedelta(days=4)),
    Filters(pack="rand", scope="g1", platform="slack"),
    Filters(pack="nobody"),
]


@pytest.mark.parametrize("seed", [1, 2, 3])
async def test_counts_match_a_computation_attempt_by_attempt(repo: SqlRepository, seed: int) -> None:
    sessions, rows = make_class(seed)
    await _fill(repo, sessions, rows)
    store = ReportStore(repo.db)
    for filters in FILTERS:
        got = await store.report_counts(filters, now=NOW)
        _same(got, reference(rows, sessions, filters))
    # The class is not trivial: some learners retried, some answers were timed, groups differ.
    every = reference(rows, sessions, FILTERS[0])
    assert every.learners >= 10 and every.seconds and any(c.value != "1" for c in every.tries_to_right)
