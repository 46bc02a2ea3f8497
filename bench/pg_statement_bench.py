"""What a click's statement costs the bot on PostgreSQL: through SQLAlchemy's execute, and on asyncpg itself.

Five operations, each in blocks that alternate the two ways on the same database and connection pool:

- reading one stored quiz by its id, as a click did: SQLAlchemy's `execute` on a pooled connection
  switched to AUTOCOMMIT (the way before `bot/storage/pg_link.py`) against `SessionStore.get_row`
  (the pool's asyncpg connection itself, the statement compiled once);
- a code answer's unfinished-work row begun and ended: each in a SQLAlchemy transaction (the way
  before) against `WorkStore.begin` and `end` (one statement each on asyncpg itself);
- a new quiz stored (a quiz's start): in a SQLAlchemy transaction with the check of its owner's
  active quizzes (`SessionStore._run`, the way before, still a group's on SQLite) against
  `SessionStore.create` (one INSERT on asyncpg itself; the unique index refuses a second active quiz);
- a quiz start's read of the learner's cards in three packs (60 cards): SQLAlchemy's `execute` with
  an expanding IN (`progress._HISTORY`, the way before, still SQLite's) against `ProgressStore.history`
  (the packs as one array parameter, on asyncpg itself: `Database.rows`);
- a pooled connection borrowed and given back, as every statement on asyncpg itself needs: as
  SQLAlchemy's `AsyncConnection` (`engine.connect()` and its raw connection, `pg_link.direct` before
  it took the pool's connection itself) against `pg_link.direct`.

Prints this process's CPU per operation for each block, then the medians side by side. Not a
test: figures depend on the machine and on what else runs on it (the load average is printed).

    .venv/bin/python bench/pg_statement_bench.py [--reads 2000] [--blocks 6]
"""

from __future__ import annotations

import argparse
import itertools
import os
import statistics
import sys
import time
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import asyncpg
from sqlalchemy import insert

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the package, and tests' quiz builders

from bot.core.work import Work
from bot.storage import SqlRepository, open_repository, pg_link
from bot.storage.codec import session_row
from bot.storage.progress import _HISTORY
from bot.storage.sessions import _GET_ROW, SessionStore
from bot.storage.tables import reviews
from bot.storage.work import _END, COLUMNS
from bot.storage.writer import SaveOp
from tests.storage import clicks

PG_ADMIN = "postgresql://postgres@127.0.0.1:5432/test"


async def _through_sqlalchemy(store: SessionStore, session_id: str) -> Any:
    async with store._db.engine.connect() as c:
        await c.execution_options(isolation_level="AUTOCOMMIT")
        row = (await c.execute(_GET_ROW.statement, {"id": session_id})).first()
    return None if row is None else dict(row._mapping)


def _work(n: int) -> Work:
    at = datetime(2026, 12, 1, tzinfo=UTC)
    return Work(
        id=f"w{n}", platform="slack", user_id="u1", item=f"s1:{n}", kind="grade", title="Q", process="p1",
        started_at=at, deadline=at + timedelta(minutes=3),
    )  # fmt: skip


async def _work_through_sqlalchemy(repo: SqlRepository, n: int) -> None:
    store = repo.work
    for statement, params in (
        (store._upsert.statement, {name: getattr(_work(n), name) for name in COLUMNS}),
        (_END.statement, {"id": f"w{n}"}),
    ):
        async with store._db.write() as c:
            await c.execute(statement, params)


async def _work_directly(repo: SqlRepository, n: int) -> None:
    await repo.work.begin(_work(n))
    await repo.work.end(f"w{n}")


async def _create_in_transaction(store: SessionStore, n: int) -> None:
    session = clicks.new_session(f"t{n}", f"t{n}", 20)
    await store._run(SaveOp(session_row(session, session.version), -1, None, None, insert=True))


async def _create_directly(store: SessionStore, n: int) -> None:
    await store.create(clicks.new_session(f"d{n}", f"d{n}", 20))


HISTORY = {"platform": "slack", "user_id": "ann", "packs": ["p0", "p1", "p2"]}


async def _cards(repo: SqlRepository) -> None:
    rows = [
        {"platform": "slack", "user_id": "ann", "pack_id": f"p{p}", "question_id": f"q{q}", "card": '{"state": 2}',
         "due": datetime(2026, 12, 6, tzinfo=UTC), "correct": q % 2 == 0, "answers": 1}
        for p in range(3) for q in range(20)
    ]  # fmt: skip
    async with repo.engine.begin() as c:
        await c.execute(insert(reviews), rows)


