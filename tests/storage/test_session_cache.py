"""The SQLite session cache never goes back in time, whatever order reads and saves finish in."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from bot.core.ports import Conflict
from bot.storage import open_repository
from bot.storage.codec import session_from_row
from bot.storage.session_cache import CachedSessions
from bot.storage.sessions import Row
from tests.storage import clicks


class HeldReads:
    """The session store (the cache's port), with each row read held back until told to go on."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.read = asyncio.Event()
        self.go = asyncio.Event()
        self.holding = True

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    async def get_row(self, session_id: str) -> Row | None:
        row = await self.inner.get_row(session_id)
        if self.holding:
            self.holding = False
            self.read.set()
            await self.go.wait()  # a save lands while this read's (older) row is on its way back
        return row


async def _cache(tmp_path: Path) -> tuple[Any, CachedSessions, HeldReads]:
    repo = await open_repository(f"sqlite+aiosqlite:///{tmp_path / 'q.db'}")
    cache = repo.sessions
    assert isinstance(cache, CachedSessions)
    await cache.create(clicks.new_session("s1", "ann", 3))
    held = HeldReads(cache._store)
    cache._store = held
    cache.drop("s1")  # as after a refused save: the next read goes to the database
    return repo, cache, held


async def test_a_read_overtaken_by_a_save_does_not_hide_the_newer_row(tmp_path: Path) -> None:
    repo, cache, held = await _cache(tmp_path)
    try:
        reading = asyncio.create_task(cache.get("s1"))
        await held.read.wait()  # the read has version 0 in hand
        fresh = await held.inner.get_row("s1")
        session = session_from_row(fresh)
        await cache.save(session, clicks.attempt(session, "k1"))  # version 1 stored and cached
        held.go.set()
        got = await reading
        assert got is not None and got.version == 1
        later = await cache.get("s1")
        assert later is not None and later.version == 1  # the cache was not set back to version 0
    finally:
        await repo.close()


async def test_a_read_overtaken_by_a_save_and_a_refusal_reads_again(tmp_path: Path) -> None:
    repo, cache, held = await _cache(tmp_path)
    try:
        reading = asyncio.create_task(cache.get("s1"))
        await held.read.wait()
        stale = session_from_row(await held.inner.get_row("s1"))
        fresh = session_from_row(await held.inner.get_row("s1"))
        await cache.save(fresh, clicks.attempt(fresh, "k1"))  # version 1
        with pytest.raises(Conflict):
            await cache.save(stale, clicks.attempt(stale, "k2"))  # refused: drops the cached row
        held.go.set()
        got = await reading
        assert got is not None and got.version == 1  # read again rather than keep version 0
        later = await cache.get("s1")
        assert later is not None and later.version == 1
    finally:
        await repo.close()


async def test_finished_quizzes_leave_the_cache_first_and_are_read_again_from_the_database(tmp_path: Path) -> None:
    """The cache is bounded in quizzes kept, and finished ones are few of them: memory stays flat under load."""
    repo = await open_repository(f"sqlite+aiosqlite:///{tmp_path / 'q.db'}")
    try:
        base = repo.sessions
        assert isinstance(base, CachedSessions)
        cache = CachedSessions(base._store, capacity=6, done_capacity=2)
        for n in range(5):
            session = clicks.new_session(f"done{n}", f"learner{n}", 2)
            await cache.create(session)
            session.status = "finished"
            await cache.save(session)
        live = clicks.new_session("live", "ann", 2)
        await cache.create(live)
        assert sorted(cache._rows) == ["done3", "done4", "live"]  # the two newest finished, and the active one
        old = await cache.get("done0")  # pushed out: read from the database, as stored
        assert old is not None and old.status == "finished" and old.version == 1
        assert sorted(cache._rows) == ["done0", "done4", "live"]  # the read keeps it; the oldest finished one goes
        assert (await cache.active(live.owner)) is not None and "live" in cache._rows
        for n in range(8):  # more active quizzes than the cache holds: the least recently used go
            await cache.create(clicks.new_session(f"more{n}", f"other{n}", 2))
        assert len(cache._rows) == 6 and "live" not in cache._rows
        again = await cache.active(live.owner)
        assert again is not None and again.id == "live"  # read from the database
    finally:
        await repo.close()


async def test_a_copy_read_from_the_cache_shares_nothing_with_it(tmp_path: Path) -> None:
    repo = await open_repository(f"sqlite+aiosqlite:///{tmp_path / 'q.db'}")
    try:
        cache = repo.sessions
        session = clicks.new_session("s1", "ann", 2)
        session.filters = {"daily": True, "daily_new": ["p/q1"], "next": {"pack": "p", "count": 2}}
        session.items[0].order = [2, 0, 1]
        await cache.create(session)
        copy = await cache.get("s1")
        assert copy is not None and copy.filters == session.filters and copy.items[0].order == (2, 0, 1)
        for item in copy.items:  # shared with the cache, read-only: changing one raises
            with pytest.raises(AttributeError):
                item.done = True
        copy.filters["daily_new"].append("p/q2")
        copy.filters["next"]["count"] = 9
        current = copy.current  # the session's own copy of the item being answered
        assert current is not None and current is copy.items[0]
        current.order.reverse()
        current.picked.append(1)
        current.selections[1] = 0
        current.done = True
        again = await cache.get("s1")
        assert again is not None
        assert again.filters == {"daily": True, "daily_new": ["p/q1"], "next": {"pack": "p", "count": 2}}
        first = again.items[0]
        assert (first.order, first.picked, dict(first.selections), first.done) == ((2, 0, 1), (), {}, False)
    finally:
        await repo.close()
