"""The benchmark's database: a fresh one per configuration, its connections sampled, its attempts counted."""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import sqlite3
from pathlib import Path

import asyncpg

from .measure import cpu_seconds
from .settings import PG_ADMIN


class PgSampler:
    """Samples the benchmark database's connections in pg_stat_activity: how many, in which state, and their CPU.

    A backend's CPU is read from /proc each second while it is connected (the server runs on this
    host): what it spent between its first and last sample. Each second's end of a backend that
    closed is missed, and so is the server's own background work (WAL writer, checkpointer).
    """

    def __init__(self, name: str) -> None:
        self.name = name
        self.peak_total = 0
        self.peak_idle_in_transaction = 0
        self.peak_lock_waits = 0
        self.samples = 0
        self.sum_idle_in_transaction = 0
        self.first_cpu: dict[int, float] = {}  # backend pid -> its CPU seconds when first seen
        self.last_cpu: dict[int, float] = {}

    async def run(self, stop: asyncio.Event) -> None:
        conn = await asyncpg.connect(PG_ADMIN)
        try:
            while not stop.is_set():
                rows = await conn.fetch(
                    "SELECT pid, state, wait_event_type FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()",
                    self.name,
                )
                idle_tx = sum(1 for r in rows if r["state"] == "idle in transaction")
                self.peak_total = max(self.peak_total, len(rows))
                self.peak_idle_in_transaction = max(self.peak_idle_in_transaction, idle_tx)
                self.peak_lock_waits = max(self.peak_lock_waits, sum(1 for r in rows if r["wait_event_type"] == "Lock"))
                self.samples += 1
                self.sum_idle_in_transaction += idle_tx
                for r in rows:
                    seconds = cpu_seconds(r["pid"])
                    self.first_cpu.setdefault(r["pid"], seconds)
                    self.last_cpu[r["pid"]] = max(seconds, self.last_cpu.get(r["pid"], 0.0))
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(stop.wait(), 1.0)
        finally:
            await conn.close()

    def cpu(self) -> float:
        """The backends' CPU seconds between their first and last samples."""
        return sum(self.last_cpu[pid] - first for pid, first in self.first_cpu.items())

    def summary(self, acked: int) -> str:
        mean = self.sum_idle_in_transaction / self.samples if self.samples else 0.0
        per_answer = f"{1000 * self.cpu() / acked:.2f} ms per answer acknowledged" if acked else "no answers"
        return (
            f"PostgreSQL connections of the bots (sampled each second): peak {self.peak_total}; "
            f"'idle in transaction' (held open by the bot between statements) peak {self.peak_idle_in_transaction}, "
            f"mean {mean:.1f}; waiting for a row lock peak {self.peak_lock_waits}; "
            f"their backends' CPU {self.cpu():.1f} s ({per_answer})"
        )


async def make_database(database: str, folder: Path) -> tuple[str, str]:
    """A fresh database: its name (a PostgreSQL database, or a SQLite file's path) and the bots' URL."""
    name = f"qb_platform_bench_{secrets.token_hex(4)}"
    if database == "sqlite":
        path = folder / f"{name}.db"
        return str(path), f"sqlite+aiosqlite:///{path}"
    admin = await asyncpg.connect(PG_ADMIN)
    try:
        await admin.execute(f'CREATE DATABASE "{name}"')
    finally:
        await admin.close()
    return name, f"postgresql+asyncpg://postgres@127.0.0.1:5432/{name}"


async def drop_database(database: str, name: str) -> None:
    if database == "sqlite":
        for suffix in ("", "-wal", "-shm"):
            Path(name + suffix).unlink(missing_ok=True)
        return
    admin = await asyncpg.connect(PG_ADMIN)
    try:
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    finally:
        await admin.close()


UNFINISHED_GRADES = "SELECT count(*) FROM unfinished_work WHERE platform = {p} AND kind = 'grade'"


def _count_sqlite(path: str, platform: str) -> tuple[int, int]:
    with contextlib.closing(sqlite3.connect(path, timeout=30)) as conn:
        attempts = conn.execute("SELECT count(*) FROM attempts WHERE platform = ?", (platform,)).fetchone()[0]
        unfinished = conn.execute(UNFINISHED_GRADES.format(p="?"), (platform,)).fetchone()[0]
        return int(attempts), int(unfinished)


async def count_attempts(database: str, name: str, platform: str) -> tuple[int, int]:
    """The attempts stored, and the code answers accepted but still ungraded (their rows of unfinished work)."""
    if database == "sqlite":
        return await asyncio.to_thread(_count_sqlite, name, platform)
    conn = await asyncpg.connect(f"postgresql://postgres@127.0.0.1:5432/{name}")
    try:
        attempts = await conn.fetchval("SELECT count(*) FROM attempts WHERE platform = $1", platform)
        unfinished = await conn.fetchval(UNFINISHED_GRADES.format(p="$1"), platform)
        return int(attempts), int(unfinished)
    finally:
        await conn.close()
