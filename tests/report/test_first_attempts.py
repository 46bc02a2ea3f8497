"""The stored first attempts (`first_attempts`, migration 0011) give the report the counts the attempts give.

A mixed class answers in random order: learners on two platforms, some in two servers (their first
attempt at an item in one, their first right one in the other), answers in quizzes, outside any
(a daily post: no seconds), in a quiz whose row is gone, and in quizzes mixing two packs; a code
item whose answers are counted by the grade's detail. Each report the stored rows serve is compared
with the same report counted from the attempts (a `since` before every attempt takes that path).
Then the migration's backfill must store, for attempts stored before it, the rows the trigger
stores as they come.
"""

from __future__ import annotations

import random
from collections.abc import AsyncIterator
from dataclasses import astuple, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import yaml
from alembic import command
from sqlalchemy import select
from sqlalchemy.engine import Connection

from bot.core.packs import load_bytes
from bot.core.report import Filters
from bot.core.report.model import Aggregates
from bot.storage import SqlRepository, open_repository
from bot.storage import tables as t
from bot.storage.database import _alembic_config, create_engine
from bot.storage.report_firsts import kept
from bot.storage.reports import ReportStore
from tests.storage.conftest import _pg_database

NOW = datetime(2026, 12, 4, 12, 0, tzinfo=UTC)
EARLY = NOW - timedelta(days=400)  # before every attempt: the same attempts, counted from the attempts table
ITEMS = ["q0", "q1", "q2", "q3", "code"]


def pack_bytes(name: str) -> bytes:
    questions: list[dict[str, Any]] = [
        {"id": q, "type": "choice", "prompt": f"{q}?", "choices": [{"text": "Key", "correct": True}, {"text": "B"}, {"text": "C"}]}
        for q in ITEMS[:-1]
    ]
    questions.append({"id": "code", "type": "short", "prompt": "Code?", "accept": ["x"]})
    return yaml.safe_dump({"pack": name, "title": name, "version": 1, "questions": questions}).encode()


def mixed_class(seed: int = 11) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(sessions, attempts in the order stored) of a class answering `mix` (and a little of `other`)."""
    rng = random.Random(seed)
    sessions: list[dict[str, Any]] = []
    events: list[dict[str, Any]] = []
    for u in range(30):
        platform = "discord" if u % 3 else "slack"
        scopes = ["g1", "g2"] if u % 4 == 0 else [rng.choice(["g1", "g2"])]
        at = NOW - timedelta(days=rng.randint(1, 30), seconds=rng.randint(0, 5000))
        for k in range(rng.randint(1, 4)):
            sid = f"s{u}-{k}"
            if not (u == 5 and k == 0):  # u05's first quiz row is gone: its attempts have no seconds
                sessions.append({"id": sid, "platform": platform, "scope": scopes[0], "owner_kind": "user",
                                 "owner_id": f"u{u}", "status": "done", "position": 0, "data": "{}", "created_at": at,
                                 "updated_at": at, "version": 1})
            scope = rng.choice(scopes)
            for _ in range(rng.randint(2, 7)):
                at += timedelta(seconds=rng.randint(1, 90), microseconds=rng.randint(0, 999_999))
                pack, question = ("other", "q0") if rng.random() < 0.1 else ("mix", rng.choice(ITEMS))
                right = rng.random() < 0.45
                daily = rng.random() < 0.1
                answer = "A. Key" if right else rng.choice(["B. B", "C. C"])
                events.append({"platform": platform, "scope": scope, "user_id": f"u{u}", "pack_id": pack,
                               "question_id": question, "topic": None, "answer": answer, "correct": right,
                               "points": int(right), "at": at, "session_id": None if daily else sid,
                               "key": f"{u}-{k}-{len(events)}", "mode": "daily" if daily else "quiz",
                               "detail": None if question != "code" or right else rng.choice(["fails a", "fails b"])})
    events.sort(key=lambda e: e["at"])
    return sessions, events


async def _store(repository: SqlRepository, sessions: list[dict[str, Any]], attempts: list[dict[str, Any]]) -> None:
    async with repository.db.write() as c:
        await c.execute(t.sessions.insert(), sessions)
        for i in range(0, len(attempts), 37):  # in several statements, as answers come
            await c.execute(t.attempts.insert(), attempts[i : i + 37])


async def _urls(kind: str, tmp_path: Path, name: str) -> AsyncIterator[str]:
    if kind == "sqlite":
        yield f"sqlite+aiosqlite:///{tmp_path / name}"
        return
    async for url in _pg_database():
        yield url


def _sorted(a: Aggregates) -> tuple[Any, ...]:
    def rows(counted: tuple[Any, ...]) -> list[tuple[Any, ...]]:
        return sorted(astuple(c) for c in counted)

    return rows(a.items), rows(a.answers), rows(a.tries_to_right), rows(a.seconds), a.learners


@pytest.mark.parametrize("kind", ["sqlite", "postgresql"])
async def test_the_stored_first_attempts_count_as_the_attempts_do(kind: str, tmp_path: Path) -> None:
    async for url in _urls(kind, tmp_path, "r.db"):
        repository = await open_repository(url)
        try:
            for name in ("mix", "other"):
                await repository.import_pack(load_bytes(f"{name}.yaml", pack_bytes(name)).pack)
            await _store(repository, *mixed_class())
            store = ReportStore(repository.db)
            cases = [Filters(pack="mix"), Filters(pack="mix", scope="g1"), Filters(pack="mix", scope="g2", platform="discord"),
                     Filters(pack="mix", platform="slack")]
            for filters in cases:
                filters = replace(filters, textless=("code",))
                assert kept(filters) and not kept(replace(filters, since=EARLY))
                stored = await store.report_counts(filters, now=NOW)
                counted = await store.report_counts(replace(filters, since=EARLY), now=NOW)
                assert stored.learners > 0 and stored.tries_to_right and stored.seconds
                assert _sorted(stored) == _sorted(counted), filters
        finally:
            await repository.close()


def _to(revision: str) -> Any:
    def upgrade(connection: Connection) -> None:
        command.upgrade(_alembic_config(connection), revision)

    return upgrade


async def _rows(repository: SqlRepository) -> list[tuple[Any, ...]]:
    f = t.first_attempts
    async with repository.db.read() as c:
        return [tuple(r) for r in await c.execute(select(f).order_by(*f.primary_key.columns))]


@pytest.mark.parametrize("kind", ["sqlite", "postgresql"])
async def test_the_migration_stores_the_rows_the_trigger_does(kind: str, tmp_path: Path) -> None:
    sessions, attempts = mixed_class(seed=12)
    async for before in _urls(kind, tmp_path, "before.db"):
        engine = create_engine(before)
        async with engine.begin() as connection:  # the schema as it was: attempts stored without the trigger
            await connection.run_sync(_to("0010_report_indexes"))
            await connection.execute(t.sessions.insert(), sessions)
            await connection.execute(t.attempts.insert(), attempts)
        await engine.dispose()
        migrated = await open_repository(before)
        async for after in _urls(kind, tmp_path, "after.db"):
            written = await open_repository(after)
            try:
                await _store(written, sessions, attempts)
                expected = await _rows(written)
                assert len(expected) > 100
                assert await _rows(migrated) == expected
            finally:
                await written.close()
        await migrated.close()
