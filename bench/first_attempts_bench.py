"""What keeping `first_attempts` costs an answer: CPU per stored attempt with and without its trigger.

Stores attempts one transaction each (as answers are stored; on PostgreSQL each in autocommit, as
`one_statement` stores a plain click) into a database at the current schema, in blocks that
alternate the trigger (migration 0011) on and off on the same tables: the CPU of this process
(SQLite works in it) or of the PostgreSQL server process, per attempt. Learners answer quizzes of
ten items, about 40% of the attempts being first attempts (the report bench's class). Not a test:
figures depend on the machine and on what else runs on it (the load average is printed).

    .venv/bin/python bench/first_attempts_bench.py [--attempts 20000] [--blocks 10] [--db sqlite postgresql]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
import uuid
from datetime import datetime
from pathlib import Path
from typing import Any

import asyncpg

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the package, and the report benchmark's rows

from bench.report_bench import PG_ADMIN, rows
from bot.storage import open_repository
from bot.storage.migrations.versions import __path__ as versions

_COLUMNS = ("platform", "scope", "user_id", "pack_id", "question_id", "answer", "correct", "points", "at", "session_id", "key")


def _trigger_sqlite() -> str:
    sys.path.insert(0, versions[0])
    from importlib import import_module

    return str(import_module("0011_first_attempts").TRIGGER_SQLITE)


def _value(v: Any, naive: bool) -> Any:
    if isinstance(v, datetime):
        return v.replace(tzinfo=None) if naive else v.strftime("%Y-%m-%d %H:%M:%S.%f")
    return v


def _cpu(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _report(name: str, on: list[float], off: list[float]) -> None:
    a, b = statistics.median(on), statistics.median(off)
    print(
        f"{name}: with the trigger {a:.1f} us of CPU per attempt (blocks {min(on):.1f}-{max(on):.1f}), without {b:.1f} "
        f"({min(off):.1f}-{max(off):.1f}): {a - b:+.1f} us; load average {os.getloadavg()[0]:.2f}",
        flush=True,
    )


async def _sqlite(data: list[list[Any]], sessions: list[list[Any]], blocks: int) -> None:
    import sqlite3

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "b.db"
        repository = await open_repository(f"sqlite+aiosqlite:///{path}")
        await repository.close()
        db = sqlite3.connect(path, isolation_level=None)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=NORMAL")  # the disk's sync is not the trigger's cost
        db.executemany(f"INSERT INTO sessions VALUES ({', '.join('?' * 11)})", sessions)
        insert = f"INSERT INTO attempts ({', '.join(_COLUMNS)}) VALUES ({', '.join('?' * len(_COLUMNS))})"
        trigger = _trigger_sqlite()
        on: list[float] = []
        off: list[float] = []
        size = len(data) // blocks
        for b in range(blocks):
            enabled = b % 2 == 0
            db.execute("DROP TRIGGER IF EXISTS first_attempts_note")
            if enabled:
                db.execute(trigger)
            block = data[b * size : (b + 1) * size]
            started = time.process_time()
            for row in block:
                db.execute("BEGIN IMMEDIATE")
                db.execute(insert, row)
                db.execute("COMMIT")
            (on if enabled else off).append((time.process_time() - started) / len(block) * 1e6)
        db.close()
        _report("sqlite", on, off)


async def _postgresql(data: list[list[Any]], sessions: list[list[Any]], blocks: int) -> None:
    name = f"quizbot_bench_{uuid.uuid4().hex[:8]}"
    admin = await asyncpg.connect(PG_ADMIN)
    await admin.execute(f'CREATE DATABASE "{name}"')
    try:
        repository = await open_repository(f"postgresql+asyncpg://postgres@127.0.0.1:5432/{name}")
        await repository.close()
        c = await asyncpg.connect(f"postgresql://postgres@127.0.0.1:5432/{name}")
        await c.executemany(f"INSERT INTO sessions VALUES ({', '.join(f'${i + 1}' for i in range(11))})", sessions)
        pid = await c.fetchval("SELECT pg_backend_pid()")
        insert = f"INSERT INTO attempts ({', '.join(_COLUMNS)}) VALUES ({', '.join(f'${i + 1}' for i in range(len(_COLUMNS)))})"
        on: list[float] = []
        off: list[float] = []
        size = len(data) // blocks
        for b in range(blocks):
            enabled = b % 2 == 0
            await c.execute(f"ALTER TABLE attempts {'ENABLE' if enabled else 'DISABLE'} TRIGGER first_attempts_note")
            if b == 2:  # as autovacuum would have: the tables' statistics once they hold rows
                await c.execute("ANALYZE")
            block = data[b * size : (b + 1) * size]
            started = _cpu(pid)
            for row in block:
                await c.execute(insert, *row)  # autocommit: one statement, one transaction
            (on if enabled else off).append((_cpu(pid) - started) / len(block) * 1e6)
        await c.close()
        _report("postgresql (the server process)", on, off)
    finally:
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await admin.close()


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--attempts", type=int, default=20_000)
    parser.add_argument("--blocks", type=int, default=10)
    parser.add_argument("--db", nargs="+", default=["sqlite", "postgresql"], choices=["sqlite", "postgresql"])
    args = parser.parse_args()
    if args.blocks < 2:
        parser.error("--blocks must be at least 2: blocks alternate with and without the trigger")
    quizzes, attempts = rows(max(1, args.attempts // 100), args.attempts)
    session_columns = ("id", "platform", "scope", "owner_kind", "owner_id", "status", "position", "data", "created_at",
                       "updated_at", "version")  # fmt: skip
    for db in args.db:
        naive = db == "postgresql"  # asyncpg wants naive datetimes for TIMESTAMP; SQLite, SQLAlchemy's text
        sessions = [[_value(q[k], naive) for k in session_columns] for q in quizzes]
        data = [[_value(a[k], naive) for k in _COLUMNS] for a in attempts]
        await (_sqlite if db == "sqlite" else _postgresql)(data, sessions, args.blocks)


if __name__ == "__main__":
    asyncio.run(main())
