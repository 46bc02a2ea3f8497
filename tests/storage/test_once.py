"""Every click is recorded once: two bot processes on PostgreSQL, and concurrent saves on SQLite."""

from __future__ import annotations

import asyncio
import multiprocessing
from collections import Counter
from dataclasses import replace
from datetime import timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import event, select

from bot.core.ports import Conflict
from bot.storage import SqlRepository, open_repository
from bot.storage import tables as t
from bot.storage.daily_tables import daily_days, daily_learners
from tests.storage import clicks

ROUNDS = 100


async def _attempt_keys(repo: SqlRepository) -> Counter[str | None]:
    async with repo.engine.connect() as c:
        return Counter((await c.execute(select(t.attempts.c.key))).scalars())


async def _card_answers(repo: SqlRepository) -> list[int]:
    async with repo.engine.connect() as c:
        return list((await c.execute(select(t.reviews.c.answers))).scalars())


async def _check_same_click(repo: SqlRepository, outcomes: dict[int, list[str]]) -> None:
    for r in range(ROUNDS):
        pair = (outcomes[0][r], outcomes[1][r])
        assert pair.count("saved") == 1, f"round {r}: {pair}"  # exactly one process recorded the click
    keys = await _attempt_keys(repo)
    assert all(keys[f"click-{r}"] == 1 for r in range(ROUNDS) if r % 3), keys.most_common(3)
    assert keys[None] == len(range(0, ROUNDS, 3))  # the rounds without a key: one attempt each
    assert sum(keys.values()) == ROUNDS + len(range(2, ROUNDS, 3))  # plus each redelivery round's next click
    session = await repo.get_session("race")
    assert session is not None
    assert session.position == ROUNDS and session.status == "active"
    assert [i.attempts for i in session.items[:ROUNDS]] == [1 if r % 3 != 2 else 2 for r in range(ROUNDS)]
    assert await _card_answers(repo) == [1] * ROUNDS  # every card rated once


def _spawn(target: Any, args: list[tuple[Any, ...]]) -> dict[int, Any]:
    ctx = multiprocessing.get_context("spawn")
    barrier, results = ctx.Barrier(2), ctx.Queue()
    processes = [ctx.Process(target=target, args=(*a, barrier, results)) for a in args]
    for p in processes:
        p.start()
    try:
        got = dict(results.get(timeout=240) for _ in processes)
    finally:
        for p in processes:
            p.join(timeout=30)
            if p.is_alive():
                p.kill()
    assert all(p.exitcode == 0 for p in processes)
    return got


async def test_two_processes_record_the_same_click_once(pg_url: str) -> None:
    repo = await open_repository(pg_url)
    try:
        await repo.create_session(clicks.new_session("race", "ann", ROUNDS + 1))
        outcomes = await asyncio.to_thread(
            _spawn, clicks.run_same_click, [(pg_url, "race", ROUNDS, 0), (pg_url, "race", ROUNDS, 1)]
        )
        await _check_same_click(repo, outcomes)
        # The timings did race: some rounds were decided by the conditional update or the key.
        assert sum(o.count("conflict") for o in outcomes.values()) > 0
    finally:
        await repo.close()


async def test_two_processes_answering_on_the_same_days_count_each_day_once(pg_url: str) -> None:
    """Each day both processes store the learner's first answer of the day at once (two quizzes of
    hers): the streak moves once a day, and each answer counts once in the day's reviews."""
    days = 12
    repo = await open_repository(pg_url)
    try:
        await repo.create_session(clicks.new_session("in-guild", "ann", days))
        in_dm = clicks.new_session("in-dm", "ann", days)
        await repo.create_session(replace(in_dm, owner=replace(in_dm.owner, scope="dm")))
        done = await asyncio.to_thread(
            _spawn, clicks.run_daily_answers, [(pg_url, "in-guild", "ann", days, 0), (pg_url, "in-dm", "ann", days, 1)]
        )
        assert done == {0: days, 1: days}
        async with repo.engine.connect() as c:
            dl, dd = daily_learners.c, daily_days.c
            streak = (await c.execute(select(dl.streak_current, dl.streak_longest, dl.streak_last_day))).one()
            counted = (await c.execute(select(dd.day, dd.reviews).order_by(dd.day))).all()
        last = clicks.AT.date() + timedelta(days=days - 1)
        assert tuple(streak) == (days, days, last)
        assert [tuple(r) for r in counted] == [(clicks.AT.date() + timedelta(days=d), 2) for d in range(days)]
        assert sum((await _attempt_keys(repo)).values()) == 2 * days
    finally:
        await repo.close()


async def test_concurrent_deliveries_record_the_same_click_once_on_sqlite(tmp_path: Path) -> None:
    repo = await open_repository(f"sqlite+aiosqlite:///{tmp_path / 'q.db'}")
    try:
        await repo.create_session(clicks.new_session("race", "ann", ROUNDS + 1))
        barrier = asyncio.Barrier(2)

        async def wait() -> None:
            await barrier.wait()

        both = await asyncio.gather(*(clicks.same_click_rounds(repo, "race", ROUNDS, me, wait) for me in (0, 1)))
        await _check_same_click(repo, dict(enumerate(both)))
        assert sum(o.count("conflict") for o in both) > 0
    finally:
        await repo.close()


