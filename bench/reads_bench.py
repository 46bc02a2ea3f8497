"""What the daily and race stores' reads cost on PostgreSQL: the bot's CPU and the server's, per read.

The reads a daily review's start makes (the learner, the day's count, the due cards: three
statements, the new items) and the one a daily post's answer makes (the member's earlier answer),
and a race's read, each repeated for `--learners` learners. Before f72fda6 each read was a
transaction (SQLAlchemy's BEGIN, the statements, a ROLLBACK when the connection went back to the
pool), and a review's start and a post's answer built their statements on every call; since, each
statement commits alone (`base.read_connection`), and those are built once (the day's count, the
due cards and the member's answer run on asyncpg itself, `Base._rows`).

`--bot-root A,B` runs the same measure with each checkout's code, alternating A, B, A, B (each
block in a child process with that checkout on its path). Prints, per block and then as medians,
this process's CPU per read and PostgreSQL's (every `postgres` process on the host, from /proc:
run it on a quiet machine). Not a test: figures depend on the machine and on what else runs on it.

    .venv/bin/python bench/reads_bench.py [--learners 500] [--blocks 3] [--bot-root .,../before]
"""

from __future__ import annotations

import os
import statistics
import time
import uuid
from datetime import UTC, date, datetime

import asyncpg
from checkouts import measured

PG_ADMIN = "postgresql://postgres@127.0.0.1:5432/test"
AT = datetime(2026, 12, 3, 9, 0, tzinfo=UTC)
READS = ("review start", "post answer", "race")


def postgres_cpu() -> float:
    """CPU seconds of every `postgres` process now alive (the server's backends and its helpers)."""
    ticks = 0
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/comm") as fh:
                if fh.read().strip() != "postgres":
                    continue
            with open(f"/proc/{pid}/stat") as fh:
                fields = fh.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        ticks += int(fields[11]) + int(fields[12])
    return ticks / os.sysconf("SC_CLK_TCK")


async def measure(learners: int) -> dict[str, list[float]]:
    """In this process, with whatever `bot` is on the path: [bot, server] CPU ms per read of each kind."""
    from bot.storage import open_repository
    from bot.storage.daily import DailyRepository
    from bot.storage.social import SocialStore

    name = f"bench_reads_{uuid.uuid4().hex[:8]}"
    admin = await asyncpg.connect(PG_ADMIN)
    await admin.execute(f'CREATE DATABASE "{name}"')
    try:
        repo = await open_repository(f"postgresql+asyncpg://postgres@127.0.0.1:5432/{name}")
        daily, social = DailyRepository.beside(repo), SocialStore.beside(repo)

        async def review_start(n: int) -> None:
            await daily.get_learner("discord", f"u{n}")
            await daily.day_count("discord", f"u{n}", date(2026, 12, 3))
            await daily.due_cards("discord", f"u{n}", AT, 20)
            await daily.new_items("discord", f"u{n}", ["demo"], 5)

        async def post_answer(n: int) -> None:
            await daily.member_answer(f"post{n % 7}", f"u{n}")

        async def race(n: int) -> None:
            await social.get_race(f"race{n}")

        figures: dict[str, list[float]] = {}
        try:
            for kind, read in zip(READS, (review_start, post_answer, race), strict=True):
                await read(0)  # the statements' first compile and prepare, outside the figures
                bot, server = time.process_time(), postgres_cpu()
                for n in range(learners):
                    await read(n)
                figures[kind] = [1e3 * (time.process_time() - bot) / learners, 1e3 * (postgres_cpu() - server) / learners]
        finally:
            await repo.close()
        return figures
    finally:
        await admin.execute(f'DROP DATABASE "{name}" WITH (FORCE)')
        await admin.close()


def _line(figures: dict[str, list[float]]) -> str:
    return "; ".join(f"{k} {b:.3f} + {s:.3f} ms" for k, (b, s) in figures.items())


def main() -> None:
    def summary(blocks: list[dict[str, list[float]]]) -> str:
        return _line({k: [statistics.median(b[k][i] for b in blocks) for i in (0, 1)] for k in READS})

    measured(__file__, __doc__ or "", 500, measure, _line, summary, ", bot + server CPU per read")


if __name__ == "__main__":
    main()
