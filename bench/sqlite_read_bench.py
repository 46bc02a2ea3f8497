"""What a single read costs the bot's CPU on SQLite: through SQLAlchemy, and on the driver (`sqlite_read.read_alone`).

The same statement (a learner's session row by its id, compiled once: `Prepared`) is read N times
each way, in alternating blocks, on a fresh SQLite file: through SQLAlchemy as the stores read
before (`engine.connect()` and `execute`), and in one trip on the pooled connection's driver
(`read_alone`, what `Database.rows` does on SQLite). Then the two reads a quiz start makes, the
learner's cards (`history`) and time zone (`learner_zone`), as the repository makes them now.
Prints the CPU time of this process per read (both threads: the event loop's and SQLite's), each
block and the medians. Not a test: figures depend on the machine and what else runs on it.

    .venv/bin/python bench/sqlite_read_bench.py [--reads 2000] [--blocks 3]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sqlalchemy import bindparam, select

from bot.loop import run as run_loop
from bot.storage import open_repository
from bot.storage import tables as t
from bot.storage.prepared import Prepared
from bot.storage.sqlite_read import read_alone
from tests.storage import clicks

SESSION = Prepared(select(t.sessions).where(t.sessions.c.id == bindparam("id")))


async def cpu_per_call(call: Callable[[], Awaitable[object]], n: int) -> float:
    """This process's CPU µs per call, after 100 calls to warm up."""
    for _ in range(100):
        await call()
    start = time.process_time()
    for _ in range(n):
        await call()
    return (time.process_time() - start) / n * 1e6


async def main(reads: int, blocks: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        repo = await open_repository(f"sqlite+aiosqlite:///{Path(folder) / 'bench.db'}")
        await repo.create_session(clicks.new_session("s1", "ann", 5))
        engine, params = repo.engine, {"id": "s1"}

        async def through_sqlalchemy() -> object:
            async with engine.connect() as c:
                return [dict(row._mapping) for row in await c.execute(SESSION.statement, params)]

        ways: dict[str, Callable[[], Awaitable[object]]] = {
            "through SQLAlchemy": through_sqlalchemy,
            "on the driver (read_alone)": lambda: read_alone(engine, SESSION, params),
            "a start's cards (history)": lambda: repo.history("discord", "ann", ["demo", "other"]),
            "a start's time zone (learner_zone)": lambda: repo.learner_zone("discord", "ann"),
        }
        assert await through_sqlalchemy() == await read_alone(engine, SESSION, params)
        figures: dict[str, list[float]] = {name: [] for name in ways}
        for block in range(blocks):
            for name, call in ways.items():
                figures[name].append(await cpu_per_call(call, reads))
            print(f"block {block + 1}: " + "; ".join(f"{name} {values[-1]:.0f} µs" for name, values in figures.items()), flush=True)
        medians = {name: statistics.median(values) for name, values in figures.items()}
        print("medians, CPU µs per read: " + "; ".join(f"{name} {value:.0f}" for name, value in medians.items()))
        print(f"on the driver / through SQLAlchemy: {medians['on the driver (read_alone)'] / medians['through SQLAlchemy']:.2f}")
        await repo.close()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reads", type=int, default=2000, help="reads a block, each way")
    parser.add_argument("--blocks", type=int, default=3, help="alternating blocks")
    args = parser.parse_args()
    run_loop(main(args.reads, args.blocks), use_uvloop=True)