async def _history_through_sqlalchemy(repo: SqlRepository) -> list[Any]:
    async with repo.engine.connect() as c:
        await c.execution_options(isolation_level="AUTOCOMMIT")
        return sorted(tuple(row) for row in await c.execute(_HISTORY.statement, HISTORY))


async def _history_directly(repo: SqlRepository) -> list[Any]:
    found = await repo.history(HISTORY["platform"], HISTORY["user_id"], HISTORY["packs"])
    return sorted((p, q, h.due, h.card, h.last_correct, h.attempts) for (p, q), h in found.items())


async def _borrow_as_async_connection(repo: SqlRepository) -> None:
    async with repo.engine.connect() as c:
        await c.get_raw_connection()


async def _borrow_directly(repo: SqlRepository) -> None:
    async with pg_link.direct(repo.engine):
        pass


async def _compare(what: str, ways: dict[str, Any], times: int, blocks: int) -> None:
    for run in ways.values():
        await _cpu_each(run, 200)  # warm: connections open, statements prepared
    figures: dict[str, list[float]] = {way: [] for way in ways}
    print(f"load average {os.getloadavg()[0]:.2f}; {times} of {what} per block")
    for block in range(blocks):
        for way, run in ways.items():
            figures[way].append(await _cpu_each(run, times))
            print(f"  block {block + 1}: {way}: {figures[way][-1]:.0f} µs CPU each")
    (old_way, old), (new_way, new) = ((way, statistics.median(v)) for way, v in figures.items())
    print(f"median: {old_way} {old:.0f} µs, {new_way} {new:.0f} µs each ({new / old:.0%})")
    print(f"load average {os.getloadavg()[0]:.2f}")


async def _cpu_each(run: Any, times: int) -> float:
    start = time.process_time()
    for _ in range(times):
        await run()
    return (time.process_time() - start) / times * 1e6


async def main(reads: int, blocks: int) -> None:
    name = f"quizbot_bench_{uuid.uuid4().hex[:10]}"
    admin = await asyncpg.connect(PG_ADMIN)
    await admin.execute(f'CREATE DATABASE "{name}"')
    try:
        repo = await open_repository(f"postgresql+asyncpg://postgres@127.0.0.1:5432/{name}")
        try:
            await repo.create_session(clicks.new_session("s1", "ann", 20))
            store = repo.sessions
            assert isinstance(store, SessionStore)
            await _cards(repo)
            count = itertools.count()
            # (what, {way: one operation}, whether the two ways must return the same thing)
            comparisons: list[tuple[str, dict[str, Any], bool]] = [
                ("reads of a 20-item quiz", {
                    "SQLAlchemy execute": lambda: _through_sqlalchemy(store, "s1"),
                    "asyncpg itself (pg_link)": lambda: store.get_row("s1"),
                }, True),
                ("a work row begun and ended", {
                    "SQLAlchemy transactions": lambda: _work_through_sqlalchemy(repo, next(count)),
                    "one statement each (pg_link)": lambda: _work_directly(repo, next(count)),
                }, False),
                ("new 20-item quizzes stored", {
                    "a SQLAlchemy transaction with the check": lambda: _create_in_transaction(store, next(count)),
                    "one INSERT (pg_link)": lambda: _create_directly(store, next(count)),
                }, False),
                ("reads of a learner's 60 cards in three packs", {
                    "SQLAlchemy execute, expanding IN": lambda: _history_through_sqlalchemy(repo),
                    "asyncpg itself, one array (Database.rows)": lambda: _history_directly(repo),
                }, True),
                ("a pooled connection borrowed and given back", {
                    "AsyncConnection": lambda: _borrow_as_async_connection(repo),
                    "the pool's connection (pg_link.direct)": lambda: _borrow_directly(repo),
                }, False),
            ]  # fmt: skip
            for what, ways, same in comparisons:
                if same:
                    old_way, new_way = ways.values()
                    assert await old_way() == await new_way(), what
                await _compare(what, ways, reads, blocks)
        finally:
            await repo.close()
    finally:
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await admin.close()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reads", type=int, default=2000)
    parser.add_argument("--blocks", type=int, default=6)
    args = parser.parse_args()
    import uvloop

    uvloop.run(main(args.reads, args.blocks))
