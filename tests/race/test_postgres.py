"""Two bot processes on one PostgreSQL database answering the same race round at once."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

from sqlalchemy import func, select

from bot.core import QuizService
from bot.core.ports import SystemClock
from bot.core.race import RaceService
from bot.storage import open_repository, tables
from bot.storage import social_tables as st
from bot.storage.social import SocialStore

from .conftest import Posts
from .helpers import member, postgres_url, race_pack

ROOT = Path(__file__).resolve().parents[2]
PER_PROCESS = 30
SHARED = 10


async def read(process: asyncio.subprocess.Process) -> dict[str, object]:
    assert process.stdout is not None
    line = await asyncio.wait_for(process.stdout.readline(), 120)
    assert line, "the worker ended early"
    return dict(json.loads(line))


async def tell(processes: list[asyncio.subprocess.Process], word: str) -> None:
    for p in processes:
        assert p.stdin is not None
        p.stdin.write(word.encode() + b"\n")
        await p.stdin.drain()


async def test_two_processes_record_each_answer_once_in_arrival_order() -> None:
    async with postgres_url() as url:
        repo = await open_repository(url)
        try:
            await QuizService(repository=repo, runner=None, clock=SystemClock()).import_pack(race_pack(others=False))
            store = SocialStore.beside(repo)
            races = RaceService(repository=repo, store=store, clock=SystemClock(), publish=Posts(), timers=False)
            await races.start(member("Ann"), rounds=3, seconds=120)
            race = await store.running_race("discord", "guild-1", "chan-1")
            assert race is not None
            # Each process has its own members and ten it shares with the other (a double click
            # landing on two processes): those must be recorded once.
            users = {
                tag: [u for i in range(PER_PROCESS) for u in ([f"{tag}{i}"] + ([f"dup{i}"] if i < SHARED else []))]
                for tag in ("a", "b")
            }
            processes = [
                await asyncio.create_subprocess_exec(
                    sys.executable, "-m", "tests.race.pg_worker", url, race.id, ",".join(users[tag]),
                    cwd=ROOT, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
                )
                for tag in ("a", "b")
            ]
            try:
                for p in processes:
                    assert await read(p) == {"ready": True}
                await tell(processes, "go")
                outcomes: dict[str, list[dict[str, object]]] = {"a": [], "b": []}
                for tag, p in zip(("a", "b"), processes, strict=True):
                    while (step := await read(p)) != {"answered": True}:
                        outcomes[tag].append(step)
                await tell(processes, "close")
                closes = []
                for p in processes:
                    step = await read(p)
                    while "posted" in step:
                        step = await read(p)
                    closes.append(step["closed"])
            finally:
                for p in processes:
                    await p.wait()
            assert sorted(closes) == [False, True]  # exactly one process closed the round

            race = await store.get_race(race.id)
            assert race is not None and race.round == 1
            answers = race.round_answers(0)
            assert len(answers) == 2 * PER_PROCESS + SHARED
            assert [a.seq for a in answers] == list(range(1, len(answers) + 1))
            recorded_twice = [u for u in {a.user_id for a in answers} if sum(x.user_id == u for x in answers) > 1]
            assert recorded_twice == []
            for i in range(SHARED):
                statuses = sorted(
                    str(s["status"]) for tag in ("a", "b") for s in outcomes[tag] if s["user"] == f"dup{i}"
                )
                assert statuses == ["AlreadyAnswered", "recorded"]
            # each process's answers are numbered in the order it sent them
            for tag in ("a", "b"):
                sent = [str(s["user"]) for s in outcomes[tag] if s["status"] == "recorded"]
                seq = {a.user_id: a.seq for a in answers}
                assert [seq[u] for u in sent] == sorted(seq[u] for u in sent)
            async with repo.engine.connect() as c:
                stored = (
                    await c.execute(select(func.count()).where(tables.attempts.c.session_id == race.id))
                ).scalar()
            assert stored == len(answers)  # the close wrote each answer as an attempt, once
        finally:
            await repo.close()


async def test_two_processes_starting_a_race_in_one_channel_get_one_race() -> None:
    async with postgres_url() as url:
        first, second = await open_repository(url), await open_repository(url, migrate=False)
        try:
            await QuizService(repository=first, runner=None, clock=SystemClock()).import_pack(race_pack(others=False))
            services = [
                RaceService(repository=r, store=SocialStore.beside(r), clock=SystemClock(), publish=Posts(), timers=False)
                for r in (first, second)
            ]
            outcomes = await asyncio.gather(
                *(s.start(member(name), rounds=3) for s, name in zip(services, ("Ann", "Bob"), strict=True)),
                return_exceptions=True,
            )
            assert sorted(type(o).__name__ for o in outcomes) == ["RaceRunning", "Reply"]
            async with first.engine.connect() as c:
                running = (await c.execute(select(func.count()).where(st.races.c.status == "running"))).scalar()
            assert running == 1
        finally:
            await first.close()
            await second.close()
