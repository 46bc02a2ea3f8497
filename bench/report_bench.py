"""Time a pack's item analysis on a large class: 10,000 learners and 1,000,000 attempts.

Generates a class (each learner has an ability; each item a difficulty; a learner answers an item
right with a logistic chance, retries some wrong ones), stores it in SQLite and/or PostgreSQL with
fast bulk inserts, then times `Reports.report` (the counts in SQL plus the statistics) and the
gradebook. Not a test: figures depend on the machine.

    .venv/bin/python bench/report_bench.py [--learners 10000] [--attempts 1000000] [--db sqlite postgresql]
"""

from __future__ import annotations

import argparse
import asyncio
import math
import os
import random
import statistics
import tempfile
import time
import uuid
from datetime import UTC, datetime, timedelta

import asyncpg
import yaml

from bot.core.packs import load_bytes
from bot.core.report import Filters
from bot.core.report.service import Reports
from bot.storage import open_repository
from bot.storage import tables as t
from bot.storage.reports import ReportStore

PG_ADMIN = "postgresql://postgres@127.0.0.1:5432/test"
ITEMS = 40
QUIZ = 10  # items a quiz asks
NOW = datetime(2026, 12, 4, tzinfo=UTC)


def pack_bytes() -> bytes:
    questions = [
        {"id": f"q{j:02d}", "type": "choice", "prompt": f"Question {j}?",
         "choices": [{"text": "Key", "correct": True}, {"text": "B"}, {"text": "C"}, {"text": "D"}]}
        for j in range(ITEMS)
    ]
    return yaml.safe_dump({"pack": "big-class", "title": "Big class", "version": 1, "questions": questions}).encode()


def rows(learners: int, attempts: int, seed: int = 7) -> tuple[list[dict[str, object]], list[dict[str, object]]]:
    """The class's quizzes (sessions of `QUIZ` items) and attempts."""
    rng = random.Random(seed)
    per = max(1, attempts // learners)
    difficulty = [rng.gauss(0, 1) for _ in range(ITEMS)]
    out: list[dict[str, object]] = []
    quizzes: list[dict[str, object]] = []
    for u in range(learners):
        ability = rng.gauss(0, 1)
        at = NOW - timedelta(days=rng.randint(0, 30))
        sid = ""
        for k in range(per):
            if k % QUIZ == 0:
                sid = f"s{u}-{k // QUIZ}"
                quizzes.append({"id": sid, "platform": "discord", "scope": "g", "owner_kind": "user", "owner_id": f"u{u}",
                                "status": "done", "position": QUIZ, "data": "{}", "created_at": at, "updated_at": at,
                                "version": 1})
            at += timedelta(seconds=rng.randint(4, 60))
            j = k % ITEMS
            right = rng.random() < 1 / (1 + math.exp(difficulty[j] - ability))
            answer = "A. Key" if right else rng.choice(["B. B", "C. C", "D. D"])
            out.append({"platform": "discord", "scope": "g", "user_id": f"u{u}", "pack_id": "big-class",
                        "question_id": f"q{j:02d}", "topic": None, "answer": answer, "correct": right,
                        "points": int(right), "at": at, "session_id": sid, "key": f"{u}-{k}"})
    return quizzes, out


async def one(url: str, quizzes: list[dict[str, object]], data: list[dict[str, object]], runs: int) -> None:
    repository = await open_repository(url, db_timeout=600)
    try:
        pack = load_bytes("big-class.yaml", pack_bytes()).pack
        await repository.import_pack(pack)
        started = time.perf_counter()
        async with repository.db.write() as c:
            for i in range(0, len(quizzes), 20_000):
                await c.execute(t.sessions.insert(), quizzes[i : i + 20_000])
            for i in range(0, len(data), 20_000):
                await c.execute(t.attempts.insert(), data[i : i + 20_000])
        loaded = time.perf_counter() - started
        reports = Reports(ReportStore(repository.db))
        times, grades = [], []
        for _ in range(runs):
            started = time.perf_counter()
            report = await reports.report(pack, Filters(pack="big-class"), now=NOW)
            times.append(time.perf_counter() - started)
            started = time.perf_counter()
            await reports.gradebook([pack], pack="big-class", scope=None, since=None)
            grades.append(time.perf_counter() - started)
        name = url.split(":", 1)[0]
        print(
            f"{name}: {report.learners} learners, {len(data):,} attempts (loaded in {loaded:.1f} s); "
            f"report median {statistics.median(times):.2f} s (min {min(times):.2f}, max {max(times):.2f}, {runs} runs); "
            f"gradebook median {statistics.median(grades):.2f} s; load average {os.getloadavg()[0]:.2f}"
        )
    finally:
        await repository.close()


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--learners", type=int, default=10_000)
    parser.add_argument("--attempts", type=int, default=1_000_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--db", nargs="+", default=["sqlite", "postgresql"], choices=["sqlite", "postgresql"])
    args = parser.parse_args()
    quizzes, data = rows(args.learners, args.attempts)
    for db in args.db:
        if db == "sqlite":
            with tempfile.TemporaryDirectory() as folder:
                await one(f"sqlite+aiosqlite:///{folder}/report.db", quizzes, data, args.runs)
        else:
            name = f"quizbot_bench_{uuid.uuid4().hex[:8]}"
            admin = await asyncpg.connect(PG_ADMIN)
            await admin.execute(f'CREATE DATABASE "{name}"')
            try:
                await one(f"postgresql+asyncpg://postgres@127.0.0.1:5432/{name}", quizzes, data, args.runs)
            finally:
                await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
                await admin.close()


if __name__ == "__main__":
    asyncio.run(main())
