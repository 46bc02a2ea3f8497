"""Benchmark: 200 members answer one race round within the same second, through core and storage.

Each member's click goes through `RaceService.act` (load the race, grade, record the answer under
the race's row lock) on a real database: a SQLite file by default, or `--url postgresql+asyncpg://...`.
Prints p50/p99/max of the time to record each answer, checks that the arrival numbers follow
the order in which the answers reached the store, and times closing the round (the reveal, and an
attempt and a review card per answer).

    .venv/bin/python bench/race_bench.py [--members 200] [--spread 1.0] [--url URL]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import tempfile
import time
from datetime import datetime, timedelta
from pathlib import Path

from bot.core import Actor, QuizService
from bot.core.packs import Pack
from bot.core.ports import SystemClock
from bot.core.race import ChannelPost, RaceAnswer, RaceService, Recorded
from bot.core.race import actions as rx
from bot.storage import open_repository
from bot.storage.social import SocialStore


class ShiftedClock(SystemClock):
    """The real clock, which the benchmark can move past a round's deadline."""

    shift = timedelta(0)

    def now(self) -> datetime:
        return super().now() + self.shift


class ArrivalStore(SocialStore):
    """The real store, noting the order in which answers reach it."""

    arrivals: list[str]

    async def record_answer(self, race_id: str, answer: RaceAnswer) -> Recorded:
        self.arrivals.append(answer.user_id)
        return await super().record_answer(race_id, answer)


def bench_pack() -> Pack:
    return Pack.model_validate(
        {
            "pack": "bench",
            "title": "Bench",
            "version": 1,
            "questions": [
                {
                    "id": f"q{i}",
                    "type": "choice",
                    "prompt": f"Question {i}?",
                    "shuffle": False,
                    "choices": [{"text": "right", "correct": True}, {"text": "wrong"}],
                }
                for i in range(5)
            ],
        }
    )


async def posted(post: ChannelPost) -> None:
    return None


async def run(url: str, members: int, spread: float) -> None:
    repo = await open_repository(url)
    try:
        clock = ShiftedClock()
        await QuizService(repository=repo, runner=None, clock=clock).import_pack(bench_pack(), force=True)
        store = ArrivalStore.beside(repo)
        store.arrivals = []
        races = RaceService(repository=repo, store=store, clock=clock, publish=posted, timers=False)
        starter = Actor("discord", "guild-b", "host", "Host", channel_id=f"chan-{time.time_ns()}")
        await races.start(starter, rounds=3, seconds=60)
        race = await store.running_race("discord", "guild-b", starter.channel_id or "")
        assert race is not None
        rng = random.Random(5)
        latencies: list[float] = []

        delays = [rng.uniform(0, spread) for _ in range(members)]
        pick = [rng.choice((0, 1)) for _ in range(members)]

        async def click(index: int) -> None:
            await asyncio.sleep(delays[index])
            actor = Actor("discord", "guild-b", f"m{index:03d}", f"Member {index}", channel_id=starter.channel_id)
            started = time.perf_counter()
            await races.act(actor, rx.make(race.id, 0, rx.CHOOSE, pick[index]))
            latencies.append(time.perf_counter() - started)

        began = time.perf_counter()
        await asyncio.gather(*(click(i) for i in range(members)))
        wall = time.perf_counter() - began
        stored = await store.get_race(race.id)
        assert stored is not None
        answers = stored.round_answers(0)
        by_seq = [a.user_id for a in answers]
        once = len(by_seq) == len(set(by_seq)) == members
        in_order = by_seq == store.arrivals
        latencies.sort()
        ms = [1000 * x for x in latencies]
        when = "all answers sent at once" if not spread else f"answers spread over {spread:g} s"
        print(f"database: {url.split(':')[0]}  members: {members}  {when}")
        print(f"record one answer (click to reply): p50 {statistics.median(ms):.1f} ms  "
              f"p99 {ms[max(0, int(len(ms) * 0.99) - 1)]:.1f} ms  max {ms[-1]:.1f} ms")
        print(f"all {members} answers stored {wall * 1000:.0f} ms after the first was sent")
        print(f"each answer stored once: {once}; numbered in arrival order: {in_order}")
        clock.shift = timedelta(seconds=61)
        began = time.perf_counter()
        closed = await races.close_round(race.id, 0)
        print(f"close the round (reveal; {members} attempts and review cards written): "
              f"{(time.perf_counter() - began) * 1000:.0f} ms, closed: {closed}")
        await races.stop(starter)
    finally:
        await repo.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--members", type=int, default=200)
    parser.add_argument("--spread", type=float, default=0.0, help="send the answers at random within this many seconds")
    parser.add_argument("--url", default=None, help="database URL (default: a SQLite file in a temporary folder)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        url = args.url or f"sqlite+aiosqlite:///{Path(folder) / 'race_bench.db'}"
        asyncio.run(run(url, args.members, args.spread))


if __name__ == "__main__":
    main()
