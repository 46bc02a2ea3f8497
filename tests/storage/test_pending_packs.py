"""Converted packs waiting for their admin: one row each in `pending_packs`, one hour, one admin, one use.

On SQLite and PostgreSQL (`any_url`). Two uploads at once keep two rows, and every expired row is
removed (before, both lived in the settings table behind one index entry that two uploads raced on,
and the row that lost was never emptied).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
from sqlalchemy import func, select

from bot.core import Actor
from bot.core.errors import QuizError
from bot.core.importing import PendingPacks, PreviewGone
from bot.storage import SqlRepository, open_repository
from bot.storage.pending import pending_packs
from tests.fakes import FakeClock

ADA = Actor("discord", "guild-1", "ada", "Ada", is_admin=True)
EVE = Actor("discord", "guild-1", "eve", "Eve", is_admin=True)


@pytest.fixture
async def repo(any_url: str) -> AsyncIterator[SqlRepository]:
    repository = await open_repository(any_url)
    yield repository
    await repository.close()


async def rows(repository: SqlRepository) -> list[str]:
    async with repository.engine.connect() as c:
        return sorted((await c.execute(select(pending_packs.c.key))).scalars())


async def test_a_pending_pack_is_kept_for_its_admin_for_an_hour(repo: SqlRepository) -> None:
    clock = FakeClock()
    pending = PendingPacks(repo.pending, clock)
    key = await pending.put(ADA, "p.zip", b"PK\x03\x04data", force=True)
    got = await pending.get(ADA, key)
    assert (got.filename, got.data, got.force) == ("p.zip", b"PK\x03\x04data", True)
    with pytest.raises(QuizError, match="belongs to the admin who uploaded"):
        await pending.get(EVE, key)
    clock.advance(minutes=61)
    with pytest.raises(PreviewGone):
        await pending.get(ADA, key)
    assert await rows(repo) == []  # the expired row is removed, data and all


async def test_two_uploads_at_once_keep_two_rows_and_expired_rows_are_removed(repo: SqlRepository) -> None:
    clock = FakeClock()
    pending = PendingPacks(repo.pending, clock)
    first, second = await asyncio.gather(
        pending.put(ADA, "a.zip", b"a", force=False), pending.put(EVE, "b.zip", b"b", force=False)
    )
    assert await rows(repo) == sorted([first, second])
    assert (await pending.get(ADA, first)).data == b"a" and (await pending.get(EVE, second)).data == b"b"
    clock.advance(minutes=61)  # neither was read again: the next upload removes both
    third = await pending.put(ADA, "c.zip", b"c", force=False)
    assert await rows(repo) == [third]


async def test_a_used_or_forged_key_is_refused(repo: SqlRepository) -> None:
    pending = PendingPacks(repo.pending, FakeClock())
    key = await pending.put(ADA, "p.zip", b"p", force=False)
    await pending.drop(key)
    for bad in (key, "no-such-key", "x" * 41, ""):
        with pytest.raises(PreviewGone):
            await pending.get(ADA, bad)
    async with repo.engine.connect() as c:
        assert (await c.execute(select(func.count()).select_from(pending_packs))).scalar_one() == 0