async def _check_load(repo: SqlRepository, counts: dict[int, dict[str, int]], sessions: list[str], items: int) -> None:
    saved = sum(c["saved"] for c in counts.values())
    keys = await _attempt_keys(repo)
    assert sum(keys.values()) == saved == len(sessions) * items * 2  # every click once, none lost
    assert sum(c["conflict"] + c["stale"] for c in counts.values()) > 0  # duplicates did arrive
    for sid in sessions:
        session = await repo.get_session(sid)
        assert session is not None and session.status == "finished"
        assert [i.attempts for i in session.items] == [2] * items
    assert await _card_answers(repo) == [1] * (len(sessions) * items)


async def test_load_with_duplicated_clicks_on_two_processes(pg_url: str) -> None:
    repo = await open_repository(pg_url)
    sessions, items = [f"s{n}" for n in range(20)], 6
    try:
        for n, sid in enumerate(sessions):
            await repo.create_session(clicks.new_session(sid, f"learner{n}", items))
        plan = clicks.plan(sessions, items, both=0.3)
        counts = await asyncio.to_thread(_spawn, clicks.run_deliver, [(pg_url, plan, 0), (pg_url, plan, 1)])
        await _check_load(repo, counts, sessions, items)
    finally:
        await repo.close()


async def test_load_with_duplicated_clicks_on_sqlite(tmp_path: Path) -> None:
    repo = await open_repository(f"sqlite+aiosqlite:///{tmp_path / 'q.db'}")
    sessions, items = [f"s{n}" for n in range(40)], 6
    try:
        for n, sid in enumerate(sessions):
            await repo.create_session(clicks.new_session(sid, f"learner{n}", items))
        plan = clicks.plan(sessions, items, both=0.3)
        both = await asyncio.gather(*(clicks.deliver(repo, plan, me) for me in (0, 1)))
        await _check_load(repo, dict(enumerate(both)), sessions, items)
    finally:
        await repo.close()


async def test_a_refused_save_keeps_nothing_and_does_not_sink_its_group(any_url: str) -> None:
    repo = await open_repository(any_url)
    try:
        for n in range(4):
            await repo.create_session(clicks.new_session(f"s{n}", f"u{n}", 3))
        await repo.save_session(await _get(repo, "s0"), clicks.attempt(await _get(repo, "s0"), "used"))
        stale = await _get(repo, "s1")
        await repo.save_session(await _get(repo, "s1"))  # now `stale` is one version behind
        saves = [
            (await _get(repo, "s0"), "used"),  # the key is already stored
            (stale, "fresh-1"),  # the version moved on
            (await _get(repo, "s2"), "fresh-2"),
            (await _get(repo, "s3"), "fresh-2"),  # the same key twice in one group: one is refused
        ]
        for session, _ in saves:
            session.position += 1
        results = await asyncio.gather(
            *(repo.save_session(s, clicks.attempt(s, key), clicks.card(s)) for s, key in saves), return_exceptions=True
        )
        assert isinstance(results[0], Conflict) and isinstance(results[1], Conflict)
        assert sorted(isinstance(r, Conflict) for r in results[2:]) == [False, True]
        assert await _attempt_keys(repo) == Counter({"used": 1, "fresh-2": 1})
        assert len(await _card_answers(repo)) == 1  # only the save that was kept rated a card
        positions = {sid: (await _get(repo, sid)).position for sid in ("s0", "s1", "s2", "s3")}
        assert positions["s0"] == positions["s1"] == 0
        assert sorted([positions["s2"], positions["s3"]]) == [0, 1]
    finally:
        await repo.close()


async def test_concurrent_saves_on_sqlite_share_their_transactions(tmp_path: Path) -> None:
    """Group commit stays grouped: a group whose statements fail as a whole is retried save by save,
    which keeps every save right but makes each its own transaction (a statement that broke only in
    groups once went unnoticed that way)."""
    repo = await open_repository(f"sqlite+aiosqlite:///{tmp_path / 'group.db'}")
    commits: list[int] = []
    try:
        sessions = [f"s{n}" for n in range(12)]
        for n, sid in enumerate(sessions):
            await repo.create_session(clicks.new_session(sid, f"u{n}", 3))
        loaded = [await _get(repo, sid) for sid in sessions]
        for session in loaded:
            session.position += 1
        event.listen(repo.engine.sync_engine, "commit", lambda _connection: commits.append(1))
        await asyncio.gather(*(repo.save_session(s, clicks.attempt(s, f"k-{s.id}"), clicks.card(s)) for s in loaded))
        assert await _attempt_keys(repo) == Counter({f"k-{sid}": 1 for sid in sessions})
        assert len(commits) <= 2, f"{len(commits)} transactions for {len(sessions)} concurrent saves"
    finally:
        await repo.close()


async def _get(repo: SqlRepository, sid: str) -> Any:
    session = await repo.get_session(sid)
    assert session is not None
    return session
