"""Measure members answering the channel's daily post through QuizService, side by side with other code.

Each member clicks an answer on the post's own control (`dp:<post>:0:c:<n>`): the post is opened
(the post, the member's answer so far), the choice graded, and the member's row, the post's tally,
the attempt, the review card and the practice day stored. Half the members answer right, half
wrong (one attempt, then done). Then each member starts a quiz, and their first answers are timed, for comparison.

`--bot-root A,B` runs the same measure with each checkout's code, alternating A, B, A, B (each
block in a child process with that checkout on its path). Prints, per block and then as medians,
this process's CPU per daily answer and per quiz answer, the daily answer's median wall time, and
on PostgreSQL the server's CPU per daily answer (every `postgres` process on the host: run it on a
quiet machine). Not a test: figures depend on the machine and on what else runs on it.

    .venv/bin/python bench/daily_answers_bench.py [--learners 200] [--blocks 3] [--bot-root .,../before]
"""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path

from checkouts import measured
from reads_bench import postgres_cpu

DATABASES = ("sqlite", "postgresql")


async def measure(url: str, members: int, tmp: Path) -> dict[str, float]:
    """In this process, with whatever `bot` is on the path: the figures of one database."""
    from bot.core import requests as rq
    from bot.core.model import Actor
    from bot.storage import open_repository
    from tests.daily.support import FakePoster
    from tests.daily.wired import wire
    from tests.fakes import FakeClock, LocalRunner

    admin = Actor("discord", "g", "admin", "Admin", is_admin=True, channel_id="c1")
    repository = await open_repository(url)
    try:
        wired = await wire(repository, FakeClock(), LocalRunner(), tmp)
        await wired.posters.add("discord", FakePoster())
        await wired.service.handle(admin, rq.DailySet(time="11:00", timezone="UTC", pack="study"))
        await wired.service.handle(admin, rq.DailyNow())
        [post] = await wired.scheduler._store.open_posts("discord", "c1")
        members_ = [Actor("discord", "g", f"m{n}", f"M{n}", channel_id="c1") for n in range(members)]
        walls: list[float] = []
        cpu, server = time.process_time(), postgres_cpu()
        for n, member in enumerate(members_):
            wall = time.perf_counter()
            await wired.service.handle(member, rq.Act(f"dp:{post.id}:0:c:{n % 2}"))
            walls.append(time.perf_counter() - wall)
        daily_cpu, server = time.process_time() - cpu, postgres_cpu() - server
        clicks = []
        for member in members_:
            started = await wired.service.handle(member, rq.Start(pack="study", replace=True))
            clicks.append(next(m for m in started.messages if m.kind == "item").controls()[0].action)
        cpu = time.process_time()
        for member, click in zip(members_, clicks, strict=True):
            await wired.service.handle(member, rq.Act(click))
        quiz_cpu = time.process_time() - cpu
        return {
            "daily cpu": 1e3 * daily_cpu / members,
            "daily wall": 1e3 * statistics.median(walls),
            "server": 1e3 * server / members if "postgresql" in url else 0.0,
            "quiz cpu": 1e3 * quiz_cpu / members,
        }
    finally:
        await repository.close()


async def child(members: int) -> dict[str, dict[str, float]]:
    from tests.daily.support import postgres_url

    figures: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        figures["sqlite"] = await measure(f"sqlite+aiosqlite:///{tmp}/bench.db", members, Path(tmp))
        async with postgres_url() as url:
            figures["postgresql"] = await measure(url, members, Path(tmp))
    return figures


def _line(got: dict[str, dict[str, float]]) -> str:
    return "; ".join(
        f"{db}: daily {f['daily cpu']:.2f} ms CPU (+ {f['server']:.2f} server), wall median {f['daily wall']:.2f} ms, quiz {f['quiz cpu']:.2f} ms CPU"
        for db, f in got.items()
    )


def main() -> None:
    def summary(blocks: list[dict[str, dict[str, float]]]) -> str:
        return _line({db: {k: statistics.median(b[db][k] for b in blocks) for k in blocks[0][db]} for db in DATABASES})

    measured(__file__, __doc__ or "", 200, child, _line, summary)


if __name__ == "__main__":
    main()
