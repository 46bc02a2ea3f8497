"""Time a pack's item analysis on a large class: 10,000 learners and 1,000,000 attempts.

Generates a class (each learner has an ability; each item a difficulty; a learner answers an item
right with a logistic chance, in quizzes of ten items taking 4 to 60 s each), stores it in SQLite
and/or PostgreSQL with fast bulk inserts (the trigger of migration 0011 writes each learner's first
attempts as they go in; PostgreSQL is then VACUUMed and ANALYZEd, as autovacuum would have done on a
table grown to this size), then times `Reports.report`
(the counts in SQL plus the statistics; wall clock, and CPU of this process and of its PostgreSQL
server processes) and the gradebook. With `--previous CHECKOUT` it also times another checkout's
report on the same data, in a child process, run by run alternating with this code's (a checkout
older than migration 0010 runs first, all its runs, with the report indexes dropped meanwhile). Not a test: figures depend on the machine and
on what else runs on it (the load average is printed with each figure).

    .venv/bin/python bench/report_bench.py [--learners 10000] [--attempts 1000000] [--db sqlite postgresql]
        [--runs 3] [--previous /tmp/quizbot-before]
"""

from __future__ import annotations

import argparse
import asyncio
import math
import os
import random
import statistics
import sys
import tempfile
import time
import uuid
from datetime import UTC, datetime, timedelta

import asyncpg
import yaml

from bot.core.packs import Pack, load_bytes
from bot.core.report import Filters
from bot.core.report.service import Reports
from bot.storage import SqlRepository, open_repository
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


REPORT_INDEXES = {  # migration 0010; dropped while the previous code runs, as its schema had neither
    "ix_attempts_pack_learner": "attempts (pack_id, platform, user_id, question_id, id, correct, at)",
    "ix_attempts_pack_session": "attempts (pack_id, session_id, id, at, question_id)",
}

# Run in a child process over another checkout's `bot` package (its report code and its Database).
PREVIOUS = """
import asyncio, os, sys, time
from datetime import UTC, datetime
from sqlalchemy.ext.asyncio import create_async_engine
from bot.core.packs import Pack, load_bytes
from bot.core.report import Filters
from bot.core.report.service import Reports
from bot.storage.base import Database
from bot.storage.reports import ReportStore

def server_cpu(pids):
    total = 0.0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        except (OSError, IndexError, ValueError):
            pass
    return total

async def main(url, runs):
    sqlite = url.startswith("sqlite")
    args = {} if sqlite else {"server_settings": {"application_name": "bench-previous"}}
    engine = create_async_engine(url, connect_args=args)
    pack = load_bytes("big-class.yaml", sys.stdin.buffer.read()).pack
    reports = Reports(ReportStore(Database(engine)))
    filters, now = Filters(pack="big-class"), datetime(2026, 12, 4, tzinfo=UTC)
    await reports.report(pack, filters, now=now)  # a first run untimed, as this code's: connections opened
    for _ in range(runs):
        pids = []
        if not sqlite:
            async with engine.connect() as c:
                rows = await c.exec_driver_sql("SELECT pid FROM pg_stat_activity WHERE application_name = 'bench-previous'")
                pids = [int(r[0]) for r in rows if r[0] is not None]
        started, used, server = time.perf_counter(), time.process_time(), server_cpu(pids)
        await reports.report(pack, filters, now=now)
        wall, cpu = time.perf_counter() - started, time.process_time() - used + server_cpu(pids) - server
        print(wall, cpu, flush=True)
    await engine.dispose()

asyncio.run(main(sys.argv[1], int(sys.argv[2])))
"""


def _stats(times: list[float]) -> str:
    return f"median {statistics.median(times):.2f} s (min {min(times):.2f}, max {max(times):.2f}, {len(times)} runs)"


def _pg_cpu(database: str) -> float:
    """CPU seconds used so far by this bench's PostgreSQL server processes (from /proc; 0 when not local)."""
    total = 0.0
    for pid in _pg_backends.get(database, []):
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        except (OSError, IndexError, ValueError):
            pass
    return total


_pg_backends: dict[str, list[int]] = {}


def _has_report_indexes(checkout: str) -> bool:
    return os.path.exists(os.path.join(checkout, "bot/storage/migrations/versions/0010_report_indexes.py"))


async def _previous(url: str, previous: str, runs: int) -> list[tuple[float, float]]:
    """Time the previous code's report in a child process: (wall, CPU) of each run.

    A checkout older than migration 0010 runs with the report indexes dropped meanwhile.
    """
    sqlite = url.startswith("sqlite")
    drop = not _has_report_indexes(previous)
    if drop:
        repository = await open_repository(url, db_timeout=600)
        async with repository.db.write() as c:
            for name in REPORT_INDEXES:
                await c.exec_driver_sql(f"DROP INDEX {name}")
        await repository.close()
    try:
        child = await asyncio.create_subprocess_exec(
            sys.executable, "-c", PREVIOUS, url, str(runs), cwd=previous,
            env={**os.environ, "PYTHONPATH": previous}, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
        )
        out, _ = await child.communicate(pack_bytes())
        return [(float(wall), float(cpu)) for wall, cpu in (line.split() for line in out.decode().splitlines())]
    finally:
        if drop:
            repository = await open_repository(url, db_timeout=600)
            async with repository.db.write() as c:
                for name, columns in REPORT_INDEXES.items():
                    await c.exec_driver_sql(f"CREATE INDEX {name} ON {columns}")
                if not sqlite:
                    await c.exec_driver_sql("ANALYZE attempts")
            await repository.close()


async def _this(reports: Reports, repository: SqlRepository, database: str, pack: Pack) -> tuple[float, float, float, int]:
    """One run of this code: (report wall, report CPU, gradebook wall, learners)."""
    if not repository.db.sqlite:
        async with repository.db.read() as c:
            rows = await c.exec_driver_sql(f"SELECT pid FROM pg_stat_activity WHERE datname = '{database}'")
            _pg_backends[database] = [int(r[0]) for r in rows]
    started, used, server = time.perf_counter(), time.process_time(), _pg_cpu(database)
    report = await reports.report(pack, Filters(pack="big-class"), now=NOW)
    wall = time.perf_counter() - started
    cpu = time.process_time() - used + _pg_cpu(database) - server
    started = time.perf_counter()
    await reports.gradebook([pack], pack="big-class", scope=None, since=None)
    return wall, cpu, time.perf_counter() - started, report.learners


async def one(
    url: str, quizzes: list[dict[str, object]], data: list[dict[str, object]], runs: int, previous: str | None
) -> None:
    repository = await open_repository(url, db_timeout=600)
    name = url.split(":", 1)[0]
    database = url.rsplit("/", 1)[1]
    try:
        pack = load_bytes("big-class.yaml", pack_bytes()).pack
        await repository.import_pack(pack)
        started = time.perf_counter()
        async with repository.db.write() as c:
            for i in range(0, len(quizzes), 20_000):
                await c.execute(t.sessions.insert(), quizzes[i : i + 20_000])
            for i in range(0, len(data), 20_000):
                await c.execute(t.attempts.insert(), data[i : i + 20_000])
        if not repository.db.sqlite:
            # As autovacuum would have on a table grown to this size (PostgreSQL 13 and later vacuum
            # after inserts too): the statistics, and the visibility map the index-only scans need
            # (without it each of them fetches every row from the table as well).
            async with repository.db.read() as c:
                await c.exec_driver_sql("VACUUM ANALYZE")
        loaded = time.perf_counter() - started
        print(f"{name}: {len(quizzes):,} quizzes, {len(data):,} attempts loaded in {loaded:.1f} s", flush=True)
        reports = Reports(ReportStore(repository.db))
        await reports.report(pack, Filters(pack="big-class"), now=NOW)  # untimed: the pool's connections opened
        mine: list[tuple[float, float, float, int]] = []
        theirs: list[tuple[float, float]] = []
        if previous is not None and not _has_report_indexes(previous):
            await repository.close()
            theirs = await _previous(url, previous, runs)
            repository = await open_repository(url, db_timeout=600)
            reports = Reports(ReportStore(repository.db))
            await reports.report(pack, Filters(pack="big-class"), now=NOW)
            mine = [await _this(reports, repository, database, pack) for _ in range(runs)]
        else:  # old and new alternate, run by run
            for _ in range(runs):
                if previous is not None:
                    theirs += await _previous(url, previous, 1)
                    print(f"  previous: report {theirs[-1][0]:.2f} s wall, {theirs[-1][1]:.2f} s CPU; "
                          f"load {os.getloadavg()[0]:.2f}", flush=True)
                mine.append(await _this(reports, repository, database, pack))
                print(f"  this code: report {mine[-1][0]:.2f} s wall, {mine[-1][1]:.2f} s CPU, gradebook {mine[-1][2]:.2f} s; "
                      f"load {os.getloadavg()[0]:.2f}", flush=True)
        where = " and its PostgreSQL server processes" if not repository.db.sqlite else ""
        if theirs:
            print(f"  previous code ({previous}): report {_stats([w for w, _ in theirs])}, "
                  f"CPU median {statistics.median([c for _, c in theirs]):.2f} s", flush=True)
        print(
            f"  this code: {mine[0][3]} learners; report {_stats([m[0] for m in mine])}, "
            f"CPU median {statistics.median([m[1] for m in mine]):.2f} s (the bench process{where}); "
            f"gradebook {_stats([m[2] for m in mine])}; load average {os.getloadavg()[0]:.2f}",
            flush=True,
        )
    finally:
        await repository.close()


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--learners", type=int, default=10_000)
    parser.add_argument("--attempts", type=int, default=1_000_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--db", nargs="+", default=["sqlite", "postgresql"], choices=["sqlite", "postgresql"])
    parser.add_argument(
        "--previous", metavar="CHECKOUT",
        help="also time the report of another checkout of QuizBot (a git worktree of an older commit) on the same data",
    )
    args = parser.parse_args()
    quizzes, data = rows(args.learners, args.attempts)
    for db in args.db:
        if db == "sqlite":
            with tempfile.TemporaryDirectory() as folder:
                await one(f"sqlite+aiosqlite:///{folder}/report.db", quizzes, data, args.runs, args.previous)
        else:
            name = f"quizbot_bench_{uuid.uuid4().hex[:8]}"
            admin = await asyncpg.connect(PG_ADMIN)
            await admin.execute(f'CREATE DATABASE "{name}"')
            try:
                await one(f"postgresql+asyncpg://postgres@127.0.0.1:5432/{name}", quizzes, data, args.runs, args.previous)
            finally:
                await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
                await admin.close()


if __name__ == "__main__":
    asyncio.run(main())
